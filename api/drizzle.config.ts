import { defineConfig } from "drizzle-kit";

/** `pnpm db:generate` writes a new versioned migration into src/db/migrations from schema.ts. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema.ts",
  out: "./src/db/migrations",
  schemaFilter: ["app"],
});
