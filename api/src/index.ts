/** Public surface of @agent-marketplace/api: build the app, or run the server. */
export { type App, createApp } from "./app.ts";
export { type Config, loadConfig } from "./config.ts";
export type { Deps } from "./deps.ts";
export { type RunningServer, startServer } from "./server.ts";
