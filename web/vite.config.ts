/// <reference types="vitest/config" />
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import react from "@vitejs/plugin-react";
import { defineConfig, loadEnv, type Plugin } from "vite";

/*
 * The API serves web/dist at / (same origin, so the session cookie needs no CORS). `vite dev`
 * proxies the API's paths to a running stack: API_URL, by default the stack's port 3000.
 */
export default defineConfig(({ mode }) => {
  const api = loadEnv(mode, ".", "").API_URL || "http://127.0.0.1:3000";
  return {
    plugins: [react(), precompress()],
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

/** Files worth compressing: text formats, from this size up (smaller ones gain nothing on the wire). */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|webmanifest)$/;
const MIN_BYTES = 1024;

/**
 * Writes `<file>.br` and `<file>.gz` beside every compressible file of the build, at the strongest
 * levels (done once at build, never per request): the API serves them to browsers that accept them.
 */
function precompress(): Plugin {
  const brotli = promisify(brotliCompress);
  const gzipped = promisify(gzip);
  return {
    name: "precompress",
    apply: "build",
    async writeBundle(options) {
      const outDir = options.dir ?? "dist";
      const entries = await readdir(outDir, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((entry) => entry.isFile() && COMPRESSIBLE.test(entry.name))
        .map((entry) => path.join(entry.parentPath, entry.name));
      await Promise.all(
        files.map(async (file) => {
          const content = await readFile(file);
          if (content.length < MIN_BYTES) return;
          const [br, gz] = await Promise.all([
            brotli(content, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
              },
            }),
            gzipped(content, { level: constants.Z_BEST_COMPRESSION }),
          ]);
          await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)]);
        }),
      );
    },
  };
}
