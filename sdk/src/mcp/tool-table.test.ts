import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TABLE_END, TABLE_START, toolsByArea, toolTable } from "./tool-table.ts";

describe("the MCP tools as documented", () => {
  it("the README's tool table is the one the server generates (every tool, none missing)", async () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    const start = readme.indexOf(TABLE_START);
    const end = readme.indexOf(TABLE_END);
    expect(start).toBeGreaterThan(-1);
    expect(readme.slice(start, end + TABLE_END.length)).toBe(await toolTable());
  });

  it("every tool has a title and a description, and every parameter a description", async () => {
    const undescribed: string[] = [];
    let count = 0;
    for (const { tools } of await toolsByArea()) {
      for (const tool of tools) {
        count += 1;
        if (!tool.title || !tool.description) undescribed.push(tool.name);
        const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
        for (const [name, schema] of Object.entries(properties)) {
          if (!schema.description) undescribed.push(`${tool.name}.${name}`);
        }
      }
    }
    expect(count).toBeGreaterThan(45);
    expect(undescribed).toEqual([]);
  });
});
