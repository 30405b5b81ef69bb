import type { Deps } from "../deps.ts";

/**
 * Every business flow of the API, by area, built once per app from its dependencies. Routes and
 * the keeper call these; only these reach the database and the chain.
 */
export function createUseCases(deps: Deps) {
  return {
    // one entry per area: `purchases: purchases(deps),`
    ...({} as Record<never, never>),
  };
}

export type UseCases = ReturnType<typeof createUseCases>;
