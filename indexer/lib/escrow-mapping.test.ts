import { escrowIdOf, escrowRef, hashEscrowTerms } from "@agent-marketplace/contracts";
import { describe, expect, it } from "vitest";
import {
  type AccountDelta,
  accountDeltasOnAssigned,
  accountDeltasOnDisputed,
  accountDeltasOnFunded,
  accountDeltasOnRefunded,
  accountDeltasOnReleased,
  accountDeltasOnResolved,
  addDelta,
  agentWalletOf,
  CONTRACT_STATUS,
  ESCROW_STATES,
  eventRow,
  fundedEscrowRow,
  isTerminal,
  type LogMeta,
  settlementStep,
  stateOfContractStatus,
  termsOf,
  totalsDelta,
  uuidOfEscrowId,
  uuidOfFundingRef,
  withEveryParty,
  ZERO_ACCOUNT_FIGURES,
  ZERO_ADDRESS,
  ZERO_TOTAL_FIGURES,
} from "./escrow-mapping.ts";

const BUYER = "0x00000000000000000000000000000000000000B1";
const SELLER = "0x00000000000000000000000000000000000000a5";
const OTHER = "0x00000000000000000000000000000000000000C3";
const UUID = "0b7c8f5e-2d1a-4c3b-9e8f-7a6b5c4d3e2f";
const META: LogMeta = {
  id: "1700000000000000000000313370000000000000012000000000000000000000000000000000003",
  txHash: "0xaaaa000000000000000000000000000000000000000000000000000000000001",
  txFrom: "0x00000000000000000000000000000000000000Ff",
  logIndex: 3,
  blockNumber: 12n,
  blockTimestamp: 1_700_000_000n,
};

/** Sums the deltas of each address, as the handlers apply them to zero rows. */
function apply(deltas: AccountDelta[][]) {
  const figures = new Map<string, typeof ZERO_ACCOUNT_FIGURES>();
  for (const { address, delta } of deltas.flat()) {
    figures.set(address, addDelta(figures.get(address) ?? ZERO_ACCOUNT_FIGURES, delta));
  }
  return figures;
}

describe("state names", () => {
  it("map both ways to the contract's status byte, and None to no state", () => {
    for (const state of ESCROW_STATES) expect(stateOfContractStatus(CONTRACT_STATUS[state])).toBe(state);
    expect(stateOfContractStatus(0)).toBeUndefined();
    expect(stateOfContractStatus(7)).toBeUndefined();
  });

  it("call only settled escrows terminal", () => {
    expect(ESCROW_STATES.filter(isTerminal)).toEqual(["RELEASED", "REFUNDED", "RESOLVED"]);
  });
});

describe("uuidOfFundingRef", () => {
  it("gives back the API's uuid of a ref made from one", () => {
    expect(uuidOfFundingRef(escrowRef(UUID), escrowIdOf(BUYER, escrowRef(UUID)))).toBe(UUID);
  });

  it("derives a version-8 uuid from the escrow id for a ref that is not a padded uuid (an x402 nonce)", () => {
    const nonce = `0x${"ff".repeat(32)}` as const;
    const escrowId = escrowIdOf(BUYER, nonce);
    const uuid = uuidOfFundingRef(nonce, escrowId);
    expect(uuid).toBe(uuidOfEscrowId(escrowId));
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The escrow id's first 16 bytes, but for the version and variant bits.
    expect(uuid.replaceAll("-", "").slice(0, 12)).toBe(escrowId.slice(2, 14).toLowerCase());
    // Another buyer's escrow under the same nonce is another escrow, with another uuid.
    expect(uuidOfFundingRef(nonce, escrowIdOf(OTHER, nonce))).not.toBe(uuid);
    expect(uuidOfFundingRef("0x1234", escrowId)).toBe(uuid);
  });

  it("never derives a version-4 uuid (the API's own ids), whatever the escrow id", () => {
    for (const byte of ["00", "3f", "7f", "bf", "ff"]) {
      expect(uuidOfEscrowId(`0x${byte.repeat(32)}`)[14]).toBe("8");
    }
    expect(() => uuidOfEscrowId("0x1234")).toThrow();
  });
});

