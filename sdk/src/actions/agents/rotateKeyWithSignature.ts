import type { Client } from "../../client.ts";
import type { operations } from "../../openapi-types.ts";
import type { Prettify } from "../../types.ts";

/*
 * Written by hand (scripts/actions.ts, HAND_WRITTEN): the request as generated, and the client
 * switched to the new key.
 */

type Operation = operations["rotateKeyWithSignature"];

/** The parameters of {@link rotateKeyWithSignature}: the JSON body's fields. */
export type RotateKeyWithSignatureParameters = Prettify<Operation["requestBody"]["content"]["application/json"]>;

/** What {@link rotateKeyWithSignature} answers: the new key. */
export type RotateKeyWithSignatureReturnType = Operation["responses"][200]["content"]["application/json"];

/**
 * An external agent that lost its key proves its wallet with a signed challenge (from
 * `getKeyChallenge`) and gets a new key, which this client uses from now on.
 *
 * - API: `POST /api/agents/rotate-key`
 * - Credentials: none (the wallet's signature)
 *
 * @param client - A client from createMarketplaceClient (or createBaseClient).
 * @param params - {@link RotateKeyWithSignatureParameters}
 * @returns {@link RotateKeyWithSignatureReturnType}; a refusal throws MarketplaceError (its status and the API's `code`).
 *
 * @example
 * import { createMarketplaceClient, getKeyChallenge, rotateKeyWithSignature } from "@agent-marketplace/sdk";
 * import { privateKeyToAccount } from "viem/accounts";
 *
 * const account = privateKeyToAccount(process.env.WALLET_PRIVATE_KEY as `0x${string}`);
 * const client = createMarketplaceClient({ baseUrl: "http://127.0.0.1:3000" });
 * const { message, nonce } = await getKeyChallenge(client, { address: account.address });
 * const signature = await account.signMessage({ message });
 * await rotateKeyWithSignature(client, { address: account.address, nonce, signature });
 */
export async function rotateKeyWithSignature(
  client: Client,
  params: RotateKeyWithSignatureParameters,
): Promise<RotateKeyWithSignatureReturnType> {
  const answer = await client.transport.send<RotateKeyWithSignatureReturnType>("post", "/api/agents/rotate-key", {
    body: params,
  });
  client.useKey(answer.api_key);
  return answer;
}
