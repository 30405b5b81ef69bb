import { z } from "@hono/zod-openapi";
import { isUuid } from "../domain/shared/ids.ts";

/** What the validation hook reads off a refused id: the kind of thing it named. */
export const NOT_FOUND_PARAM = "notFound";

/**
 * The `{id}` of a path naming a `what` ("Listing", "Transaction"...). An id that is not a uuid
 * names nothing: the validation hook answers 404 `<what> not found` (API.md), as for an unknown one,
 * before the handler runs.
 */
export function idParam(what: string) {
  return z.object({
    id: z
      .string()
      .openapi({ format: "uuid" })
      .refine(isUuid, { params: { [NOT_FOUND_PARAM]: what } }),
  });
}
