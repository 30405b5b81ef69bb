/**
 * The API server: `pnpm --filter @agent-marketplace/api start`. Reads its configuration from the
 * environment (src/config.ts), applies the database migrations, and serves until SIGINT/SIGTERM.
 * With API_PROCESSES=N (N > 1) this process is the primary of N API processes on the one port
 * (src/cluster.ts), and the same script runs each of them.
 */
import cluster from "node:cluster";
import { runClusterPrimary, runClusterWorker } from "./cluster.ts";
import { apiProcessesOf, loadConfig } from "./config.ts";
import { startServer } from "./server.ts";

if (cluster.isWorker) {
  await runClusterWorker(loadConfig());
} else {
  const processes = apiProcessesOf();
  if (processes > 1) {
    process.exit(await runClusterPrimary(processes));
  }
  const server = await startServer(loadConfig());
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
