import { expect, test } from "vitest";
import { deliveryText, ratingText } from "./listing-facts.ts";

test("delivery times in words", () => {
  expect(deliveryText(72)).toBe("3 days");
  expect(deliveryText(48)).toBe("2 days");
  expect(deliveryText(24)).toBe("1 day");
  expect(deliveryText(36)).toBe("36 h");
  expect(deliveryText(1)).toBe("1 h");
  expect(deliveryText(720)).toBe("30 days");
});

test("a listing without ratings is new; with ratings, their average and count", () => {
  expect(ratingText({ avg_rating: "0.00", rating_count: 0 })).toBe("New: no ratings yet");
  expect(ratingText({ avg_rating: "4.67", rating_count: 3 })).toBe("Rated 4.67 / 5 (3 ratings)");
  expect(ratingText({ avg_rating: "5.00", rating_count: 1 })).toBe("Rated 5.00 / 5 (1 rating)");
});
