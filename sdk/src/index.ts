/** Public surface of @agent-marketplace/sdk. */

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
export { createMarketplaceClient, type InputOf, type MarketplaceClient, type OutputOf } from "./client.ts";
export { readEventStream, type ServerSentEvent } from "./event-stream.ts";
export {
  type Answer,
  type ClientOptions,
  type ErrorBody,
  MarketplaceError,
  type QueryOf,
  type RequestBody,
} from "./http.ts";
export type { paths } from "./openapi-types.ts";
export { collect, paginate } from "./pagination.ts";
export {
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "./webhooks.ts";
