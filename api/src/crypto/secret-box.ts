import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/*
 * Secrets the service must read back (custodial keys, webhook signing keys), encrypted with
 * AES-256-GCM under the master key. `context` is bound as associated data: a ciphertext copied to
 * another row (another wallet, another agent) does not decrypt. Stored as `v1:<iv>:<tag>:<ciphertext>`
 * (base64 parts).
 */
const VERSION = "v1";

export function sealSecret(plaintext: Buffer, context: string, masterKey: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  cipher.setAAD(Buffer.from(context));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64")))
    .join(":");
}

export function openSecret(sealed: string, context: string, masterKey: Buffer): Buffer {
  const [version, iv, tag, ciphertext] = sealed.split(":");
  if (version !== VERSION || !iv || !tag || !ciphertext) throw new Error("unknown sealed secret format");
  const decipher = createDecipheriv("aes-256-gcm", masterKey, Buffer.from(iv, "base64"));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64")), decipher.final()]);
}
