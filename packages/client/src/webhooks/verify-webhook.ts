import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { WalletEvent } from "./wallet-events.js";

/*
 * Webhook verification for tenants (spec, Events). The same rules as `verifyWebhook` of
 * @wallet/webhooks (which the server's own tests use), adapted to run where the SDK runs: HMAC
 * from @noble/hashes instead of node:crypto, so it works in browsers, workers and edge runtimes,
 * and stays synchronous (WebCrypto's HMAC is async only). A test holds both to the same vectors
 * and the same refusals.
 */

export const webhookVerificationReasons = [
  "missing_header",
  "malformed_header",
  "stale_timestamp",
  "unknown_kid",
  "retired_kid",
  "bad_signature",
  "malformed_body",
  "id_mismatch",
] as const;
export type WebhookVerificationReason = (typeof webhookVerificationReasons)[number];

/** A delivery that must not be trusted. `reason` is stable; answer 400/401 and do not process it. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A secret known to the receiver. `createdAt` enables the rotation rule: a secret stops verifying
 * 24 h after the next newer secret's `createdAt` (the service switches to the newer one 5 minutes
 * before, so its last deliveries are still fresh then). `retiredAt` ends it explicitly.
 */
export interface ReceiverSecret {
  kid: string;
  secret: string;
  createdAt?: string | Date | undefined;
  retiredAt?: string | Date | undefined;
}

/** Secrets as a list (with dates, for rotation) or a plain map kid -> secret (no expiry). */
export type ReceiverSecrets = readonly ReceiverSecret[] | Readonly<Record<string, string>>;

/** Fetch `Headers`, or a plain object such as Node's `req.headers` (names in any case). */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Epoch seconds; defaults to the wall clock. */
  nowSeconds?: number | undefined;
  /** Largest accepted distance between now and X-Webhook-Timestamp, either way (default 300). */
  toleranceSeconds?: number | undefined;
  /** How long a superseded secret keeps verifying (default 86400). */
  overlapSeconds?: number | undefined;
}

/** The event envelope (spec, Events). Fields may be added under v1. */
export interface WebhookEnvelope<D extends object = Record<string, unknown>> {
  id: string;
  /** One of the spec's event types, e.g. "wallet_credit.completed". */
  type: string;
  occurredAt: string;
  /** `<resource uid>:<event type>:<sequence>`: deduplicate on it, delivery is at least once. */
  dedupKey: string;
  data: D;
  apiVersion: string;
}

const toleranceSecondsDefault = 300;
const overlapSecondsDefault = 86_400;
const encoder = new TextEncoder();

const fail = (reason: WebhookVerificationReason, message: string): never => {
  throw new WebhookVerificationError(reason, message);
};

/**
 * The signature the service sends: lower-case hex HMAC-SHA256 with the secret over the timestamp,
 * a dot and the raw body bytes.
 *
 * @example signWebhookPayload(secret, "1763812800", rawBody) // "b4834d4e..."
 */
