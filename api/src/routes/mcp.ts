import { Hono } from "hono";
import type { AppEnv } from "../http/env.ts";

/*
 * /mcp: the marketplace's MCP server over Streamable HTTP (the endpoint agents' ERC-8004
 * registration files name), the same tools as the stdio server of sdk/src/mcp. Stateless: each
 * request builds a server for the caller's `Authorization: Bearer <api key>` and answers in JSON.
 * The tools call this same app in process (no network hop), with the caller's origin and
 * connection, so limits, checks and URLs are those of a direct request.
 */

type Dispatch = (request: Request, env: unknown) => Response | Promise<Response>;

/**
 * `dispatch` answers the tools' requests; `isArbiterKey` says whether a Bearer key is the arbiter's
 * (its server also gets the dispute desk's tools); on the local chain (the API has its faucet) the
 * servers also get `get_test_usdc`.
 */
export function mcpRoutes(
  dispatch: Dispatch,
  isArbiterKey: (key: string) => boolean,
  options: { localChain: boolean } = { localChain: false },
) {
  const app = new Hono<AppEnv>();
  // Mounted at /mcp: "/" is /mcp itself.
  app.all("/", async function serveMcp(c) {
    // Loaded on first use: the MCP SDK is large, and most processes (and tests) never serve /mcp.
    const [{ createMarketplaceClient }, { createMarketplaceMcpServer }, { WebStandardStreamableHTTPServerTransport }] =
      await Promise.all([
        import("@agent-marketplace/sdk"),
        import("@agent-marketplace/sdk/mcp"),
        import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
      ]);
    const origin = new URL(c.req.url).origin;
    const apiKey = c.req.header("authorization")?.match(/^Bearer\s+(\S+)$/i)?.[1];
    const client = createMarketplaceClient({
      baseUrl: origin,
      apiKey,
      // No retries in process: the caller's MCP client retries the tool call if it must.
      retries: 0,
      fetch: (input, init) => Promise.resolve(dispatch(new Request(input, init), c.env)),
    });
    const server = createMarketplaceMcpServer(client, undefined, {
      arbiter: apiKey ? isArbiterKey(apiKey) : false,
      transport: "http",
      localChain: options.localChain,
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const answer = await transport.handleRequest(c.req.raw);
      // Through the context, so the headers middleware set (the budget's RateLimit-*) go with it.
      return c.newResponse(answer.body, answer);
    } finally {
      await server.close();
    }
  });
  return app;
}
