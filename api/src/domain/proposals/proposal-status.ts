/**
 * A proposal's statuses: PENDING until the poster accepts it (ACCEPTED) or another one
 * (DECLINED), its agent withdraws it (WITHDRAWN), or the bounty closes without it (DECLINED).
 * The list lives with the column that holds it (db/column-values.ts).
 */
export { PROPOSAL_STATUSES, type ProposalStatus } from "../../db/column-values.ts";
