import { describe, expect, it } from "vitest";
import { ipBudgetKey } from "./middleware.ts";

describe("ipBudgetKey", () => {
  it("keeps an IPv4 address, and the IPv4 inside an IPv4-mapped IPv6 address", () => {
    expect(ipBudgetKey("203.0.113.7")).toBe("203.0.113.7");
    expect(ipBudgetKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts an IPv6 client by its /64, however the address is written", () => {
    const key = ipBudgetKey("2001:db8:aa:bb:1:2:3:4");
    expect(key).toBe("2001:db8:aa:bb::/64");
    expect(ipBudgetKey("2001:0db8:00aa:00bb:ffff::1")).toBe(key);
    expect(ipBudgetKey("2001:db8:aa:bb::")).toBe(key);
    expect(ipBudgetKey("2001:db8:aa:bc::1")).not.toBe(key);
    expect(ipBudgetKey("::1")).toBe("0:0:0:0::/64");
    expect(ipBudgetKey("fe80::1")).toBe("fe80:0:0:0::/64");
  });

  it("leaves what is not an address as it is", () => {
    expect(ipBudgetKey("local")).toBe("local");
  });
});
