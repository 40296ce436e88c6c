import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import * as server from "@wallet/webhooks";
import { describe, expect, expectTypeOf, it } from "vitest";
// The service's list, from its sources (the SDK depends on nothing of the server's).
import { eventTypes } from "../../ledger-core/src/events/model.js";
import {
  type HeaderSource,
  type Operation,
  type ReceiverSecrets,
  signWebhookPayload,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WalletEvent,
  WebhookVerificationError,
  walletEventTypes,
} from "../src/index.js";

// @wallet/webhooks re-exports this verifier; these cases pin its decisions (noble HMAC instead of
// node:crypto). It must sign the vector byte for byte and agree with the original on every case.

const vectors = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/webhook-signature.json", import.meta.url), "utf8"),
) as { secret: string; cases: Array<{ xWebhookTimestamp: string; rawBody: string; signature: string }> };
const vector = vectors.cases[0]!;
const ts = Number(vector.xWebhookTimestamp);

const headersFor = (body: string, secret: string, kid: string, timestamp: number, id = "evt_01") => ({
  "X-Webhook-Id": id,
  "X-Webhook-Timestamp": String(timestamp),
  "X-Webhook-Key-Id": kid,
  "X-Webhook-Signature": createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex"),
});

const good = headersFor(vector.rawBody, vectors.secret, "wh1", ts);

type Outcome = { id: string } | { reason: string };
const outcomeOf = (verify: () => { id: string }): Outcome => {
  try {
    return { id: verify().id };
  } catch (e) {
    if (e instanceof WebhookVerificationError || e instanceof server.WebhookVerificationError) {
      return { reason: e.reason };
    }
    throw e;
  }
};

const rotation: ReceiverSecrets = [
  { kid: "old", secret: "old-secret-0123456789", createdAt: "2026-01-01T00:00:00.000Z" },
  { kid: "new", secret: "new-secret-0123456789", createdAt: "2026-01-10T00:00:00.000Z" },
];
const day = Date.parse("2026-01-10T00:00:00.000Z") / 1000;
const otherBody = '{"id":"evt_9","type":"x","occurredAt":"t","dedupKey":"k","data":{},"apiVersion":"v1"}';

const cases: Array<{
  name: string;
  body: string | Uint8Array;
  headers: HeaderSource;
  secrets: ReceiverSecrets;
  opts: VerifyWebhookOptions;
  expected: Outcome;
}> = [
  {
    name: "the vector",
    body: vector.rawBody,
    headers: good,
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { id: "evt_01" },
  },
  {
    name: "bytes body, fetch Headers",
    body: new TextEncoder().encode(vector.rawBody),
    headers: new Headers(good),
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { id: "evt_01" },
  },
  {
    name: "upper-case hex",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Signature": vector.signature.toUpperCase() },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { id: "evt_01" },
  },
  {
    name: "tampered body",
    body: vector.rawBody.replace("op_01", "op_02"),
    headers: good,
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "bad_signature" },
  },
  {
    name: "wrong secret",
    body: vector.rawBody,
    headers: good,
    secrets: { wh1: "another-secret" },
    opts: { nowSeconds: ts },
    expected: { reason: "bad_signature" },
  },
  {
    name: "unknown kid",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Key-Id": "wh9" },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "unknown_kid" },
  },
  {
    name: "prototype kid",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Key-Id": "constructor" },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "unknown_kid" },
  },
  {
    name: "300 s late",
    body: vector.rawBody,
    headers: good,
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts + 300 },
    expected: { id: "evt_01" },
  },
  {
    name: "300 s late, within the current second (the skew is whole seconds, as the timestamp is)",
    body: vector.rawBody,
    headers: good,
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts + 300.999 },
    expected: { id: "evt_01" },
  },
  {
    name: "301 s late",
    body: vector.rawBody,
    headers: good,
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts + 301 },
    expected: { reason: "stale_timestamp" },
  },
  {
    name: "301 s early",
    body: vector.rawBody,
    headers: good,
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts - 301 },
    expected: { reason: "stale_timestamp" },
  },
  {
    name: "missing signature",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Signature": undefined },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "missing_header" },
  },
  {
    name: "timestamp not digits",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Timestamp": "17638128e2" },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "malformed_header" },
  },
  {
    name: "signature not hex",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Signature": "zz" },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "malformed_header" },
  },
  {
    name: "repeated header",
    body: vector.rawBody,
    headers: { ...good, "x-webhook-key-id": ["wh1", "wh2"] },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "malformed_header" },
  },
  {
    name: "id mismatch",
    body: vector.rawBody,
    headers: { ...good, "X-Webhook-Id": "evt_02" },
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "id_mismatch" },
  },
  {
    name: "not JSON",
    body: "not json",
    headers: headersFor("not json", vectors.secret, "wh1", ts),
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "malformed_body" },
  },
  {
    name: "not an envelope",
    body: "{}",
    headers: headersFor("{}", vectors.secret, "wh1", ts),
    secrets: { wh1: vectors.secret },
    opts: { nowSeconds: ts },
    expected: { reason: "malformed_body" },
  },
  {
    name: "old kid inside the 24 h overlap",
    body: otherBody,
    headers: headersFor(otherBody, "old-secret-0123456789", "old", day + 86_399, "evt_9"),
    secrets: rotation,
    opts: { nowSeconds: day + 86_399 },
    expected: { id: "evt_9" },
  },
  {
    name: "old kid after the overlap",
    body: otherBody,
    headers: headersFor(otherBody, "old-secret-0123456789", "old", day + 86_400, "evt_9"),
    secrets: rotation,
    opts: { nowSeconds: day + 86_400 },
    expected: { reason: "retired_kid" },
  },
  {
    name: "new kid",
    body: otherBody,
    headers: headersFor(otherBody, "new-secret-0123456789", "new", day + 86_400, "evt_9"),
    secrets: rotation,
    opts: { nowSeconds: day + 86_400 },
    expected: { id: "evt_9" },
  },
];

