/**
 * Drives the marketplace contracts on a local node the way agents and the platform do: funding,
 * claiming, delivering, settling, disputes and rulings, signed actions sent by a relayer, credits
 * for a blacklisted payee, ERC-8004 identities and feedback. It keeps each escrow's terms itself,
 * from the receipts, so a test can check the indexer without trusting it.
 */
import { randomUUID } from "node:crypto";
import {
  agentEscrowAbi,
  type Deployment,
  type EscrowTerms,
  escrowActionTypes,
  escrowDomain,
  escrowIdOf,
  escrowRef,
  fundingNonce,
  identityRegistryAbi,
  mockUsdcAbi,
  receiveWithAuthorizationTypes,
  reputationRegistryAbi,
} from "@agent-marketplace/contracts";
import {
  type Abi,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  maxUint256,
  parseEventLogs,
  parseSignature,
  type TransactionReceipt,
  toHex,
} from "viem";
import { mnemonicToAccount, nonceManager, privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";

/** Hardhat's well-known development mnemonic: its node funds these accounts with ETH. */
const HARDHAT_MNEMONIC = "test test test test test test test test test test test junk";

export const DAY = 86_400;
export const USDC = 1_000_000n;

/** Roles of the local deployment (contracts/ignition/modules/LocalMarketplace.ts). */
export const ROLE = { owner: 0, arbiter: 1, operator: 2 } as const;

export interface FundedEscrow {
  /** The API transaction's uuid the escrow was funded for. */
  uuid: string;
  /** The funding ref, escrowRef(uuid). */
  ref: Hex;
  /** The escrow's id, escrowIdOf(buyer, ref). */
  id: Hex;
  terms: EscrowTerms;
}

type EscrowWrite = ContractFunctionName<typeof agentEscrowAbi, "nonpayable">;

export class Market {
  readonly publicClient;
  /** The node's own methods (evm_mine, evm_snapshot, ...), typed by viem. */
  readonly testClient;
  readonly accounts;
  readonly escrow: Address;
  readonly usdc: Address;
  readonly identityRegistry: Address;
  readonly reputationRegistry: Address;
  readonly chainId: number;
  private readonly approved = new Set<number>();
  private nonceSeed = 0n;

  constructor(rpcUrl: string, deployment: Deployment) {
    const transport = http(rpcUrl);
    const chain = { ...hardhat, id: deployment.chainId };
    this.chainId = deployment.chainId;
    this.publicClient = createPublicClient({ chain, transport, pollingInterval: 10 });
    this.testClient = createTestClient({ chain, transport, mode: "hardhat" });
    this.accounts = Array.from({ length: 20 }, (_, addressIndex) => {
      const key = mnemonicToAccount(HARDHAT_MNEMONIC, { addressIndex }).getHdKey().privateKey;
      if (!key) throw new Error("no private key");
      const account = privateKeyToAccount(toHex(key), { nonceManager });
      return { account, wallet: createWalletClient({ account, chain, transport }) };
    });
    this.escrow = deployment.contracts.AgentEscrow.address;
    this.usdc = deployment.contracts.USDC.address;
    if (!deployment.contracts.IdentityRegistry || !deployment.contracts.ReputationRegistry) {
      throw new Error("a local deployment has the ERC-8004 registries");
    }
    this.identityRegistry = deployment.contracts.IdentityRegistry.address;
    this.reputationRegistry = deployment.contracts.ReputationRegistry.address;
  }

  address(index: number): Address {
    return this.at(index).account.address;
  }

  private at(index: number) {
    const entry = this.accounts[index];
    if (!entry) throw new Error(`no account #${index}`);
    return entry;
  }

  /** Sends a transaction from account `from` and waits for its successful receipt. */
  async send<const abi extends Abi, name extends ContractFunctionName<abi, "nonpayable">>(
    from: number,
    address: Address,
    abi: abi,
    functionName: name,
    args: ContractFunctionArgs<abi, "nonpayable", name>,
  ): Promise<TransactionReceipt> {
    const { wallet } = this.at(from);
    // Encoded here and sent as plain data: viem's writeContract types do not narrow for a generic ABI.
    const data = encodeFunctionData({
      abi: abi as Abi,
      functionName: functionName as string,
      args: args as readonly unknown[],
    });
    const hash = await wallet.sendTransaction({ to: address, data });
    const receipt = await this.publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${String(functionName)} reverted: ${hash}`);
    return receipt;
  }

  private escrowCall<name extends EscrowWrite>(
    from: number,
    functionName: name,
    args: ContractFunctionArgs<typeof agentEscrowAbi, "nonpayable", name>,
  ) {
    return this.send(from, this.escrow, agentEscrowAbi, functionName, args);
  }

  /** After `evm_revert`: forget the nonces and approvals of the abandoned chain. */
  forgetPendingState(): void {
    for (const { account } of this.accounts) nonceManager.reset({ address: account.address, chainId: this.chainId });
    this.approved.clear();
  }

  /** Block timestamp of the latest block. */
  async now(): Promise<number> {
    return Number((await this.publicClient.getBlock()).timestamp);
  }

  /** Moves the node's clock forward and mines a block. */
  async increaseTime(seconds: number): Promise<void> {
    await this.testClient.increaseTime({ seconds });
    await this.mine();
  }

  /**
   * Mines `blocks` empty blocks, one `evm_mine` each: `hardhat_mine` creates many blocks lazily,
   * and their hashes as first reported do not always match their children's parent hashes.
   */
  async mine(blocks = 1): Promise<void> {
    for (let i = 0; i < blocks; i++) await this.testClient.mine({ blocks: 1 });
  }

  private async approveOnce(buyer: number) {
    if (this.approved.has(buyer)) return;
    await this.send(buyer, this.usdc, mockUsdcAbi, "approve", [this.escrow, maxUint256]);
    this.approved.add(buyer);
  }

  /**
   * `buyer` funds a new escrow for `seller` (the zero address for a bounty), for the transaction
   * `uuid` (a fresh one by default; another buyer may have funded the same one).
   */
  async fund(
    buyer: number,
    seller: Address,
    amount: bigint,
    options: { deadlineIn?: number; disputeWindow?: number; uuid?: string } = {},
  ): Promise<FundedEscrow & { receipt: TransactionReceipt }> {
    await this.approveOnce(buyer);
    const uuid = options.uuid ?? randomUUID();
    const ref = escrowRef(uuid);
    const id = escrowIdOf(this.address(buyer), ref);
    const deadline = (await this.now()) + (options.deadlineIn ?? 7 * DAY);
    const disputeWindow = options.disputeWindow ?? DAY;
    const receipt = await this.escrowCall(buyer, "fund", [ref, seller, amount, deadline, disputeWindow]);
    return { uuid, ref, id, terms: this.termsFromReceipt(id, receipt), receipt };
  }

  /** `buyer` signs an EIP-3009 authorization and `relayer` funds with it (the buyer sends nothing). */
  async fundWithAuthorization(
    buyer: number,
    relayer: number,
    seller: Address,
    amount: bigint,
  ): Promise<FundedEscrow & { receipt: TransactionReceipt }> {
    const uuid = randomUUID();
    const ref = escrowRef(uuid);
    // The authorization's nonce is over the derived id, which binds the buyer and the ref.
    const id = escrowIdOf(this.address(buyer), ref);
    const deadline = (await this.now()) + 7 * DAY;
    const disputeWindow = DAY;
    const validBefore = BigInt(deadline);
    const signature = await this.at(buyer).account.signTypedData({
      domain: { name: "USD Coin", version: "2", chainId: this.chainId, verifyingContract: this.usdc },
      types: receiveWithAuthorizationTypes,
      primaryType: "ReceiveWithAuthorization",
      message: {
        from: this.address(buyer),
        to: this.escrow,
        value: amount,
        validAfter: 0n,
        validBefore,
        nonce: fundingNonce(id, seller, deadline, disputeWindow),
      },
    });
    const { v, r, s } = parseSignature(signature);
    const receipt = await this.escrowCall(relayer, "fundWithAuthorization", [
      ref,
      this.address(buyer),
      seller,
      amount,
      deadline,
      disputeWindow,
      { validAfter: 0n, validBefore, v: Number(v), r, s },
    ]);
    return { uuid, ref, id, terms: this.termsFromReceipt(id, receipt), receipt };
  }

  /** The operator (or the buyer) assigns a seller; returns the new terms. */
  async assignSeller(from: number, escrow: FundedEscrow, seller: Address, deadlineIn = 7 * DAY): Promise<EscrowTerms> {
    const deadline = (await this.now()) + deadlineIn;
    await this.escrowCall(from, "assignSeller", [escrow.id, escrow.terms, seller, deadline]);
    escrow.terms = { ...escrow.terms, seller, deadline };
    return escrow.terms;
  }

  async deliver(seller: number, escrow: FundedEscrow, deliverable = "work"): Promise<TransactionReceipt> {
    const receipt = await this.escrowCall(seller, "deliver", [escrow.id, escrow.terms, keccak256(toHex(deliverable))]);
    escrow.terms = { ...escrow.terms, deliveredAt: await this.blockTime(receipt) };
    return receipt;
  }

  release(from: number, escrow: FundedEscrow): Promise<TransactionReceipt> {
    return this.escrowCall(from, "release", [escrow.id, escrow.terms]);
  }

  refund(from: number, escrow: FundedEscrow): Promise<TransactionReceipt> {
    return this.escrowCall(from, "refund", [escrow.id, escrow.terms]);
  }

  dispute(from: number, escrow: FundedEscrow, reason = "not as described"): Promise<TransactionReceipt> {
    return this.escrowCall(from, "dispute", [escrow.id, escrow.terms, keccak256(toHex(reason))]);
  }

  resolve(escrow: FundedEscrow, sellerBps: number): Promise<TransactionReceipt> {
    return this.escrowCall(ROLE.arbiter, "resolve", [escrow.id, escrow.terms, sellerBps]);
  }

  withdrawCredit(from: number, account: Address): Promise<TransactionReceipt> {
    return this.escrowCall(from, "withdrawCredit", [account]);
  }

  /** The seller signs the delivery; `relayer` submits it. */
  async deliverWithSig(seller: number, relayer: number, escrow: FundedEscrow, deliverable = "signed work") {
    const deliverableHash = keccak256(toHex(deliverable));
    const { nonce, sigDeadline } = await this.signatureParams();
    const signature = await this.at(seller).account.signTypedData({
      domain: escrowDomain(this.chainId, this.escrow),
      types: escrowActionTypes,
      primaryType: "Deliver",
      message: { escrowId: escrow.id, deliverableHash, nonce, sigDeadline },
    });
    const receipt = await this.escrowCall(relayer, "deliverWithSig", [
      escrow.id,
      escrow.terms,
      deliverableHash,
      this.address(seller),
      nonce,
      sigDeadline,
      signature,
    ]);
    escrow.terms = { ...escrow.terms, deliveredAt: await this.blockTime(receipt) };
    return receipt;
  }

  /** The buyer signs the release; `relayer` submits it. */
  async releaseWithSig(buyer: number, relayer: number, escrow: FundedEscrow) {
    const { nonce, sigDeadline } = await this.signatureParams();
    const signature = await this.at(buyer).account.signTypedData({
      domain: escrowDomain(this.chainId, this.escrow),
      types: escrowActionTypes,
      primaryType: "Release",
      message: { escrowId: escrow.id, nonce, sigDeadline },
    });
    return this.escrowCall(relayer, "releaseWithSig", [
      escrow.id,
      escrow.terms,
      this.address(buyer),
      nonce,
      sigDeadline,
      signature,
    ]);
  }

  /** USDC's blacklister (the token's owner, account #0) blocks or unblocks `account`. */
  async blacklist(account: Address, blocked: boolean): Promise<void> {
    await this.send(ROLE.owner, this.usdc, mockUsdcAbi, blocked ? "blacklist" : "unBlacklist", [account]);
  }

  /** `owner` registers an ERC-8004 identity; returns its agent id. */
  async registerAgent(owner: number, agentURI: string): Promise<bigint> {
    const receipt = await this.send(owner, this.identityRegistry, identityRegistryAbi, "register", [agentURI]);
    const [registered] = parseEventLogs({ abi: identityRegistryAbi, logs: receipt.logs, eventName: "Registered" });
    if (!registered) throw new Error("no Registered event");
    return registered.args.agentId;
  }

  async giveFeedback(client: number, agentId: bigint, value: bigint, tag: string): Promise<TransactionReceipt> {
    return this.send(client, this.reputationRegistry, reputationRegistryAbi, "giveFeedback", [
      agentId,
      value,
      0,
      tag,
      "escrow",
      "https://example.com/api",
      "ipfs://feedback",
      keccak256(toHex(`${agentId}-${tag}`)),
    ]);
  }

  private async blockTime(receipt: TransactionReceipt): Promise<number> {
    return Number((await this.publicClient.getBlock({ blockNumber: receipt.blockNumber })).timestamp);
  }

  private async signatureParams() {
    this.nonceSeed += 1n;
    return { nonce: this.nonceSeed, sigDeadline: BigInt((await this.now()) + DAY) };
  }

  private termsFromReceipt(id: Hex, receipt: TransactionReceipt): EscrowTerms {
    const funded = parseEventLogs({ abi: agentEscrowAbi, logs: receipt.logs, eventName: "Funded" }).find(
      (log) => log.args.escrowId === id,
    );
    if (!funded) throw new Error(`no Funded event for ${id}`);
    const { buyer, seller, amount, deadline, disputeWindow, feeBps } = funded.args;
    return { buyer, seller, amount, deadline, disputeWindow, deliveredAt: 0, feeBps };
  }
}
