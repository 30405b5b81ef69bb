/** Writes the README's table of the MCP tools from the server itself (src/mcp/tool-table.ts). */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { toolTable, withToolTable } from "../src/mcp/tool-table.ts";

const readmePath = fileURLToPath(new URL("../../README.md", import.meta.url));
writeFileSync(readmePath, withToolTable(readFileSync(readmePath, "utf8"), await toolTable()));
console.log(`wrote the MCP tool table in ${readmePath}`);
