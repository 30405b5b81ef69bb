import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import * as actions from "./actions/index.ts";
import * as enums from "./enums.ts";
import * as sdk from "./index.ts";

/*
 * The SDK's public surface, pinned: package.json `exports` names the entry points (the TypeScript
 * source inside the workspace, the built files once packed), and the entry exports exactly these
 * values: the helpers below, one action per operation of the API document it is typed from, and the
 * document's value lists (types are checked by the compiler). A change here is a change of the SDK's
 * contract with its users.
 */

/** The operationIds of the document the SDK is generated from (openapi-types.ts's `operations`). */
function operationIds(): string[] {
  const types = readFileSync(new URL("./openapi-types.ts", import.meta.url), "utf8");
  const operations = types.slice(types.indexOf("export interface operations {"));
  return [...operations.matchAll(/^ {4}([A-Za-z0-9]+): \{$/gm)].map((match) => match[1] as string);
}

describe("the public surface", () => {
  it("package.json exports the client and the MCP server: the source in the workspace, the build once packed", () => {
    expect(packageJson.exports).toEqual({ ".": "./src/index.ts", "./mcp": "./src/mcp/server.ts" });
    expect(packageJson.publishConfig.exports).toEqual({
      ".": { types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./mcp": { types: "./dist/mcp/server.d.ts", import: "./dist/mcp/server.js" },
      "./package.json": "./package.json",
    });
    expect(packageJson.bin).toEqual({ "agent-marketplace-mcp": "./src/mcp/main.ts" });
    expect(packageJson.publishConfig.bin).toEqual({ "agent-marketplace-mcp": "./dist/mcp/main.js" });
    expect(packageJson).not.toHaveProperty("private");
    expect(packageJson.files).toEqual(["dist", "README.md", "CHANGELOG.md", "LICENSE"]);
  });

  it("the package's LICENSE is the repository's", () => {
    expect(readFileSync(new URL("../LICENSE", import.meta.url), "utf8")).toBe(
      readFileSync(new URL("../../LICENSE", import.meta.url), "utf8"),
    );
  });

  it("the MCP entry exports the server factory and its tools by area", async () => {
    const mcp = await import("./mcp/server.ts");
    expect(Object.keys(mcp).sort()).toEqual(
      ["SERVER_NAME", "SERVER_VERSION", "TOOL_AREAS", "createMarketplaceMcpServer"].sort(),
    );
  });

  it("there is one action per operation of the document, a function named by its operationId", () => {
    const ids = operationIds();
    expect(ids.length).toBeGreaterThan(80);
    const exported = Object.entries(actions).filter(([name]) => name !== "marketplaceActions");
    expect(exported.map(([name]) => name).sort()).toEqual([...ids].sort());
    for (const [name, action] of exported) expect(typeof action, name).toBe("function");
  });

  it("the entry exports exactly these values: the helpers, the actions and the document's value lists", () => {
    const helpers = [
      "AwaitingApprovalError",
      "MarketplaceError",
      "StepRevertedError",
      "buyWithWallet",
      "collect",
      "createBaseClient",
      "createMarketplaceClient",
      "fundWithWallet",
      "marketplaceActions",
      "moveWithWallet",
      "paginate",
      "readEventStream",
      "registerIdentityWithWallet",
      "sendCalls",
      "typedDataFromJson",
      "verifyWebhook",
      "WebhookVerificationError",
      "wrapFetchWithHostedPayment",
    ];
    const lists = Object.keys(enums);
    expect(lists).toContain("LISTING_CATEGORIES");
    for (const [name, values] of Object.entries(enums)) expect(Array.isArray(values), name).toBe(true);
    expect(Object.keys(sdk).sort()).toEqual([...helpers, ...operationIds(), ...lists].sort());
  });

  it("a client has one function per operation, named by its operationId, besides its credential setters", () => {
    const client = sdk.createMarketplaceClient({ baseUrl: "http://127.0.0.1:1" });
    const functions = Object.entries(client)
      // The setters of the credentials (the key, the agent a session acts for, a cookie session's
      // CSRF token) are not operations.
      .filter(([name, value]) => typeof value === "function" && !["useKey", "actAs", "useCsrfToken"].includes(name))
      .map(([name]) => name);
    expect(functions.sort()).toEqual(operationIds().sort());
  });
});
