/**
 * Measures the gas of every state-changing AgentEscrow function on Hardhat's in-process chain, as a user pays it:
 * receipt `gasUsed`, including the 21,000 base cost, with every token holder (buyer, seller, fee
 * recipient, the escrow itself) already holding a balance, as on a live chain. Measured once on
 * MockUSDC and once on Circle's USDC (FiatToken v2.2 behind its proxy, as on Base), whose calls
 * cost more: the proxy's delegatecall, the pause and blacklist checks.
 *
 * Used by `pnpm bench` (prints the table, `UPDATE_GAS_SNAPSHOT=1` rewrites the snapshot) and by the
 * gas test (compares against the snapshot and the targets).
 */
import { fileURLToPath } from "node:url";
import { network } from "hardhat";
import type { Address, Hex } from "viem";
import { getContract, keccak256, parseSignature, stringToHex, zeroAddress } from "viem";
import { deployCircleUsdc, mintCircleUsdc } from "../src/circle-usdc.ts";
import {
  type EscrowTerms,
  escrowActionTypes,
  escrowDomain,
  escrowIdOf,
  escrowRef,
  fundingNonce,
  receiveWithAuthorizationTypes,
  transferWithAuthorizationTypes,
} from "../src/escrow.ts";
import { fiatTokenAbi } from "../src/generated/abis.ts";

/** The tokens the escrow's gas is measured on. */
export const GAS_TOKENS = ["MockUSDC", "Circle USDC"] as const;
export type GasToken = (typeof GAS_TOKENS)[number];

/** Issue targets per token, in gas per transaction. */
export const GAS_TARGETS: Record<GasToken, Record<string, number>> = {
  MockUSDC: {
    fund: 85_000,
    fundWithAuthorization: 115_000,
    deliver: 35_000,
    release: 70_000,
    "fund + deliver + release": 185_000,
    // An x402 payment costs about what an EIP-3009 funding does (issue 48), and the operator's
    // release for a keyless buyer about what the buyer's own does.
    fundWithTransfer: 115_000,
    "release (operator, x402)": 70_000,
    "x402: fundWithTransfer + deliver + release (operator)": 215_000,
  },
  "Circle USDC": {
    // Measured outside the project on Circle's USDC (issue 47).
    "fund + deliver + release": 190_138,
    fundWithTransfer: 130_000,
    "x402: fundWithTransfer + deliver + release (operator)": 240_000,
  },
};

/** Gas per transaction. */
export type GasTable = Record<string, number>;
/** Gas per transaction, per token: the shape of the snapshot. */
export type GasReport = Record<GasToken, GasTable>;

/** The committed snapshot that the gas test compares against. */
export const GAS_SNAPSHOT_FILE = fileURLToPath(new URL("../gas-snapshot.json", import.meta.url));

const DAY = 86_400;
/**
 * The chain's clock starts here, and every signed deadline derives from it, so signatures (and the
 * zero bytes of their calldata) are the same on every run. Blocks still take a few seconds of wall
 * time, hence the tolerance below.
 */
const START = 2_004_318_071;
/** Gas may differ from the snapshot by this much between runs (a zero byte in a timestamp: 12 gas). */
export const GAS_SNAPSHOT_TOLERANCE = 100;
const USDC = 1_000_000n;
const AMOUNT = 25n * USDC;
const FEE_BPS = 100;
/** Delivery deadline, and signature validity, of every escrow measured. */
const DEADLINE = START + 30 * DAY;

/** Every transaction, on each token. */
export async function measureGasReport(): Promise<GasReport> {
  return { MockUSDC: await measureGas("MockUSDC"), "Circle USDC": await measureGas("Circle USDC") };
}