describe("fundedEscrowRow", () => {
  const ref = escrowRef(UUID);
  const args = {
    escrowId: escrowIdOf(BUYER, ref),
    buyer: BUYER,
    seller: SELLER,
    ref,
    amount: 25_000_000n,
    deadline: 1_700_600_000,
    disputeWindow: 86_400,
    feeBps: 100,
  } as const;

  it("keeps the terms as the contract hashed them, lowercased, with the uuid and the funding step", () => {
    const row = fundedEscrowRow(31337, args, META);
    expect(row).toEqual({
      chainId: 31337,
      id: args.escrowId.toLowerCase(),
      uuid: UUID,
      status: "FUNDED",
      buyer: BUYER.toLowerCase(),
      seller: SELLER.toLowerCase(),
      amount: 25_000_000n,
      deadline: 1_700_600_000n,
      disputeWindow: 86_400,
      deliveredAt: 0n,
      feeBps: 100,
      isBounty: false,
      fundedTxHash: META.txHash,
      fundedBlock: 12n,
      fundedAt: 1_700_000_000n,
      updatedBlock: 12n,
    });
    // The row's terms hash to what the contract stores for the funding call's terms.
    expect(hashEscrowTerms(termsOf(row))).toBe(
      hashEscrowTerms({ ...args, deliveredAt: 0, buyer: BUYER, seller: SELLER }),
    );
  });

  it("takes the uuid from the ref, not the id, so two buyers' escrows under one ref both carry it", () => {
    const other = fundedEscrowRow(31337, { ...args, escrowId: escrowIdOf(OTHER, ref), buyer: OTHER }, META);
    const row = fundedEscrowRow(31337, args, META);
    expect(other.id).not.toBe(row.id);
    expect(other).toMatchObject({ uuid: UUID, buyer: OTHER.toLowerCase() });
    expect(row).toMatchObject({ uuid: UUID, buyer: BUYER.toLowerCase() });
  });

  it("derives the uuid from the escrow id for a ref that is not a padded uuid", () => {
    const ref = `0x${"ab".repeat(32)}` as const;
    const escrowId = escrowIdOf(BUYER, ref);
    expect(fundedEscrowRow(31337, { ...args, ref, escrowId }, META).uuid).toBe(uuidOfEscrowId(escrowId));
  });

  it("marks an escrow funded without a seller as a bounty", () => {
    expect(fundedEscrowRow(31337, { ...args, seller: ZERO_ADDRESS }, META)).toMatchObject({
      isBounty: true,
      seller: ZERO_ADDRESS,
    });
  });
});

describe("termsOf", () => {
  it("turns the row's bigint times into the numbers of the contract's uint40 fields", () => {
    expect(
      termsOf({
        buyer: BUYER,
        seller: SELLER,
        amount: 7n,
        deadline: 1_099_511_627_775n,
        disputeWindow: 60,
        deliveredAt: 1_700_000_100n,
        feeBps: 0,
      }),
    ).toEqual({
      buyer: BUYER,
      seller: SELLER,
      amount: 7n,
      deadline: 1_099_511_627_775,
      disputeWindow: 60,
      deliveredAt: 1_700_000_100,
      feeBps: 0,
    });
  });
});

describe("settlementStep", () => {
  it("records who settled the escrow, when, and in which transaction", () => {
    expect(settlementStep(OTHER, META)).toEqual({
      settledBy: OTHER.toLowerCase(),
      settledAt: 1_700_000_000n,
      settledTxHash: META.txHash,
      settledBlock: 12n,
      updatedBlock: 12n,
    });
  });
});

describe("eventRow", () => {
  it("places the log and fills the columns the event does not carry with null", () => {
    expect(eventRow(8453, "DELIVERED", { escrowId: "0xABCD", actor: SELLER, dataHash: "0x01" }, META)).toEqual({
      chainId: 8453,
      id: META.id,
      kind: "DELIVERED",
      escrowId: "0xabcd",
      actor: SELLER.toLowerCase(),
      amount: null,
      buyerAmount: null,
      fee: null,
      seller: null,
      dataHash: "0x01",
      sellerBps: null,
      txHash: META.txHash,
      txFrom: META.txFrom.toLowerCase(),
      logIndex: 3,
      blockNumber: 12n,
      blockTimestamp: 1_700_000_000n,
    });
  });

  it("keeps a credit's missing escrow id as null", () => {
    expect(eventRow(1, "CREDITED", { actor: SELLER, amount: 5n }, META)).toMatchObject({ escrowId: null, amount: 5n });
  });
});

describe("addDelta", () => {
  it("adds numbers to numbers and bigints to bigints, and leaves other fields alone", () => {
    expect(addDelta({ a: 1, b: 10n, c: 3 }, { a: -1, b: 5n })).toEqual({ a: 0, b: 15n, c: 3 });
  });

  it("starts a missing field at zero", () => {
    expect(addDelta<{ a?: number; b?: bigint }>({}, { a: 2, b: 3n })).toEqual({ a: 2, b: 3n });
  });
});

