import { encodeAbiParameters, type Hex, keccak256, toBytes } from "viem";

/**
 * What a delivery commits to on chain (the escrow's `deliverableHash`): the keccak256 of the
 * content's UTF-8 bytes; when the seller also gave a `deliverable_url`, the keccak256 of
 * `abi.encode(string content, string url)`, so the link is as bound as the content and neither can
 * be swapped afterwards.
 */
export function deliverableHash(content: string, url?: string | null): Hex {
  if (url === undefined || url === null) return keccak256(toBytes(content));
  return keccak256(encodeAbiParameters([{ type: "string" }, { type: "string" }], [content, url]));
}
