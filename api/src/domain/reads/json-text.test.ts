import { sql } from "drizzle-orm";
import { afterAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../../db/client.ts";
import { jsonConstant, jsonLiteral, jsonObject, jsonString } from "./json-text.ts";

/*
 * The JSON text Postgres builds by concatenation must parse, in JavaScript, to the values it was
 * built from: every character a string may hold (controls, quotes, backslashes, beyond the BMP),
 * integers, booleans, constants and nested objects, keys in their order.
 */
const db = createDatabase(inject("stack").databaseUrl, { max: 1 });
afterAll(() => db.$client.end());

async function textOf(json: ReturnType<typeof jsonObject>): Promise<string> {
  const { rows } = await db.execute<{ json: string }>(sql`SELECT ${json} AS json`);
  return (rows[0] as { json: string }).json;
}

describe("JSON text built in SQL", () => {
  it("escapes every string so that it parses back to itself", async () => {
    const controls = Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join("");
    const strings = [
      "",
      "plain",
      `${controls}\u007f`,
      `"quoted" \\ back\\slash / slash`,
      "émoji 🚀 中文 \u2028\u2029",
      "'single' quotes; -- not SQL",
    ].map((value) => value.replaceAll("\u0000", ""));
    for (const value of strings) {
      const text = await textOf(jsonObject({ value: jsonString(sql`${value}::text`) }));
      expect(JSON.parse(text)).toEqual({ value });
    }
  });

  it("writes integers, booleans, constants and nested objects, keys in order", async () => {
    const text = await textOf(
      jsonObject({
        count: jsonLiteral(sql`${-42}::int`),
        big: jsonString(sql`${"123456789012345678901234567890"}::numeric`),
        yes: jsonLiteral(sql`true`),
        no: jsonLiteral(sql`false`),
        currency: jsonConstant("US'DC"),
        nested: jsonObject({
          id: jsonString(sql`'6f1c2e9a-3b4d-4c5e-8f70-123456789abc'::uuid`),
          empty: jsonObject({}),
        }),
      }),
    );
    expect(Object.keys(JSON.parse(text))).toEqual(["count", "big", "yes", "no", "currency", "nested"]);
    expect(JSON.parse(text)).toEqual({
      count: -42,
      big: "123456789012345678901234567890",
      yes: true,
      no: false,
      currency: "US'DC",
      nested: { id: "6f1c2e9a-3b4d-4c5e-8f70-123456789abc", empty: {} },
    });
  });

  it("refuses keys it would have to escape", () => {
    expect(() => jsonObject({ 'say "hi"': jsonConstant(1) })).toThrow(/unsupported key/);
  });
});
