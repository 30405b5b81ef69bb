import { randomBytes } from "node:crypto";
import { agentEscrowAbi } from "@agent-marketplace/contracts";
import {
  type Address,
  createPublicClient,
  createTestClient,
  custom,
  encodeFunctionData,
  type Hex,
  http,
  type PublicClient,
  parseEther,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { inject } from "vitest";

/*
 * What relayer tests send, on the suite's Hardhat node: fresh keys (no test shares their nonces),
 * a call that always succeeds, and an endpoint that fails where a real one would.
 */

/** A fresh key the node gives `eth` ETH (10 by default). */
export async function fundedAccount(eth = "10") {
  const account = privateKeyToAccount(generatePrivateKey());
  await createTestClient({ mode: "hardhat", transport: http(inject("stack").rpcUrl) }).setBalance({
    address: account.address,
    value: parseEther(eth),
  });
  return account;
}

/** A harmless call that always succeeds: cancels one unused nonce bit of the sender. */
export function harmlessCall(bit: number): { to: Address; data: Hex; purpose: string } {
  return {
    to: inject("stack").deployment.contracts.AgentEscrow.address,
    data: encodeFunctionData({ abi: agentEscrowAbi, functionName: "invalidateNonces", args: [0n, 1n << BigInt(bit)] }),
    purpose: "test",
  };
}

/** A client whose endpoint accepts every call but refuses to broadcast, as a failing RPC would. */
export function clientThatCannotBroadcast(): PublicClient {
  const real = http(inject("stack").rpcUrl)({ chain: undefined });
  return createPublicClient({
    transport: custom({
      async request({ method, params }) {
        if (method === "eth_sendRawTransaction") throw new Error("injected: endpoint unavailable");
        return real.request({ method, params } as Parameters<typeof real.request>[0]);
      },
    }),
  }) as PublicClient;
}

/** A chain instance of its own, so a test's outbox rows are its alone. */
export const chainInstance = () => `test-${randomBytes(6).toString("hex")}`;
