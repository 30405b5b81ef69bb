import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { APPROVAL_STATES } from "../../domain/wallet/approval-requests.ts";
import type { AppEnv } from "../../http/env.ts";
import { guard } from "../../http/guards.ts";
import { createIdempotentRoute } from "../../http/idempotency.ts";
import { idParam } from "../../http/params.ts";
import { Cursor, errorResponses, pageLimit, queryOf, Uuid } from "../../schemas/common.ts";
import { InsufficientBalance } from "../../schemas/funding.ts";
import { sessionSecurity } from "../../schemas/owners.ts";
import { SpendingApproval, SpendingLimitRefusal } from "../../schemas/spending.ts";
import type { RouteDeps } from "../route-deps.ts";

const ApprovalsQuery = queryOf({
  state: z.enum(APPROVAL_STATES).optional().openapi({
    description: "Only approvals in this state (a pending one past its expiry reads as expired)",
  }),
  agent_id: Uuid.optional().openapi({ description: "Only this agent's (one the session owns)" }),
  limit: pageLimit(20),
  cursor: Cursor,
});

const ApprovalPage = z
  .object({ approvals: z.array(SpendingApproval), next_cursor: z.string().nullable() })
  .openapi("SpendingApprovalPage");

export const listApprovalsRoute = createRoute({
  method: "get",
  path: "/approvals",
  operationId: "listSpendingApprovals",
  tags: ["Owners"],
  summary: "The money moves of the session's agents that wait for (or had) its approval",
  description:
    "Newest first. A hosted agent's move above the `approval_above_wei` its owner set waits here (pending) for 24 hours; each is also notified to the agent (`approval.requested`).",
  security: sessionSecurity,
  middleware: guard.owner,
  request: { query: ApprovalsQuery },
  responses: {
    200: { description: "A page of approvals", content: { "application/json": { schema: ApprovalPage } } },
    ...errorResponses(400, 401, 403, 404),
  },
});

export const approveRoute = createIdempotentRoute({
  method: "post",
  path: "/approvals/{id}/approve",
  operationId: "approveSpending",
  tags: ["Owners"],
  summary: "Approve a pending move: it is carried out now, once",
  description:
    "The agent's request runs again as it was validated, and the spending caps are judged again now. Carried out: the approval with its `result` (transaction_id or withdrawal_id, tx_hash). Refused now (a cap, the balance, a changed price…): nothing is sent, the approval is `failed`, and the answer is that refusal (its code), with the approval in `approval`. A second approval (at once or later) is 409 `approval_closed`.",
  security: sessionSecurity,
  middleware: guard.owner,
  request: { params: idParam("Approval") },
  responses: {
    200: { description: "Carried out", content: { "application/json": { schema: SpendingApproval } } },
    402: {
      description: "Refused when carried out: a spending cap, or the balance (the approval is failed)",
      content: {
        "application/json": {
          schema: z.union([
            SpendingLimitRefusal.extend({ approval: SpendingApproval }),
            InsufficientBalance.extend({ approval: SpendingApproval }),
          ]),
        },
      },
    },
    ...errorResponses(401, 403, 404, 503),
  },
});

export const declineRoute = createIdempotentRoute({
  method: "post",
  path: "/approvals/{id}/decline",
  operationId: "declineSpending",
  tags: ["Owners"],
  summary: "Decline a pending move: nothing is sent",
  security: sessionSecurity,
  middleware: guard.owner,
  request: { params: idParam("Approval") },
  responses: {
    200: { description: "Declined", content: { "application/json": { schema: SpendingApproval } } },
    ...errorResponses(401, 403, 404),
  },
});

/** /api/owner/approvals: the session of the agents' owner (an agent's key is 403: it never approves itself). */
export function registerApprovals(app: OpenAPIHono<AppEnv>, { useCases }: RouteDeps) {
  app.openapi(listApprovalsRoute, async function listSpendingApprovals(c) {
    const query = c.req.valid("query");
    const page = await useCases.spendingApprovals.list(c.get("session").address, {
      state: query.state,
      agentId: query.agent_id,
      limit: query.limit,
      cursor: query.cursor,
    });
    return c.json({ approvals: page.approvals, next_cursor: page.nextCursor }, 200);
  });

  app.openapi(approveRoute, async function approveSpending(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.spendingApprovals.approve(c.get("session").address, id), 200);
  });

  app.openapi(declineRoute, async function declineSpending(c) {
    const { id } = c.req.valid("param");
    return c.json(await useCases.spendingApprovals.decline(c.get("session").address, id), 200);
  });
}
