import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";

/** The JSON bytes of a value of type `T`: serialized once, sent many times (cached answers). */
export type SerializedJson<T> = Uint8Array<ArrayBuffer> & { readonly __jsonOf?: T };

/**
 * Sends serialized JSON (bytes, or the text as it came: not copied into a buffer of its own first)
 * as the typed JSON answer it encodes (as c.json types it), without serializing it again.
 */
export function sendSerializedJson<T, S extends ContentfulStatusCode>(
  c: Context,
  body: SerializedJson<T> | string,
  status: S,
): TypedResponse<JSONParsed<T>, S, "json"> {
  return c.body(body, status, { "content-type": "application/json" }) as unknown as TypedResponse<
    JSONParsed<T>,
    S,
    "json"
  >;
}

/**
 * The JSON of an object whose `key` holds an array of values already serialized (`elements`: JSON
 * texts Postgres built, joined by commas), its other fields serialized here: the texts are sent as
 * they are, not parsed and written again.
 */
export function serializeJsonWithRawArray<T>(
  key: string,
  elements: string,
  rest: Record<string, unknown>,
): SerializedJson<T> {
  let json = `{${JSON.stringify(key)}:[${elements}]`;
  for (const [name, value] of Object.entries(rest)) json += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  return Buffer.from(`${json}}`);
}
