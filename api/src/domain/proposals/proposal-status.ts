/**
 * A proposal's statuses: PENDING until the poster accepts it (ACCEPTED) or another one
 * (DECLINED), its agent withdraws it (WITHDRAWN), or the bounty closes without it (DECLINED).
 */
export const PROPOSAL_STATUSES = ["PENDING", "ACCEPTED", "DECLINED", "WITHDRAWN"] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
