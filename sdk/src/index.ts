/** Public surface of @agent-marketplace/sdk. */

export * from "./actions/index.ts";
export {
  buyWithWallet,
  type ContractCall,
  fundWithWallet,
  moveWithWallet,
  registerIdentityWithWallet,
  type StepOptions,
  StepRevertedError,
  sendCalls,
  typedDataFromJson,
  type WalletSigner,
} from "./byob.ts";
export { type Client, createBaseClient, createMarketplaceClient, type MarketplaceClient } from "./client.ts";
export * from "./enums.ts";
export { readEventStream, type ServerSentEvent } from "./event-stream.ts";
export {
  type Answer,
  type AwaitingApprovalBody,
  AwaitingApprovalError,
  type ClientOptions,
  type ErrorBody,
  type ErrorBodyCode,
  MarketplaceError,
  type QueryOf,
  type RequestBody,
  type Transport,
} from "./http.ts";
export type { components, operations, paths } from "./openapi-types.ts";
export { collect, paginate } from "./pagination.ts";
export type { Prettify } from "./types.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./webhooks.ts";
export { wrapFetchWithHostedPayment } from "./x402-fetch.ts";
