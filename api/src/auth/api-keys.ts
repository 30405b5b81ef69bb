import { hash, randomBytes } from "node:crypto";

/** A new API key: 32 random bytes as 64 hex characters. Shown once, never stored. */
export function generateApiKey(): string {
  return randomBytes(32).toString("hex");
}

/** What is stored and looked up: the key's SHA-256, hex. */
export function hashApiKey(key: string): string {
  return hash("sha256", key.toLowerCase(), "hex");
}

/** The part of a key people see in a list of keys: its first 8 hex characters. */
export function keyPrefix(key: string): string {
  return key.slice(0, 8).toLowerCase();
}

/** A new key for an agent: the key (answered once) and the row that stores it (its hash and prefix). */
export function newApiKey(agentId: string) {
  const apiKey = generateApiKey();
  return { apiKey, row: { agentId, keyHash: hashApiKey(apiKey), prefix: keyPrefix(apiKey) } };
}

const BEARER = /^Bearer ([0-9a-fA-F]{64})$/;

/** The API key of an `Authorization: Bearer <key>` header, or undefined if it holds none. */
export function apiKeyFromHeader(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header.trim())?.[1] : undefined;
}