/** Every transaction on `token`, on a chain of its own. */
export async function measureGas(token: GasToken): Promise<GasTable> {
  const connection = await network.create();
  const { viem, networkHelpers } = connection;
  const publicClient = await viem.getPublicClient();
  const [owner, buyer, seller, feeRecipient, arbiter, operator, relayer, newOwner, proxyAdmin] =
    await viem.getWalletClients();
  if (!owner || !buyer || !seller || !feeRecipient || !arbiter || !operator || !relayer || !newOwner || !proxyAdmin) {
    throw new Error("need 9 accounts");
  }
  const holders = [buyer, seller, feeRecipient, relayer].map((wallet) => wallet.account.address);
  const balance = 1_000_000n * USDC;
  let usdcAddress: Address;
  if (token === "MockUSDC") {
    const mock = await viem.deployContract("MockUSDC", [owner.account.address]);
    for (const holder of holders) await mock.write.mint([holder, balance]);
    usdcAddress = mock.address;
  } else {
    // The owner holds every role of the token (master minter, pauser, blacklister).
    ({ address: usdcAddress } = await deployCircleUsdc({
      wallet: owner,
      publicClient,
      admin: proxyAdmin.account.address,
      owner: owner.account.address,
    }));
    await mintCircleUsdc({ wallet: owner, publicClient, token: usdcAddress, to: holders, amount: balance });
  }
  const usdcAs = (wallet: typeof owner) =>
    getContract({ address: usdcAddress, abi: fiatTokenAbi, client: { public: publicClient, wallet } });
  const usdc = usdcAs(owner);
  const escrow = await viem.deployContract("AgentEscrow", [
    usdc.address,
    1_000,
    FEE_BPS,
    feeRecipient.account.address,
    arbiter.account.address,
    operator.account.address,
    owner.account.address,
  ]);
  const chainId = await publicClient.getChainId();
  await networkHelpers.time.increaseTo(START);
  const as = (client: typeof buyer) => ({ client: { wallet: client } }) as const;
  const escrowAs = async (client: typeof buyer) => viem.getContractAt("AgentEscrow", escrow.address, as(client));
  const byBuyer = await escrowAs(buyer);
  const bySeller = await escrowAs(seller);
  const byRelayer = await escrowAs(relayer);
  const byArbiter = await escrowAs(arbiter);
  const byOperator = await escrowAs(operator);

  // Each funding is approved exactly, as the API's instructions have buyers do (approve the amount,
  // then fund): the funding spends the allowance to zero, and the storage refund is the buyer's.
  const approveExactly = async () =>
    publicClient.waitForTransactionReceipt({ hash: await usdcAs(buyer).write.approve([escrow.address, AMOUNT]) });

  const table: GasTable = {};
  const deliveredAt = async (receipt: { blockNumber: bigint }) =>
    Number((await publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp);
  const gasOf = async (label: string, hash: Promise<Hex>) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await hash });
    if (receipt.status !== "success") throw new Error(`${label} reverted`);
    table[label] ??= Number(receipt.gasUsed);
    return receipt;
  };

  let counter = 0;
  const newRef = () => escrowRef(`00000000-0000-4000-8000-${(++counter).toString(16).padStart(12, "0")}`);

  const fund = async (label: string, sellerAddress: Address = seller.account.address) => {
    const ref = newRef();
    const id = escrowIdOf(buyer.account.address, ref);
    await approveExactly();
    await gasOf(label, byBuyer.write.fund([ref, sellerAddress, AMOUNT, DEADLINE, DAY]));
    const terms: EscrowTerms = {
      buyer: buyer.account.address,
      seller: sellerAddress,
      amount: AMOUNT,
      deadline: DEADLINE,
      disputeWindow: DAY,
      deliveredAt: 0,
      feeBps: FEE_BPS,
    };
    return { id, terms };
  };
  const deliver = async (label: string, id: Hex, terms: EscrowTerms) => {
    const receipt = await gasOf(label, bySeller.write.deliver([id, terms, keccak256(stringToHex("work"))]));
    return { ...terms, deliveredAt: await deliveredAt(receipt) };
  };

  // Warm-up: the escrow holds a balance from an open escrow, as it does on a live chain.
  await fund("warm-up");
  delete table["warm-up"];

  // FIXED purchase: fund, deliver, release by the buyer.
  {
    const { id, terms } = await fund("fund");
    const delivered = await deliver("deliver", id, terms);
    await gasOf("release", byBuyer.write.release([id, delivered]));
  }

  // Gasless funding: the relayer submits the buyer's EIP-3009 authorization.
  {
    const ref = newRef();
    const id = escrowIdOf(buyer.account.address, ref);
    const signature = await buyer.signTypedData({
      domain: { name: "USD Coin", version: "2", chainId, verifyingContract: usdc.address },
      types: receiveWithAuthorizationTypes,
      primaryType: "ReceiveWithAuthorization",
      message: {
        from: buyer.account.address,
        to: escrow.address,
        value: AMOUNT,
        validAfter: 0n,
        validBefore: BigInt(DEADLINE),
        nonce: fundingNonce(id, seller.account.address, DEADLINE, DAY),
      },
    });
    const { v, r, s } = parseSignature(signature);
    await gasOf(
      "fundWithAuthorization",
      byRelayer.write.fundWithAuthorization([
        ref,
        buyer.account.address,
        seller.account.address,
        AMOUNT,
        DEADLINE,
        DAY,
        { validAfter: 0n, validBefore: BigInt(DEADLINE), v: Number(v), r, s },
      ]),
    );
  }

  // x402 payment: the buyer signs a stock x402 TransferWithAuthorization to the escrow (validAfter
  // 600 s back; a fixed nonce standing for the client's random one, so the calldata is the same on
  // every run); the operator settles it, the seller delivers, and the operator releases for the
  // keyless buyer.
  const x402Payment = async (label: string) => {
    const nonce = keccak256(stringToHex(`x402 payment ${label}`));
    const authorization = {
      from: buyer.account.address,
      value: AMOUNT,
      validAfter: BigInt(START - 600),
      validBefore: BigInt(DEADLINE),
      nonce,
    };
    const signature = await buyer.signTypedData({
      domain: { name: "USD Coin", version: "2", chainId, verifyingContract: usdc.address },
      types: transferWithAuthorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: { ...authorization, to: escrow.address },
    });
    const terms: EscrowTerms = {
      buyer: buyer.account.address,
      seller: seller.account.address,
      amount: AMOUNT,
      deadline: DEADLINE,
      disputeWindow: DAY,
      deliveredAt: 0,
      feeBps: FEE_BPS,
    };
    return { id: escrowIdOf(buyer.account.address, nonce), terms, authorization: { ...authorization, signature } };
  };
  {
    const { id, terms, authorization } = await x402Payment("settled");
    await gasOf(
      "fundWithTransfer",
      byOperator.write.fundWithTransfer([seller.account.address, DEADLINE, DAY, authorization]),
    );
    const delivered = await deliver("deliver (x402)", id, terms);
    await gasOf("release (operator, x402)", byOperator.write.release([id, delivered]));
  }
  // The same payment submitted to the token directly first (a front-runner): the operator's
  // settlement then checks the signature itself and moves no tokens.
  {
    const { authorization } = await x402Payment("front-run");
    const { from, value, validAfter, validBefore, nonce, signature } = authorization;
    await publicClient.waitForTransactionReceipt({
      hash: await usdcAs(relayer).write.transferWithAuthorization([
        from,
        escrow.address,
        value,
        validAfter,
        validBefore,
        nonce,
        signature,
      ]),
    });
    await gasOf(
      "fundWithTransfer (front-run: verified)",
      byOperator.write.fundWithTransfer([seller.account.address, DEADLINE, DAY, authorization]),
    );
  }

  // Bounty: fund without a seller, the operator assigns the claimant, auto-release after the window.
  {
    const { id, terms } = await fund("fund (bounty)", zeroAddress);
    await gasOf("assignSeller", byOperator.write.assignSeller([id, terms, seller.account.address, DEADLINE]));
    const assigned = { ...terms, seller: seller.account.address };
    const delivered = await deliver("deliver (bounty)", id, assigned);
    await networkHelpers.time.increase(DAY);
    await gasOf("release (auto, after window)", byRelayer.write.release([id, delivered]));
  }

  // Signed forms, submitted by the relayer.
  const domain = escrowDomain(chainId, escrow.address);
  const sigDeadline = BigInt(DEADLINE);
  {
    const { id, terms } = await fund("fund");
    const deliverableHash = keccak256(stringToHex("signed work"));
    const deliverSig = await seller.signTypedData({
      domain,
      types: escrowActionTypes,
      primaryType: "Deliver",
      message: { escrowId: id, deliverableHash, nonce: 0n, sigDeadline },
    });
    const delivered = await gasOf(
      "deliverWithSig",
      byRelayer.write.deliverWithSig([id, terms, deliverableHash, seller.account.address, 0n, sigDeadline, deliverSig]),
    );
    const releaseSig = await buyer.signTypedData({
      domain,
      types: escrowActionTypes,
      primaryType: "Release",
      message: { escrowId: id, nonce: 0n, sigDeadline },
    });
    await gasOf(
      "releaseWithSig",
      byRelayer.write.releaseWithSig([
        id,
        { ...terms, deliveredAt: await deliveredAt(delivered) },
        buyer.account.address,
        0n,
        sigDeadline,
        releaseSig,
      ]),
    );
  }

  // Refund before delivery, and a dispute settled 70/30.
  {
    const { id, terms } = await fund("fund");
    await gasOf("refund", byBuyer.write.refund([id, terms]));
  }
  {
    const { id, terms } = await fund("fund");
    await gasOf("dispute", byBuyer.write.dispute([id, terms, keccak256(stringToHex("late"))]));
    await gasOf("resolve (70% to seller)", byArbiter.write.resolve([id, terms, 7_000]));
  }

  // The other signed forms. Each signature uses a nonce of a word its signer has not used yet, as
  // a first signature does (a later nonce of the same word costs about 17,000 gas less).
  {
    const { id, terms } = await fund("fund (bounty)", zeroAddress);
    const nonce = 256n;
    const signature = await buyer.signTypedData({
      domain,
      types: escrowActionTypes,
      primaryType: "AssignSeller",
      message: { escrowId: id, seller: seller.account.address, deadline: DEADLINE, nonce, sigDeadline },
    });
    await gasOf(
      "assignSellerWithSig",
      byRelayer.write.assignSellerWithSig([
        id,
        terms,
        seller.account.address,
        DEADLINE,
        buyer.account.address,
        nonce,
        sigDeadline,
        signature,
      ]),
    );
  }
  {
    const { id, terms } = await fund("fund");
    const nonce = 512n;
    const signature = await seller.signTypedData({
      domain,
      types: escrowActionTypes,
      primaryType: "Refund",
      message: { escrowId: id, nonce, sigDeadline },
    });
    await gasOf(
      "refundWithSig",
      byRelayer.write.refundWithSig([id, terms, seller.account.address, nonce, sigDeadline, signature]),
    );
  }
  {
    const { id, terms } = await fund("fund");
    const nonce = 768n;
    const reasonHash = keccak256(stringToHex("not as described"));
    const signature = await buyer.signTypedData({
      domain,
      types: escrowActionTypes,
      primaryType: "Dispute",
      message: { escrowId: id, reasonHash, nonce, sigDeadline },
    });
    await gasOf(
      "disputeWithSig",
      byRelayer.write.disputeWithSig([id, terms, reasonHash, buyer.account.address, nonce, sigDeadline, signature]),
    );
  }
  await gasOf("invalidateNonces", byBuyer.write.invalidateNonces([9n, 0b1011n]));

  // A payee the token refuses (blacklisted) is credited instead; it withdraws once it is lifted.
  {
    const { id, terms } = await fund("fund");
    const delivered = await deliver("deliver", id, terms);
    await usdc.write.blacklist([seller.account.address]);
    await gasOf("release (seller blacklisted: credited)", byBuyer.write.release([id, delivered]));
    await usdc.write.unBlacklist([seller.account.address]);
    await gasOf("withdrawCredit", bySeller.write.withdrawCredit([seller.account.address]));
  }

  // The owner's settings and the two-step ownership transfer, last: they change later escrows.
  await gasOf("setFeeBps", escrow.write.setFeeBps([150]));
  await gasOf("setFeeRecipient", escrow.write.setFeeRecipient([relayer.account.address]));
  await gasOf("setArbiter", escrow.write.setArbiter([operator.account.address]));
  await gasOf("setOperator", escrow.write.setOperator([arbiter.account.address]));
  await gasOf("transferOwnership", escrow.write.transferOwnership([newOwner.account.address]));
  const byNewOwner = await escrowAs(newOwner);
  await gasOf("acceptOwnership", byNewOwner.write.acceptOwnership());

  table["fund + deliver + release"] = (table.fund ?? 0) + (table.deliver ?? 0) + (table.release ?? 0);
  table["x402: fundWithTransfer + deliver + release (operator)"] =
    (table.fundWithTransfer ?? 0) + (table["deliver (x402)"] ?? 0) + (table["release (operator, x402)"] ?? 0);
  await connection.close();
  return table;
}
