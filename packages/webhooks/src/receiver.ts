/*
 * The receiver helper: what a tenant runs to check a delivery. It is the client SDK's verifier,
 * re-exported: one implementation (portable, @noble HMAC, constant-time comparison, 300 s
 * tolerance, kid lookup, 24 h rotation overlap) for the SDK, the docs and this package.
 */
export {
  type HeaderSource,
  type ReceiverSecret,
  type ReceiverSecrets,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEnvelope,
  WebhookVerificationError,
  type WebhookVerificationReason,
  webhookVerificationReasons,
} from "@wallet/client";
