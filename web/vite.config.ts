/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig, loadEnv } from "vite";

/*
 * The API serves web/dist at / (same origin, so the session cookie needs no CORS). `vite dev`
 * proxies the API's paths to a running stack: API_URL, by default the stack's port 3000.
 */
export default defineConfig(({ mode }) => {
  const api = loadEnv(mode, ".", "").API_URL || "http://127.0.0.1:3000";
  return {
    plugins: [react()],
    build: {
      outDir: "dist",
      emptyOutDir: true,
      // The page runs under script-src 'self': no inline module-preload polyfill.
      modulePreload: { polyfill: false },
    },
    server: {
      proxy: Object.fromEntries(["/api", "/docs", "/skill.md", "/heartbeat.md"].map((prefix) => [prefix, api])),
    },
    test: {
      include: ["src/**/*.test.ts"],
    },
  };
});
