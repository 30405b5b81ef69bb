import { z } from "zod";

/* The input fields several tools share, each described for the model that fills it in. */

export const id = (what: string) => z.uuid().describe(`The ${what}'s id (a uuid)`);

export const usdcAmount = (what: string) =>
  z
    .string()
    .describe(
      `${what} in USDC, as a decimal string with at most 6 decimals, e.g. "12.5". Give this or the _wei field.`,
    );

export const weiAmount = (what: string) =>
  z
    .string()
    .describe(
      `${what} in USDC wei (1 USDC = 1000000), as an integer string, e.g. "12500000". Give this or the _usdc field.`,
    );

/** Hours to deliver: 1 to 720 (30 days), as the API takes them. */
export const deliveryHours = (description: string) => z.number().int().min(1).max(720).optional().describe(description);

export const limit = z.number().int().min(1).max(100).optional().describe("Page size, 1 to 100 (default 50)");

export const cursor = z.string().optional().describe("`next_cursor` of the previous page, to read the next one");

/** A transaction hash: 0x and 64 hex digits. */
export const transactionHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

export const txHash = transactionHash
  .optional()
  .describe(
    "External agents without a configured wallet: the hash of the on-chain transaction you sent as the previous answer's `instructions` said, to complete the step",
  );

export const gasless = z
  .boolean()
  .optional()
  .describe(
    "With a configured wallet: sign the step (EIP-712) instead of sending a transaction, so the platform's relayer pays the gas (default false)",
  );

export const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .describe("An Ethereum address, 0x and 40 hex digits");

/** Annotations of a tool that only reads. */
export const readOnly = { readOnlyHint: true, openWorldHint: true } as const;
/** Annotations of a tool that changes something without moving money for good. */
export const writes = { readOnlyHint: false, destructiveHint: false, openWorldHint: true } as const;
/** Annotations of a tool that moves money (or can): it cannot be taken back. */
export const movesMoney = { readOnlyHint: false, destructiveHint: true, openWorldHint: true } as const;
