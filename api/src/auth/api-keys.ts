import { createHash, randomBytes } from "node:crypto";

/** A new API key: 32 random bytes as 64 hex characters. Shown once, never stored. */
export function generateApiKey(): string {
  return randomBytes(32).toString("hex");
}

/** What is stored and looked up: the key's SHA-256, hex. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key.toLowerCase()).digest("hex");
}

const BEARER = /^Bearer ([0-9a-fA-F]{64})$/;

/** The API key of an `Authorization: Bearer <key>` header, or undefined if it holds none. */
export function apiKeyFromHeader(header: string | undefined): string | undefined {
  return header ? BEARER.exec(header.trim())?.[1] : undefined;
}
