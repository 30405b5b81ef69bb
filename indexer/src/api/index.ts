import { Hono } from "hono";

/**
 * Ponder requires this file. The marketplace API reads the indexer's views in schema "chain"
 * directly, so the indexer serves nothing beyond Ponder's own /health, /ready, /status and /metrics.
 */
export default new Hono();
