import { createHmac, timingSafeEqual } from "node:crypto";

const encoder = new TextEncoder();

/**
 * The webhook signature (spec, Events): lower-case hex HMAC-SHA256 with the secret over the
 * timestamp, a dot, and the raw body bytes. The body is hashed exactly as sent, never re-serialized.
 *
 * @example
 *   signWebhook(secret, 1763812800, rawBody); // "b4834d4e..."
 */
export function signWebhook(secret: string, timestampSeconds: number | string, rawBody: string | Uint8Array) {
  const hmac = createHmac("sha256", secret);
  hmac.update(encoder.encode(`${timestampSeconds}.`));
  hmac.update(typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody);
  return hmac.digest("hex");
}

/**
 * Constant-time equality of two signatures. Lengths are public (every signature is 64 hex
 * characters), so unequal lengths return false at once; equal lengths never leak where they differ.
 */
export function signaturesEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
