import fc from "fast-check";
import { getAddress, hashTypedData, type TypedDataDomain } from "viem";
import { describe, expect, it } from "vitest";
import { typedDataFromJson } from "./byob.ts";
import { readEventStream, type ServerSentEvent } from "./event-stream.ts";
import { AmountError, amountFromInput, formatUsdc, parseUsdc, parseWei } from "./mcp/amounts.ts";

/*
 * Property tests of the SDK's parsers: what they accept from the API or from a model (typed data,
 * USDC amounts, an event stream) with inputs fast-check makes up.
 */

const RUNS = { numRuns: 300 };

/** Any text: code units, whole code points, and near-misses of amounts. */
const anyText = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.stringMatching(/^[-+ ]?[0-9]{0,30}([.,][0-9]{0,10})?([eE][-+]?[0-9]{1,3})?[ \n]?$/),
  fc.constantFrom("", ".", "1.", ".5", "0x10", "1_000", "Infinity", "NaN", "١٢", "１２", "1e6", "-0", "+1", " 1"),
);

const wei = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });

describe("USDC amounts (MCP)", () => {
  it("formatUsdc then parseUsdc gives the same wei back, and parseWei reads a wei string exactly", () => {
    fc.assert(
      fc.property(wei, (amount) => {
        expect(formatUsdc(amount)).toMatch(/^\d+\.\d{6}$/);
        expect(parseUsdc(formatUsdc(amount))).toBe(amount);
        expect(parseWei(amount.toString())).toBe(amount);
      }),
      RUNS,
    );
  });

  it("a decimal with at most 6 decimals is read exactly, whatever its zeros", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[0-9]{1,40}$/),
        fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }),
        (whole, fraction) => {
          const text = fraction === undefined ? whole : `${whole}.${fraction}`;
          const expected = BigInt(whole) * 1_000_000n + BigInt((fraction ?? "").padEnd(6, "0"));
          expect(parseUsdc(text)).toBe(expected);
          // And back: the six-decimal form names the same amount.
          expect(parseUsdc(formatUsdc(expected))).toBe(expected);
        },
      ),
      RUNS,
    );
  });

  it("more than 6 decimals is refused, never rounded", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,10}$/), fc.stringMatching(/^[0-9]{7,20}$/), (whole, fraction) => {
        expect(() => parseUsdc(`${whole}.${fraction}`)).toThrow(AmountError);
      }),
      RUNS,
    );
  });

  it("any text either reads as a non-negative amount of its own digits or throws AmountError, nothing else", () => {
    const attempt = (parse: (text: string) => bigint, text: string): bigint | undefined => {
      try {
        return parse(text);
      } catch (error) {
        expect(error).toBeInstanceOf(AmountError);
        expect((error as AmountError).code).toBe("invalid_amount");
        return undefined;
      }
    };
    fc.assert(
      fc.property(anyText, (text) => {
        const usdc = attempt(parseUsdc, text);
        if (usdc !== undefined) {
          expect(text).toMatch(/^\d+(\.\d{1,6})?$/);
          expect(usdc).toBeGreaterThanOrEqual(0n);
        }
        const inWei = attempt(parseWei, text);
        if (inWei !== undefined) expect(inWei.toString()).toBe(text.replace(/^0+(?=\d)/, ""));
      }),
      RUNS,
    );
  });

  it("amountFromInput throws only AmountError, whatever the tool input holds", () => {
    const field = fc.oneof(fc.constant(undefined), anyText, fc.anything());
    fc.assert(
      fc.property(field, field, fc.boolean(), (usdc, inWei, required) => {
        const input: Record<string, unknown> = {};
        if (usdc !== undefined) input.price_usdc = usdc;
        if (inWei !== undefined) input.price_wei = inWei;
        try {
          const amount = amountFromInput(input, "price", required as false);
          if (amount !== undefined) expect(amount).toBeGreaterThanOrEqual(0n);
          else expect(required).toBe(false);
        } catch (error) {
          expect(error).toBeInstanceOf(AmountError);
        }
      }),
      RUNS,
    );
  });
});

/** Typed data of random structure, built with bigints as a signer needs it. */
const FIELD_TYPES = ["uint256", "uint8", "int64", "int256", "address", "bool", "string", "bytes32"] as const;
type FieldType = (typeof FIELD_TYPES)[number];

function arbitraryOf(type: FieldType): fc.Arbitrary<unknown> {
  switch (type) {
    case "uint256":
      return fc.bigInt({ min: 0n, max: 2n ** 256n - 1n });
    case "uint8":
      return fc.bigInt({ min: 0n, max: 255n });
    case "int64":
      return fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
    case "int256":
      return fc.bigInt({ min: -(2n ** 255n), max: 2n ** 255n - 1n });
    case "address":
      return fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(toHex(bytes)));
    case "bool":
      return fc.boolean();
    case "string":
      return fc.string();
    case "bytes32":
      return fc.uint8Array({ minLength: 32, maxLength: 32 }).map(toHex);
  }
}

