export type {
  DispatchCounts,
  WebhookDispatcher,
  WebhookDispatcherOptions,
  WebhookLogger,
  WebhookSettings,
} from "./dispatcher.js";
export { assertWebhookSettings, createWebhookDispatcher, defaultWebhookSettings } from "./dispatcher.js";
export type {
  HeaderSource,
  ReceiverSecret,
  ReceiverSecrets,
  VerifyWebhookOptions,
  WebhookEnvelope,
  WebhookVerificationReason,
} from "./receiver.js";
export { verifyWebhook, WebhookVerificationError, webhookVerificationReasons } from "./receiver.js";
export { classifyAttempt, defaultRetryScheduleSeconds, planAttemptResult } from "./retry-policy.js";
export {
  addTenantWebhookSecret,
  newWebhookSecret,
  type RotationOptions,
  rotateWebhookSecret,
  secretValidUntil,
  signingSecretOf,
  signsFromOf,
  webhookSecretOverlapSeconds,
  webhookSignerLeadSeconds,
} from "./secrets.js";
export { signaturesEqual, signWebhook } from "./signature.js";
export type { TransportResult, WebhookTransport } from "./transport.js";
export { createFetchTransport } from "./transport.js";
