import { describe, expect, it } from "vitest";
import { accountText, defaultDevAccount, labelDevAccounts, shortAddress } from "./dev-accounts.ts";

const OWNER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const ARBITER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OPERATOR = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const PEOPLE = ["0x90F79bf6EB2c4f870365E785982E1f101E93b906", "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65"];
const ROLES = { fee_recipient: OWNER, arbiter: ARBITER, operator: OPERATOR };

describe("the dev accounts a person picks from", () => {
  it("names the platform's role accounts, numbers the others as people, people first", () => {
    // The node answers lower-case addresses; the roles come checksummed.
    const accounts = labelDevAccounts(
      [OWNER, ARBITER, OPERATOR, ...PEOPLE].map((a) => a.toLowerCase()),
      ROLES,
    );
    expect(accounts.map((account) => account.label)).toEqual([
      "Person 1",
      "Person 2",
      "Platform owner & fee recipient",
      "Arbiter",
      "Operator (service relayer)",
    ]);
    expect(accounts.map((account) => account.role)).toEqual([false, false, true, true, true]);
    expect(accounts[0]?.address).toBe(PEOPLE[0]?.toLowerCase());
  });

  it("offers the first person by default, never a role account", () => {
    const accounts = labelDevAccounts([OWNER, ARBITER, OPERATOR, ...PEOPLE], ROLES);
    expect(defaultDevAccount(accounts)?.label).toBe("Person 1");
  });

  it("offers the preferred account (the agent's wallet) when the node has it, whatever its case", () => {
    const accounts = labelDevAccounts([OWNER, ARBITER, OPERATOR, ...PEOPLE], ROLES);
    expect(defaultDevAccount(accounts, PEOPLE[1]?.toLowerCase())?.label).toBe("Person 2");
    expect(defaultDevAccount(accounts, ARBITER)?.label).toBe("Arbiter");
    expect(defaultDevAccount(accounts, "0x0000000000000000000000000000000000000001")?.label).toBe("Person 1");
    expect(defaultDevAccount([])).toBeUndefined();
  });

  it("one account holding two roles is named by both", () => {
    const accounts = labelDevAccounts([OWNER, ...PEOPLE], { fee_recipient: OWNER, arbiter: OWNER, operator: null });
    expect(accounts.at(-1)?.label).toBe("Platform owner & fee recipient, Arbiter");
  });

  it("before the roles are known, every account is a person", () => {
    expect(labelDevAccounts([OWNER, ARBITER], {}).map((account) => account.label)).toEqual(["Person 1", "Person 2"]);
  });

  it("shows an account as its name and a short address", () => {
    expect(shortAddress(PEOPLE[0] as string)).toBe("0x90F7…b906");
    expect(accountText({ address: PEOPLE[0] as string, label: "Person 1", role: false })).toBe(
      "Person 1 (0x90F7…b906)",
    );
  });
});
