import { describe, expect, it } from "vitest";
import { checkWebhookUrl, isPublicAddress } from "./webhook-url.ts";

describe("webhook URL policy", () => {
  it("tells public addresses from loopback, private, link-local and reserved ones", () => {
    for (const address of ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [
      "127.0.0.1",
      "10.0.0.1",
      "172.16.5.4",
      "192.168.0.10",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "not an address",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("in local development accepts loopback; never another scheme or credentials", async () => {
    await expect(checkWebhookUrl("http://127.0.0.1:3000/hook", true)).resolves.toBeUndefined();
    await expect(checkWebhookUrl("http://localhost/hook", false)).rejects.toThrow(/public address/);
    await expect(checkWebhookUrl("file:///etc/passwd", true)).rejects.toThrow(/http/);
    await expect(checkWebhookUrl("https://u:p@example.com/", true)).rejects.toThrow(/credentials/);
    await expect(checkWebhookUrl("https://8.8.8.8/hook", false)).resolves.toBeUndefined();
  });
});
