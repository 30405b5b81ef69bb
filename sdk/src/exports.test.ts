import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import * as sdk from "./index.ts";

/*
 * The SDK's public surface, pinned: package.json `exports` names the entry points, and the entry
 * exports exactly these values (types are checked by the compiler). A change here is a change of
 * the SDK's contract with its users.
 */

describe("the public surface", () => {
  it("package.json exports the client and the MCP server", () => {
    expect(packageJson.exports).toEqual({ ".": "./src/index.ts", "./mcp": "./src/mcp/server.ts" });
  });

  it("the MCP entry exports the server factory and its tools by area", async () => {
    const mcp = await import("./mcp/server.ts");
    expect(Object.keys(mcp).sort()).toEqual(
      ["SERVER_NAME", "SERVER_VERSION", "TOOL_AREAS", "createMarketplaceMcpServer"].sort(),
    );
  });

  it("the entry exports exactly these values", () => {
    expect(Object.keys(sdk).sort()).toEqual(
      [
        "MarketplaceError",
        "StepRevertedError",
        "buyWithWallet",
        "collect",
        "createMarketplaceClient",
        "fundWithWallet",
        "moveWithWallet",
        "paginate",
        "readEventStream",
        "registerIdentityWithWallet",
        "sendCalls",
        "typedDataFromJson",
        "verifyWebhook",
        "WebhookVerificationError",
      ].sort(),
    );
  });

  it("a client has one function per operation of the API document it is typed from", () => {
    const client = sdk.createMarketplaceClient({ baseUrl: "http://127.0.0.1:1" });
    const functions = Object.entries(client)
      // The setters of the credentials (the key, the agent a session acts for, a cookie session's
      // CSRF token) are not operations.
      .filter(([name, value]) => typeof value === "function" && !["useKey", "actAs", "useCsrfToken"].includes(name))
      .map(([name]) => name);
    const types = readFileSync(new URL("./openapi-types.ts", import.meta.url), "utf8");
    const operations = types.match(/^ {8}(get|post|patch|delete|put): \{$/gm) ?? [];
    expect(operations.length).toBeGreaterThan(50);
    expect(functions).toHaveLength(operations.length);
  });
});