function toHex(bytes: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(bytes).toString("hex")}`;
}

const typedData = fc
  .uniqueArray(
    fc.record({ name: fc.stringMatching(/^[a-z][A-Za-z0-9]{0,11}$/), type: fc.constantFrom(...FIELD_TYPES) }),
    { minLength: 1, maxLength: 8, selector: (field) => field.name },
  )
  .chain((fields) =>
    fc.record({
      domain: fc.record(
        {
          name: fc.string({ maxLength: 20 }),
          version: fc.stringMatching(/^[0-9]{1,2}$/),
          chainId: fc.integer({ min: 1, max: 2 ** 40 }),
          verifyingContract: arbitraryOf("address"),
        },
        { requiredKeys: ["name", "version"] },
      ),
      types: fc.constant({ Intent: fields }),
      primaryType: fc.constant("Intent" as const),
      message: fc.record(Object.fromEntries(fields.map((field) => [field.name, arbitraryOf(field.type)]))),
    }),
  );

/** What the API does to typed data before it sends it: bigints become decimal strings. */
function asApiJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (typeof v === "bigint" ? v.toString() : v)));
}

describe("typedDataFromJson (BYOB)", () => {
  it("gives back the typed data the API serialised, so the signature covers the same hash", () => {
    fc.assert(
      fc.property(typedData, fc.boolean(), (original, chainIdAsString) => {
        const json = asApiJson(original) as { domain: Record<string, unknown> };
        if (chainIdAsString && json.domain.chainId !== undefined) json.domain.chainId = String(json.domain.chainId);
        const parsed = typedDataFromJson(json);
        expect(parsed.message).toEqual(original.message);
        expect(parsed.domain).toEqual(original.domain);
        expect(parsed.types).toEqual(original.types);
        expect(parsed.primaryType).toBe(original.primaryType);
        const hashOf = (data: typeof original) =>
          hashTypedData({
            domain: data.domain as TypedDataDomain,
            types: data.types,
            primaryType: data.primaryType,
            message: data.message as Record<string, unknown>,
          } as Parameters<typeof hashTypedData>[0]);
        expect(hashOf(parsed as typeof original)).toBe(hashOf(original));
      }),
      { numRuns: 200 },
    );
  });

  it("turns only integer fields into bigints: a decimal string in a string field stays a string", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), (n) => {
        const parsed = typedDataFromJson({
          domain: { name: "x", version: "1", chainId: "31337", verifyingContract: getAddress(`0x${"1".repeat(40)}`) },
          types: {
            Intent: [
              { name: "amount", type: "uint256" },
              { name: "note", type: "string" },
            ],
          },
          primaryType: "Intent",
          message: { amount: n.toString(), note: n.toString() },
        });
        expect(parsed.message).toEqual({ amount: n, note: n.toString() });
        expect(parsed.domain.chainId).toBe(31337);
      }),
      RUNS,
    );
  });
});

/** A stream of events as the API writes them. */
const events = fc.array(
  fc.record({
    event: fc.stringMatching(/^[a-z][a-z._]{0,15}$/),
    id: fc.option(fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/), { nil: undefined }),
    // One line of data (JSON on the wire), any characters but line breaks, including non-ASCII.
    data: fc.string({ unit: "grapheme", maxLength: 40 }).map((text) => text.replace(/[\r\n]/g, " ").trim()),
  }),
  { maxLength: 12 },
);

function encode(list: ServerSentEvent[], comments: boolean[]): Uint8Array {
  const text = list
    .map(
      (e, i) =>
        `${comments[i] ? ": keep-alive\n\n" : ""}event: ${e.event}\n${e.id === undefined ? "" : `id: ${e.id}\n`}data: ${e.data}\n\n`,
    )
    .join("");
  return new TextEncoder().encode(text);
}

/** `bytes` cut at `cuts` (any byte offsets, inside multi-byte characters too), as a stream. */
function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const offsets = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    chunks.push(bytes.slice(start, offset));
    start = offset;
  }
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>) {
  const read: ServerSentEvent[] = [];
  for await (const event of readEventStream(stream)) read.push(event);
  return read;
}

describe("readEventStream", () => {
  it("reads the same events however the bytes are cut into chunks", async () => {
    await fc.assert(
      fc.asyncProperty(
        events,
        fc.array(fc.boolean(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        async (list, comments, cuts) => {
          const bytes = encode(list, comments);
          const expected = list.map((e) => ({ event: e.event, id: e.id, data: e.data }));
          expect(await readAll(chunked(bytes, []))).toEqual(expected);
          expect(await readAll(chunked(bytes, cuts))).toEqual(expected);
        },
      ),
      RUNS,
    );
  });

  it("byte by byte too", async () => {
    await fc.assert(
      fc.asyncProperty(events, async (list) => {
        const bytes = encode(list, []);
        const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
        expect(await readAll(chunked(bytes, everyByte))).toEqual(list);
      }),
      { numRuns: 50 },
    );
  });
});