export function signWebhookPayload(secret: string, timestamp: string, rawBody: string | Uint8Array): string {
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${timestamp}.`);
  const message = new Uint8Array(prefix.length + body.length);
  message.set(prefix);
  message.set(body, prefix.length);
  return bytesToHex(hmac(sha256, encoder.encode(secret), message));
}

/** Equality whose time depends only on the (public) length, never on where the inputs differ. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

function headerReader(headers: HeaderSource): (name: string) => string | undefined {
  if (typeof (headers as Headers).get === "function") {
    const h = headers as Headers;
    return (name) => h.get(name) ?? undefined;
  }
  const lower = new Map<string, string | readonly string[] | undefined>();
  for (const [k, v] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    lower.set(k.toLowerCase(), v);
  }
  return (name) => {
    const v = lower.get(name.toLowerCase());
    if (v === undefined || typeof v === "string") return v;
    if (v.length !== 1) return fail("malformed_header", `${name} appears ${v.length} times`);
    return v[0];
  };
}

/**
 * A secret's date in epoch ms, or null when none is given. A date given but not readable is the
 * receiver's mistake and throws (a `TypeError`, not a refusal of the delivery): read as absent, a
 * mistyped `retiredAt` would never retire the secret.
 */
const toMs = (d: string | Date | undefined, field: string, kid: string): number | null => {
  if (d === undefined) return null;
  const t = d instanceof Date ? d.getTime() : typeof d === "string" ? Date.parse(d) : Number.NaN;
  if (!Number.isFinite(t)) throw new TypeError(`verifyWebhook: secret ${kid}: ${field} is not a date`);
  return t;
};

/** An option that bounds time: a finite number from 0, or the default when absent. */
function secondsOption(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    // NaN would turn every comparison false and disable the check it sets: fail closed.
    throw new TypeError(`verifyWebhook: ${name} must be a finite number from 0`);
  }
  return value;
}

/** The secrets registered under `kid` that still verify at `nowMs`; throws when there are none. */
function secretsFor(secrets: ReceiverSecrets, kid: string, nowMs: number, overlapSeconds: number): string[] {
  if (!Array.isArray(secrets)) {
    const map = secrets as Readonly<Record<string, string>>;
    const s = Object.hasOwn(map, kid) ? map[kid] : undefined;
    return s === undefined ? fail("unknown_kid", "unknown X-Webhook-Key-Id") : [s];
  }
  // Every secret's dates are read, whichever kid this delivery names: a mistake in any of them
  // throws on the first delivery, not on the day its secret was meant to retire.
  const list = (secrets as readonly ReceiverSecret[]).map((s) => ({
    kid: s.kid,
    secret: s.secret,
    createdAt: toMs(s.createdAt, "createdAt", s.kid),
    retiredAt: toMs(s.retiredAt, "retiredAt", s.kid),
  }));
  const mine = list.filter((s) => s.kid === kid);
  if (mine.length === 0) fail("unknown_kid", "unknown X-Webhook-Key-Id");
  const live = mine.filter(({ createdAt, retiredAt }) => {
    if (retiredAt !== null && retiredAt <= nowMs) return false;
    if (createdAt === null) return true;
    const newer = list
      .map((o) => o.createdAt)
      .filter((t): t is number => t !== null && t > createdAt)
      .sort((a, b) => a - b)[0];
    return newer === undefined || nowMs < newer + overlapSeconds * 1000;
  });
  if (live.length === 0) fail("retired_kid", "X-Webhook-Key-Id names a retired secret");
  return live.map((s) => s.secret);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parseEnvelope(rawBody: string | Uint8Array): WebhookEnvelope {
  let text: string;
  try {
    text = typeof rawBody === "string" ? rawBody : new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
  } catch {
    return fail("malformed_body", "body is not UTF-8");
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return fail("malformed_body", "body is not JSON");
  }
  if (
    !isObject(v) ||
    typeof v.id !== "string" ||
    typeof v.type !== "string" ||
    typeof v.occurredAt !== "string" ||
    typeof v.dedupKey !== "string" ||
    typeof v.apiVersion !== "string" ||
    !isObject(v.data)
  ) {
    return fail("malformed_body", "body is not an event envelope");
  }
  return v as unknown as WebhookEnvelope;
}

/**
 * Verifies a delivery and returns its envelope; throws `WebhookVerificationError` otherwise.
 * Checks, in order: the signature headers are present, X-Webhook-Timestamp is within
 * `toleranceSeconds` of now (either way), X-Webhook-Key-Id names a secret that is still valid, the
 * signature over `timestamp.rawBody` matches (constant time), and the body is an envelope whose id
 * matches X-Webhook-Id. Pass the raw body exactly as received: a re-serialized body will not verify.
 *
 * Typed as a `WalletEvent`: `switch (event.type)` narrows `event.data` (the body's shape is the
 * service's; only the envelope's own fields are checked here). `verifyWebhook<D>` types `data`
 * as `D` instead.
 *
 * @example
 *   const event = verifyWebhook(rawBody, req.headers, [{ kid: "wh1", secret, createdAt }]);
 *   if (await seen(event.dedupKey)) return; // delivery is at least once
 *   if (event.type === "payout.failed") console.log(event.data.operation.uid);
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secrets: ReceiverSecrets,
  opts?: VerifyWebhookOptions,
): WalletEvent;
export function verifyWebhook<D extends object>(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secrets: ReceiverSecrets,
  opts?: VerifyWebhookOptions,
): WebhookEnvelope<D>;
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secrets: ReceiverSecrets,
  opts: VerifyWebhookOptions = {},
): WebhookEnvelope {
  const header = headerReader(headers);
  const nowSeconds = secondsOption(opts.nowSeconds, "nowSeconds", Date.now() / 1000);
  const toleranceSeconds = secondsOption(opts.toleranceSeconds, "toleranceSeconds", toleranceSecondsDefault);
  const overlapSeconds = secondsOption(opts.overlapSeconds, "overlapSeconds", overlapSecondsDefault);

  const timestamp = header("x-webhook-timestamp");
  const kid = header("x-webhook-key-id");
  const signature = header("x-webhook-signature");
  if (timestamp === undefined || kid === undefined || signature === undefined) {
    return fail(
      "missing_header",
      "X-Webhook-Timestamp, X-Webhook-Key-Id and X-Webhook-Signature are required",
    );
  }
  if (!/^\d{1,12}$/.test(timestamp))
    return fail("malformed_header", "X-Webhook-Timestamp is not epoch seconds");
  if (!/^[0-9a-fA-F]{64}$/.test(signature)) return fail("malformed_header", "X-Webhook-Signature is not hex");
  // In whole seconds, as the timestamp is: 300 s behind the current second is as fresh as 300 s ahead.
  if (Math.abs(Math.floor(nowSeconds) - Number(timestamp)) > toleranceSeconds) {
    return fail("stale_timestamp", "X-Webhook-Timestamp is outside the tolerance");
  }

  const candidates = secretsFor(secrets, kid, nowSeconds * 1000, overlapSeconds);
  const given = signature.toLowerCase();
  // Every candidate is compared (no early exit) so timing does not depend on which one matched.
  let ok = false;
  for (const secret of candidates) {
    ok = constantTimeEqual(signWebhookPayload(secret, timestamp, rawBody), given) || ok;
  }
  if (!ok) return fail("bad_signature", "signature does not match");

  const envelope = parseEnvelope(rawBody);
  const id = header("x-webhook-id");
  if (id !== undefined && id !== envelope.id)
    return fail("id_mismatch", "X-Webhook-Id differs from the body's id");
  return envelope;
}
