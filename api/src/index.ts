/** Public surface of @agent-marketplace/api: build the app, or run the server (one process or several). */
export { type App, createApp } from "./app.ts";
export type { ApiReadyMessage } from "./cluster.ts";
export { apiProcessesOf, type Config, loadConfig, MAX_API_PROCESSES } from "./config.ts";
export type { Deps } from "./deps.ts";
export { type RunningServer, startServer } from "./server.ts";
