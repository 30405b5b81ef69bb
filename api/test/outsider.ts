import { agentEscrowAbi, type EscrowTerms, mockUsdcAbi } from "@agent-marketplace/contracts";
import type { WalletSigner } from "@agent-marketplace/sdk";
import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { inject } from "vitest";

/*
 * Someone on the suite's chain who holds its own key and sends what it likes to the escrow
 * contract: an external buyer, a squatter, an attacker's second address. A fresh key each time
 * (ETH from the node, USDC from MockUSDC's open faucet), so no test file shares its nonces.
 */

export interface Outsider {
  address: Address;
  /** Its wallet, as the SDK's wallet helpers (`fundWithWallet`, ...) take it. */
  signer: WalletSigner;
  /** Sends `data` to `to` and waits for the receipt (reverted or not: the caller asserts). */
  send(to: Address, data: Hex): Promise<TransactionReceipt>;
  /** Sends one of the API's instruction calls as it is. */
  sendCall(call: { to: string; data: string }): Promise<TransactionReceipt>;
  /** Calls the escrow contract. */
  escrow(functionName: string, args: readonly unknown[]): Promise<TransactionReceipt>;
}

function chainOf() {
  const stack = inject("stack");
  const chain = { ...hardhat, id: stack.deployment.chainId };
  const transport = http(stack.rpcUrl);
  return { stack, chain, transport };
}

/** A fresh account with 1 ETH and `usdc` wei of USDC. */
export async function outsider(usdc = 0n): Promise<Outsider> {
  const { stack, chain, transport } = chainOf();
  const account = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ account, chain, transport });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 });
  await createTestClient({ chain, transport, mode: "hardhat" }).setBalance({
    address: account.address,
    value: parseEther("1"),
  });
  const escrowAddress = stack.deployment.contracts.AgentEscrow.address;
  const usdcAddress = stack.deployment.contracts.USDC.address;

  async function send(to: Address, data: Hex): Promise<TransactionReceipt> {
    // A fixed gas limit: a call meant to revert is still mined, as an attacker's would be.
    const hash = await wallet.sendTransaction({ to, data, gas: 500_000n });
    return publicClient.waitForTransactionReceipt({ hash });
  }
  const self: Outsider = {
    address: account.address,
    signer: { wallet, publicClient } as unknown as WalletSigner,
    send,
    sendCall: (call) => send(call.to as Address, call.data as Hex),
    escrow: (functionName, args) =>
      send(escrowAddress, encodeFunctionData({ abi: agentEscrowAbi, functionName, args } as never)),
  };
  if (usdc > 0n) {
    await send(
      usdcAddress,
      encodeFunctionData({ abi: mockUsdcAbi, functionName: "mint", args: [account.address, usdc] }),
    );
  }
  return self;
}

/** The escrow id and terms of the Funded event in `receipt`. */
export function fundedIn(receipt: TransactionReceipt): { escrowId: Hex; terms: EscrowTerms } {
  const [funded] = parseEventLogs({ abi: agentEscrowAbi, logs: receipt.logs, eventName: "Funded" });
  if (!funded) throw new Error(`no Funded event in ${receipt.transactionHash}`);
  const { escrowId, buyer, seller, amount, deadline, disputeWindow, feeBps } = funded.args;
  return {
    escrowId,
    terms: { buyer, seller, amount, deadline: Number(deadline), disputeWindow, deliveredAt: 0, feeBps },
  };
}
