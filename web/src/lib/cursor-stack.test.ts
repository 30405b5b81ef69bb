import { expect, test } from "vitest";
import { backward, forward, positionOf, writePosition } from "./cursor-stack.ts";

test("forward keeps the earlier cursors, backward returns them in order", () => {
  const first = { cursor: "", back: [] };
  const third = forward(forward(first, "c2"), "c3");
  expect(third, "page 3").toEqual({ cursor: "c3", back: ["c2"] });
  expect(backward(third), "page 2").toEqual({ cursor: "c2", back: [] });
  expect(backward(backward(third)), "page 1").toEqual({ cursor: "", back: [] });
});

test("the position survives the URL; the first page writes nothing", () => {
  const query = new URLSearchParams();
  writePosition(query, { cursor: "c4", back: ["c2", "c3"] });
  expect(positionOf(query), "read back").toEqual({ cursor: "c4", back: ["c2", "c3"] });
  const empty = new URLSearchParams();
  writePosition(empty, { cursor: "", back: [] });
  expect(empty.toString(), "first page").toBe("");
});