describe("verifyWebhook (SDK)", () => {
  it("signs the vector byte for byte", () => {
    expect(signWebhookPayload(vectors.secret, vector.xWebhookTimestamp, vector.rawBody)).toBe(
      vector.signature,
    );
    expect(
      signWebhookPayload(vectors.secret, vector.xWebhookTimestamp, new TextEncoder().encode(vector.rawBody)),
    ).toBe(vector.signature);
  });

  it.each(cases)(
    "$name: as expected, and as @wallet/webhooks decides",
    ({ body, headers, secrets, opts, expected }) => {
      const mine = outcomeOf(() => verifyWebhook(body, headers, secrets, opts));
      const theirs = outcomeOf(() => server.verifyWebhook(body, headers, secrets, opts));
      expect(mine).toEqual(expected);
      expect(theirs).toEqual(expected);
    },
  );

  it("fails closed on the receiver's own mistakes: a TypeError, never a delivery accepted", () => {
    const secret = vectors.secret;
    // NaN would make every comparison false: a 10-year-old delivery would verify.
    for (const opts of [
      { nowSeconds: ts, toleranceSeconds: Number.NaN },
      { nowSeconds: ts, toleranceSeconds: -1 },
      { nowSeconds: ts, overlapSeconds: Number.POSITIVE_INFINITY },
      { nowSeconds: Number.NaN },
    ]) {
      expect(() => verifyWebhook(vector.rawBody, good, { wh1: secret }, opts), JSON.stringify(opts)).toThrow(
        TypeError,
      );
    }
    // A retiredAt or createdAt that does not parse, on this kid's secret or another's.
    for (const secrets of [
      [{ kid: "wh1", secret, retiredAt: "2025-13-45" }],
      [{ kid: "wh1", secret, createdAt: "yesterday" }],
      [
        { kid: "wh1", secret },
        { kid: "wh0", secret: "old", retiredAt: new Date(Number.NaN) },
      ],
    ]) {
      expect(() => verifyWebhook(vector.rawBody, good, secrets, { nowSeconds: ts })).toThrow(
        /verifyWebhook: secret wh[01]: (retiredAt|createdAt) is not a date/,
      );
    }
    expect(
      verifyWebhook(vector.rawBody, good, { wh1: secret }, { nowSeconds: ts, toleranceSeconds: 0 }).id,
    ).toBe("evt_01");
  });

  it("returns the envelope typed by the caller", () => {
    const event = verifyWebhook<{ operation: { uid: string } }>(
      vector.rawBody,
      good,
      { wh1: vectors.secret },
      {
        nowSeconds: ts,
      },
    );
    expect(event.data.operation.uid).toBe("op_01");
    expect(event.dedupKey).toBe("op_01:wallet_credit.completed:1");
  });
});

describe("WalletEvent: the events typed by their type", () => {
  it("lists exactly the event types the service may send", () => {
    expect([...walletEventTypes]).toEqual([...eventTypes]);
  });

  it("narrows data by type, and verifyWebhook<D> still types data as D", () => {
    const secrets = { wh1: vectors.secret };
    const event = verifyWebhook(vector.rawBody, good, secrets, { nowSeconds: ts });
    expectTypeOf(event).toEqualTypeOf<WalletEvent>();
    if (event.type === "payout.failed") expectTypeOf(event.data.operation).toEqualTypeOf<Operation>();
    if (event.type === "customer.kyc_changed")
      expectTypeOf(event.data.customer.rejectionReason).toEqualTypeOf<string | null>();
    if (event.type === "mandate.expired") expectTypeOf(event.data.mandate.walletUid).toBeString();
    const custom = verifyWebhook<{ anything: number }>(vector.rawBody, good, secrets, { nowSeconds: ts });
    expectTypeOf(custom.data.anything).toBeNumber();
    expect(walletEventTypes).toContain(event.type);
  });
});
