// @wallet/client: the tenant SDK. Runs in Node 20+, browsers and edge runtimes (no node:* imports).
export {
  type Assertion,
  type AssertionTarget,
  type BuildAssertionInput,
  buildAssertion,
  type CustomerAuthentication,
  type RevokeAssertion,
} from "./binding/build-assertion.js";
export {
  type AssertionTransactionBinding,
  assertionTransactionBinding,
  BINDING_TEMPLATE,
  computeTransactionBinding,
  type TransactionBinding,
  type TransactionBindingInput,
} from "./binding/transaction-binding.js";
export {
  type CallOptions,
  createWalletClient,
  type HttpMethod,
  type Query,
  type QueryValue,
  type RequestOptions,
  type ResponseEvent,
  TENANT_API_PREFIX,
  type WalletClient,
  type WalletClientOptions,
  type WalletResponse,
} from "./client/create-wallet-client.js";
export { type IterateOptions, iteratePages, PAGE_LIMIT_MAX, type Page } from "./client/paginate.js";
export type {
  Agreement,
  Customer,
  CustomerSummary,
  FeeQuote,
  Health,
  Identifier,
  IdentifierSummary,
  JsonBody,
  KycVersion,
  Mandate,
  Operation,
  OperationDetail,
  OperationListItem,
  OperationTimelineEntry,
  Receipt,
  StatementItem,
  TopupIntent,
  TopupIntentDetail,
  WalletBalance,
} from "./client/resources.js";
export type { RetryOptions } from "./client/retry-policy.js";
export type { TenantResources } from "./client/tenant-resources.js";
export {
  WalletApiError,
  type WalletApiErrorDetail,
  type WalletErrorCode,
  WalletNetworkError,
  walletErrorCodes,
} from "./client/wallet-api-error.js";
export { canonicalJson } from "./encoding/canonical-json.js";
export { sha256Hex } from "./encoding/sha256-hex.js";
export * from "./generated/api-types.js";
export {
  type Ed25519KeyPair,
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  privateKeyPemFromSeed,
  publicKeyPemFromBytes,
  publicKeyPemFromPrivate,
} from "./keys/ed25519-keys.js";
export { receiptHash, verifyReceipt } from "./receipts/receipt-hash.js";
export { type CanonicalRequestParts, canonicalRequestString } from "./signing/canonical-request-string.js";
export { type SignedRequestHeaders, type SignRequestInput, signRequest } from "./signing/sign-request.js";
export {
  type HeaderSource,
  type ReceiverSecret,
  type ReceiverSecrets,
  signWebhookPayload,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEnvelope,
  WebhookVerificationError,
  type WebhookVerificationReason,
  webhookVerificationReasons,
} from "./webhooks/verify-webhook.js";
export {
  type CustomerEventData,
  type CustomerKycChangedData,
  type MandateEventData,
  type WalletEvent,
  type WalletEventData,
  type WalletEventType,
  walletEventTypes,
} from "./webhooks/wallet-events.js";
