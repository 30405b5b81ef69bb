import { Hono, type MiddlewareHandler } from "hono";
import { apiKeyOf } from "../auth/credential.ts";
import type { AppEnv } from "../http/env.ts";
import type { McpSessionStore } from "../mcp/session-store.ts";

/*
 * /mcp: the marketplace's MCP server over Streamable HTTP (the endpoint agents' ERC-8004
 * registration files name), the same tools as the stdio server of sdk/src/mcp. Each request builds
 * a server for the caller's key and answers in JSON. The key is the request's
 * `Authorization: Bearer <api key>`, else the one its MCP session keeps: `initialize` answers an
 * `Mcp-Session-Id`, and a session keeps the key `register` answered (or the first one sent), so a
 * client that registers through the tools goes on without adding a header. Sessions live in
 * Postgres (mcp/session-store.ts): any API process serves any of a session's requests.
 * The tools call this same app in process (no network hop), with the caller's origin and
 * connection, so limits, checks and URLs are those of a direct request.
 */

const SESSION_HEADER = "mcp-session-id";

/**
 * Before the budget: a request naming a live MCP session acts with the session's key (when it
 * sends no Authorization of its own), so the budget is the agent's. An unknown or ended session
 * is 404, as the MCP transport says: the client starts a new one.
 */
export function resumeMcpSession(sessions: McpSessionStore): MiddlewareHandler<AppEnv> {
  return async function mcpSession(c, next) {
    const id = c.req.header(SESSION_HEADER);
    if (id === undefined) return next();
    const session = await sessions.resume(id);
    if (!session) {
      return c.json(
        { jsonrpc: "2.0", error: { code: -32001, message: "Session not found: initialize a new one" }, id: null },
        404,
      );
    }
    c.set("mcpSession", { id, apiKey: session.apiKey });
    return next();
  };
}

/** Whether a JSON-RPC body starts a session. */
async function isInitialize(request: Request): Promise<boolean> {
  if (request.method !== "POST") return false;
  const body: unknown = await request
    .clone()
    .json()
    .catch(() => undefined);
  return typeof body === "object" && body !== null && (body as { method?: unknown }).method === "initialize";
}

type Dispatch = (request: Request, env: unknown) => Response | Promise<Response>;

/**
 * `dispatch` answers the tools' requests; `isArbiterKey` says whether a Bearer key is the arbiter's
 * (its server also gets the dispute desk's tools); on the local chain (the API has its faucet) the
 * servers also get `get_test_usdc`.
 */
export function mcpRoutes(
  dispatch: Dispatch,
  isArbiterKey: (key: string) => boolean,
  sessions: McpSessionStore,
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
    const resumed = c.get("mcpSession");
    if (c.req.method === "DELETE" && resumed) {
      await sessions.end(resumed.id);
      return c.body(null, 204);
    }
    const origin = new URL(c.req.url).origin;
    const apiKey = apiKeyOf(c);
    const sessionId = resumed?.id ?? ((await isInitialize(c.req.raw)) ? await sessions.open(apiKey) : undefined);
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
      // A session's requests may register at once: one of them does.
      ...(sessionId !== undefined &&
        apiKey === undefined && {
          registration: {
            claim: () => sessions.claimRegistration(sessionId),
            release: () => sessions.releaseRegistration(sessionId),
          },
        }),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      const answer = await transport.handleRequest(c.req.raw);
      // The session keeps the key the tools ended with: the one `register` answered, or rotated to.
      if (sessionId !== undefined && client.apiKey !== undefined && client.apiKey !== resumed?.apiKey) {
        await sessions.keep(sessionId, client.apiKey);
      }
      // Through the context, so the headers middleware set (the budget's RateLimit-*) go with it.
      const response = c.newResponse(answer.body, answer);
      if (sessionId !== undefined && !resumed) response.headers.set("Mcp-Session-Id", sessionId);
      return response;
    } finally {
      await server.close();
    }
  });
  return app;
}
