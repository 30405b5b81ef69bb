/**
 * The API server: `pnpm --filter @agent-marketplace/api start`. Reads its configuration from the
 * environment (src/config.ts), applies the database migrations, and serves until SIGINT/SIGTERM.
 */
import { loadConfig } from "./config.ts";
import { startServer } from "./server.ts";

const server = await startServer(loadConfig());
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
