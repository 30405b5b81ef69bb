/**
 * What the rehearsal expects every wallet to hold, written down as the flows move money, and checked
 * against the chain: each tracked wallet, the escrow contract and the fee recipient hold exactly the
 * expected USDC, and together exactly what was minted (nothing lost, nothing made).
 */
import { type Address, erc20Abi, getAddress } from "viem";
import type { BaseChain } from "./base-chain.ts";

const BPS = 10_000n;

export class Ledger {
  private readonly expected = new Map<Address, bigint>();
  private readonly names = new Map<Address, string>();
  private minted = 0n;

  private readonly base: BaseChain;
  private readonly feeBps: bigint;
  private readonly mintTo: (to: Address, amount: bigint) => Promise<void>;

  constructor(base: BaseChain, feeBps: bigint, mintTo: (to: Address, amount: bigint) => Promise<void>) {
    this.base = base;
    this.feeBps = feeBps;
    this.mintTo = mintTo;
    this.track("escrow contract", base.deployment.contracts.AgentEscrow.address);
    this.track("fee recipient", base.keys.feeRecipient);
  }

  track(name: string, address: Address) {
    const key = getAddress(address);
    this.names.set(key, name);
    if (!this.expected.has(key)) this.expected.set(key, 0n);
  }

  private add(address: Address, amount: bigint) {
    const key = getAddress(address);
    if (!this.expected.has(key)) throw new Error(`untracked wallet ${address}`);
    this.expected.set(key, (this.expected.get(key) ?? 0n) + amount);
  }

  async mint(name: string, to: Address, amount: bigint) {
    this.track(name, to);
    await this.mintTo(to, amount);
    this.minted += amount;
    this.add(to, amount);
  }

  /** A buyer's payment into escrow. */
  pay(buyer: Address, amount: bigint) {
    this.add(buyer, -amount);
    this.add(this.base.deployment.contracts.AgentEscrow.address, amount);
  }

  /**
   * An escrow of `amount` settled with `sellerBps` to the seller (less the fee on that share, as the
   * contract computes it: floors), the rest back to `buyer`.
   */
  settle(seller: Address, amount: bigint, sellerBps: bigint, buyer?: Address) {
    const share = (amount * sellerBps) / BPS;
    const fee = (share * this.feeBps) / BPS;
    this.add(this.base.deployment.contracts.AgentEscrow.address, -amount);
    this.add(seller, share - fee);
    this.add(this.base.keys.feeRecipient, fee);
    if (share < amount) {
      if (!buyer) throw new Error("a split needs the buyer");
      this.add(buyer, amount - share);
    }
  }

  transfer(from: Address, to: Address, amount: bigint) {
    this.track(this.names.get(getAddress(to)) ?? "withdrawal destination", to);
    this.add(from, -amount);
    this.add(to, amount);
  }

  /** Every tracked wallet's balance on chain against the expected one; the totals against the mint. */
  async check(): Promise<Array<{ wallet: string; expected: string; onChain: string }>> {
    const rows: Array<{ wallet: string; expected: string; onChain: string }> = [];
    const problems: string[] = [];
    let total = 0n;
    for (const [address, expected] of this.expected) {
      const onChain = await usdcOf(this.base, address);
      total += onChain;
      const name = this.names.get(address) ?? address;
      rows.push({ wallet: name, expected: usdc(expected), onChain: usdc(onChain) });
      if (onChain !== expected) problems.push(`${name} holds ${usdc(onChain)} USDC, expected ${usdc(expected)}`);
    }
    if (total !== this.minted) problems.push(`tracked wallets hold ${usdc(total)} USDC of ${usdc(this.minted)} minted`);
    if (problems.length > 0) throw new Error(`USDC is not where it should be:\n  ${problems.join("\n  ")}`);
    return rows;
  }
}

/** What `address` holds of the chain's USDC. */
export function usdcOf(base: BaseChain, address: Address): Promise<bigint> {
  return base.publicClient.readContract({
    address: base.usdc,
    abi: erc20Abi,
    functionName: "balanceOf",
    args: [address],
  });
}

function usdc(wei: bigint): string {
  const sign = wei < 0n ? "-" : "";
  const abs = wei < 0n ? -wei : wei;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, "0")}`;
}