describe("account deltas", () => {
  const escrow = {
    buyer: BUYER.toLowerCase() as `0x${string}`,
    seller: SELLER.toLowerCase() as `0x${string}`,
    amount: 100n,
  };
  const buyer = escrow.buyer;
  const seller = escrow.seller;

  it("count a funded escrow for both parties and lock the buyer's amount", () => {
    const figures = apply([accountDeltasOnFunded(escrow)]);
    expect(figures.get(buyer)).toMatchObject({ escrowsAsBuyer: 1, lockedAsBuyer: 100n, escrowsAsSeller: 0 });
    expect(figures.get(seller)).toMatchObject({ escrowsAsSeller: 1, escrowsAsBuyer: 0 });
  });

  it("give an unassigned bounty's seller side to nobody", () => {
    expect(accountDeltasOnFunded({ ...escrow, seller: ZERO_ADDRESS })).toEqual([
      { address: buyer, delta: { escrowsAsBuyer: 1, lockedAsBuyer: 100n } },
    ]);
  });

  it("move the escrow from the old seller to the new one on assignment, and do nothing for the same seller", () => {
    expect(accountDeltasOnAssigned(ZERO_ADDRESS, SELLER)).toEqual([{ address: seller, delta: { escrowsAsSeller: 1 } }]);
    expect(accountDeltasOnAssigned(SELLER, OTHER)).toEqual([
      { address: seller, delta: { escrowsAsSeller: -1 } },
      { address: OTHER.toLowerCase(), delta: { escrowsAsSeller: 1 } },
    ]);
    expect(accountDeltasOnAssigned(SELLER, SELLER.toLowerCase() as `0x${string}`)).toEqual([]);
  });

  it("name every party of an event once, with an empty delta for a party the event does not count for", () => {
    expect(withEveryParty([], [BUYER, SELLER])).toEqual([
      { address: buyer, delta: {} },
      { address: seller, delta: {} },
    ]);
    expect(withEveryParty(accountDeltasOnAssigned(ZERO_ADDRESS, OTHER), [BUYER, ZERO_ADDRESS, OTHER])).toEqual([
      { address: OTHER.toLowerCase(), delta: { escrowsAsSeller: 1 } },
      { address: buyer, delta: {} },
    ]);
  });

  it("settle a release: the buyer's lock becomes volume, the seller earns the amount less the fee", () => {
    const figures = apply([accountDeltasOnFunded(escrow), accountDeltasOnReleased(escrow, 99n, 1n)]);
    expect(figures.get(buyer)).toMatchObject({ releasedAsBuyer: 1, volumeAsBuyer: 100n, lockedAsBuyer: 0n });
    expect(figures.get(seller)).toMatchObject({ releasedAsSeller: 1, volumeAsSeller: 100n, earned: 99n });
  });

  it("settle a refund: the buyer gets the amount back, the seller counts a refunded escrow", () => {
    const figures = apply([accountDeltasOnFunded(escrow), accountDeltasOnRefunded(escrow, 100n)]);
    expect(figures.get(buyer)).toMatchObject({ refundedAsBuyer: 1, refundedToBuyer: 100n, lockedAsBuyer: 0n });
    expect(figures.get(seller)).toMatchObject({ refundedAsSeller: 1, earned: 0n });
  });

  it("settle a ruling: both sides count the dispute and the resolution, and the split adds up to the amount", () => {
    const figures = apply([
      accountDeltasOnFunded(escrow),
      accountDeltasOnDisputed(escrow),
      accountDeltasOnResolved(escrow, 59n, 40n, 1n),
    ]);
    expect(figures.get(buyer)).toMatchObject({
      disputedAsBuyer: 1,
      resolvedAsBuyer: 1,
      volumeAsBuyer: 60n,
      refundedToBuyer: 40n,
      lockedAsBuyer: 0n,
    });
    expect(figures.get(seller)).toMatchObject({ disputedAsSeller: 1, resolvedAsSeller: 1, earned: 59n });
  });

  it("merge both roles into one row when an address trades with itself", () => {
    const self = { ...escrow, seller: escrow.buyer };
    const released = accountDeltasOnReleased(self, 99n, 1n);
    expect(released).toHaveLength(1);
    expect(apply([accountDeltasOnFunded(self), released]).get(buyer)).toMatchObject({
      escrowsAsBuyer: 1,
      escrowsAsSeller: 1,
      releasedAsBuyer: 1,
      releasedAsSeller: 1,
      lockedAsBuyer: 0n,
      earned: 99n,
    });
  });
});

describe("totalsDelta", () => {
  it("keeps locked funds and credits equal to what the contract holds", () => {
    let totals = { ...ZERO_TOTAL_FIGURES };
    for (const delta of [
      totalsDelta.funded(100n),
      totalsDelta.funded(50n),
      totalsDelta.released(100n, 99n, 1n),
      totalsDelta.credited(99n),
      totalsDelta.disputed(),
      totalsDelta.resolved(50n, 24n, 1n),
      totalsDelta.creditWithdrawn(99n),
    ]) {
      totals = addDelta(totals, delta);
    }
    expect(totals).toEqual({
      escrows: 2,
      released: 1,
      refunded: 0,
      resolved: 1,
      disputed: 1,
      fundedVolume: 150n,
      settledVolume: 125n,
      feesCollected: 2n,
      locked: 0n,
      credits: 0n,
    });
    expect(addDelta(ZERO_TOTAL_FIGURES, totalsDelta.refunded(30n))).toMatchObject({ refunded: 1, locked: -30n });
  });
});

describe("agentWalletOf", () => {
  it("reads a 20-byte wallet and treats an empty value as cleared", () => {
    expect(agentWalletOf("0x00000000000000000000000000000000000000AB")).toBe(
      "0x00000000000000000000000000000000000000ab",
    );
    expect(agentWalletOf("0x")).toBeNull();
    expect(agentWalletOf("0x1234")).toBeNull();
  });
});
