import { readFileSync } from "node:fs";
import { DomainError } from "@wallet/ledger-core";
import { createMemoryStore } from "@wallet/ledger-core/memory";
import { describe, expect, it } from "vitest";
import {
  addTenantWebhookSecret,
  classifyAttempt,
  defaultRetryScheduleSeconds,
  planAttemptResult,
  rotateWebhookSecret,
  secretValidUntil,
  signaturesEqual,
  signingSecretOf,
  signsFromOf,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from "../src/index.js";
import { tenantFixture } from "./support/fixtures.js";

interface Vector {
  secret: string;
  cases: { xWebhookTimestamp: string; rawBody: string; signature: string }[];
}
const vector = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/webhook-signature.json", import.meta.url), "utf8"),
) as Vector;
const vcase = vector.cases[0]!;
const ts = Number(vcase.xWebhookTimestamp);

const headersFor = (body: string, secret: string, kid: string, timestamp: number, id = "evt_01") => ({
  "x-webhook-id": id,
  "x-webhook-timestamp": String(timestamp),
  "x-webhook-key-id": kid,
  "x-webhook-signature": signWebhook(secret, timestamp, body),
});

function reasonOf(fn: () => unknown): WebhookVerificationReason {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WebhookVerificationError);
    return (e as WebhookVerificationError).reason;
  }
  throw new Error("expected verification to fail");
}

describe("webhook signature", () => {
  it("reproduces the vector exactly", () => {
    expect(vector.cases.length).toBeGreaterThan(0);
    for (const c of vector.cases) {
      expect(signWebhook(vector.secret, c.xWebhookTimestamp, c.rawBody)).toBe(c.signature);
      expect(
        signWebhook(vector.secret, Number(c.xWebhookTimestamp), new TextEncoder().encode(c.rawBody)),
      ).toBe(c.signature);
    }
  });

  it("compares signatures by value, refusing different lengths", () => {
    expect(signaturesEqual(vcase.signature, vcase.signature)).toBe(true);
    expect(signaturesEqual(vcase.signature, `${vcase.signature.slice(0, -1)}0`)).toBe(
      vcase.signature.endsWith("0"),
    );
    expect(signaturesEqual(vcase.signature, vcase.signature.slice(0, -2))).toBe(false);
  });
});

describe("verifyWebhook", () => {
  const secrets = { wh1: vector.secret };
  const good = {
    "X-Webhook-Timestamp": vcase.xWebhookTimestamp,
    "X-Webhook-Key-Id": "wh1",
    "X-Webhook-Signature": vcase.signature,
    "X-Webhook-Id": "evt_01",
  };

  it("accepts the vector and returns the envelope, from a record, Headers or bytes", () => {
    const env = verifyWebhook(vcase.rawBody, good, secrets, { nowSeconds: ts });
    expect(env).toEqual(JSON.parse(vcase.rawBody));
    expect(env.dedupKey).toBe("op_01:wallet_credit.completed:1");
    expect(verifyWebhook(vcase.rawBody, new Headers(good), secrets, { nowSeconds: ts }).id).toBe("evt_01");
    const bytes = new TextEncoder().encode(vcase.rawBody);
    expect(verifyWebhook(bytes, good, [{ kid: "wh1", secret: vector.secret }], { nowSeconds: ts }).type).toBe(
      "wallet_credit.completed",
    );
    // Node's req.headers: lower-case names, values possibly in one-element arrays.
    const nodeStyle = Object.fromEntries(Object.entries(good).map(([k, v]) => [k.toLowerCase(), [v]]));
    expect(verifyWebhook(vcase.rawBody, nodeStyle, secrets, { nowSeconds: ts }).id).toBe("evt_01");
  });

  it("refuses a bad signature, a tampered body and a wrong kid", () => {
    const flipped = vcase.signature.replace(/^./, (c) => (c === "a" ? "b" : "a"));
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "X-Webhook-Signature": flipped }, secrets, {
          nowSeconds: ts,
        }),
      ),
    ).toBe("bad_signature");
    const tampered = vcase.rawBody.replace('"uid":"op_01"', '"uid":"op_02"');
    expect(tampered).not.toBe(vcase.rawBody);
    expect(reasonOf(() => verifyWebhook(tampered, good, secrets, { nowSeconds: ts }))).toBe("bad_signature");
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, good, { wh1: "another-secret-of-enough-length" }, { nowSeconds: ts }),
      ),
    ).toBe("bad_signature");
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "X-Webhook-Key-Id": "wh9" }, secrets, { nowSeconds: ts }),
      ),
    ).toBe("unknown_kid");
    // A kid named like an Object prototype member is still unknown.
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "X-Webhook-Key-Id": "constructor" }, secrets, {
          nowSeconds: ts,
        }),
      ),
    ).toBe("unknown_kid");
  });

  it("accepts a timestamp within 300 s either way and refuses beyond", () => {
    for (const drift of [-300, 0, 300]) {
      expect(verifyWebhook(vcase.rawBody, good, secrets, { nowSeconds: ts + drift }).id).toBe("evt_01");
    }
    for (const drift of [-301, 301, 86_400]) {
      expect(reasonOf(() => verifyWebhook(vcase.rawBody, good, secrets, { nowSeconds: ts + drift }))).toBe(
        "stale_timestamp",
      );
    }
    expect(
      verifyWebhook(vcase.rawBody, good, secrets, { nowSeconds: ts + 400, toleranceSeconds: 500 }).id,
    ).toBe("evt_01");
    // The default "now" is the wall clock; the vector is from 2025, far outside the window.
    expect(reasonOf(() => verifyWebhook(vcase.rawBody, good, secrets))).toBe("stale_timestamp");
  });

  it("refuses missing or malformed headers, a non-envelope body and a mismatched X-Webhook-Id", () => {
    const { "X-Webhook-Signature": _, ...noSig } = good;
    expect(reasonOf(() => verifyWebhook(vcase.rawBody, noSig, secrets, { nowSeconds: ts }))).toBe(
      "missing_header",
    );
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "X-Webhook-Timestamp": "17638128e2" }, secrets, {
          nowSeconds: ts,
        }),
      ),
    ).toBe("malformed_header");
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "X-Webhook-Signature": "zz" }, secrets, { nowSeconds: ts }),
      ),
    ).toBe("malformed_header");
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "x-webhook-key-id": ["wh1", "wh2"] }, secrets, {
          nowSeconds: ts,
        }),
      ),
    ).toBe("malformed_header");
    const notJson = "not json";
    expect(
      reasonOf(() =>
        verifyWebhook(notJson, headersFor(notJson, vector.secret, "wh1", ts), secrets, { nowSeconds: ts }),
      ),
    ).toBe("malformed_body");
    const notEnvelope = '{"id":"evt_01"}';
    expect(
      reasonOf(() =>
        verifyWebhook(notEnvelope, headersFor(notEnvelope, vector.secret, "wh1", ts), secrets, {
          nowSeconds: ts,
        }),
      ),
    ).toBe("malformed_body");
    expect(
      reasonOf(() =>
        verifyWebhook(vcase.rawBody, { ...good, "X-Webhook-Id": "evt_02" }, secrets, { nowSeconds: ts }),
      ),
    ).toBe("id_mismatch");
  });

  it("keeps an old kid working for 24 h after the next secret was created, not after", () => {
    const rotatedAt = Date.parse("2026-11-22T10:00:00.000Z") / 1000;
    const list = [
      { kid: "old", secret: "old-secret-0123456789", createdAt: "2026-01-01T00:00:00.000Z" },
      { kid: "new", secret: "new-secret-0123456789", createdAt: new Date(rotatedAt * 1000) },
    ];
    const body = vcase.rawBody;
    const check = (kid: "old" | "new", now: number) =>
      verifyWebhook(
        body,
        headersFor(body, kid === "old" ? list[0]!.secret : list[1]!.secret, kid, now),
        list,
        {
          nowSeconds: now,
        },
      );
    expect(check("old", rotatedAt - 10).id).toBe("evt_01");
    expect(check("old", rotatedAt + 86_399).id).toBe("evt_01");
    expect(reasonOf(() => check("old", rotatedAt + 86_400))).toBe("retired_kid");
    expect(reasonOf(() => check("old", rotatedAt + 90_000))).toBe("retired_kid");
    expect(check("new", rotatedAt + 90_000).id).toBe("evt_01");
    // The service's last delivery with the old secret is signed 300 s before its end (the signer
    // switches then), so it verifies for as long as its timestamp is fresh.
    const lastOld = headersFor(body, list[0]!.secret, "old", rotatedAt + 86_100 - 1);
    expect(verifyWebhook(body, lastOld, list, { nowSeconds: rotatedAt + 86_100 + 290 }).id).toBe("evt_01");
    // Judged at the receiver's clock: no timestamp, back-dated or not, stretches the old secret.
    const backDated = headersFor(body, list[0]!.secret, "old", rotatedAt + 86_390);
    expect(reasonOf(() => verifyWebhook(body, backDated, list, { nowSeconds: rotatedAt + 86_405 }))).toBe(
      "retired_kid",
    );
    // An explicit retiredAt ends a secret too.
    const retired = [{ ...list[1]!, retiredAt: new Date((rotatedAt + 100) * 1000).toISOString() }];
    expect(
      reasonOf(() =>
        verifyWebhook(body, headersFor(body, list[1]!.secret, "new", rotatedAt + 100), retired, {
          nowSeconds: rotatedAt + 100,
        }),
      ),
    ).toBe("retired_kid");
  });
});

describe("secret rotation", () => {
  const base = tenantFixture("acme", "http://127.0.0.1:9/hooks").webhook;

  it("adds the new secret, which signs once the old one's 24 h overlap ends, without touching the input", () => {
    const before = structuredClone(base);
    const next = rotateWebhookSecret(base, {
      kid: "wh2",
      secret: "s2-0123456789abcdef",
      createdAt: "2026-11-22T10:00:00.000Z",
    });
    expect(base).toEqual(before);
    expect(next.secrets.map((s) => s.kid)).toEqual(["wh1", "wh2"]);
    // The old kid keeps signing for the overlap: a receiver has a day to install the new secret.
    expect(signingSecretOf(next, new Date("2026-11-22T10:00:00.000Z"))?.kid).toBe("wh1");
    expect(signingSecretOf(next, new Date("2026-11-23T09:54:59.999Z"))?.kid).toBe("wh1");
    // The signer changes 300 s (the receivers' tolerance) before the old secret stops verifying,
    // so its last deliveries are still fresh when it ends.
    expect(signingSecretOf(next, new Date("2026-11-23T09:55:00.000Z"))?.kid).toBe("wh2");
    expect(secretValidUntil(next.secrets).get("wh1")).toEqual(new Date("2026-11-23T10:00:00.000Z"));
    expect(signsFromOf(next, "wh2")).toEqual(new Date("2026-11-23T09:55:00.000Z"));
    // A rotation marked immediate (a leaked secret) signs from its creation.
    const immediate = rotateWebhookSecret(base, {
      kid: "wh2",
      secret: "s2-0123456789abcdef",
      createdAt: "2026-11-22T10:00:00.000Z",
      signsFrom: "2026-11-22T10:00:00.000Z",
    });
    expect(signingSecretOf(immediate, new Date("2026-11-22T10:00:00.000Z"))?.kid).toBe("wh2");
    expect(signingSecretOf(immediate, new Date("2026-11-22T09:59:59.999Z"))?.kid).toBe("wh1");
    // A second rotation within the overlap: each secret signs in turn, a day after its creation.
    const third = rotateWebhookSecret(next, {
      kid: "wh3",
      secret: "s3-0123456789abcdef",
      createdAt: "2026-11-22T12:00:00.000Z",
    });
    expect(signingSecretOf(third, new Date("2026-11-23T11:54:59.999Z"))?.kid).toBe("wh2");
    expect(signingSecretOf(third, new Date("2026-11-23T11:55:00.000Z"))?.kid).toBe("wh3");
    // A tenant's first secret signs from its creation; none is null.
    const first = {
      secrets: [{ kid: "only", secret: "s0-0123456789abcdef", createdAt: "2026-11-22T10:00:00.000Z" }],
    };
    expect(signingSecretOf(first, new Date("2026-11-22T10:00:00.000Z"))?.kid).toBe("only");
    expect(signingSecretOf({ secrets: [] }, new Date())).toBeNull();
  });

  it("drops secrets whose 24 h overlap had ended, and refuses a reused kid or an older date", () => {
    const two = rotateWebhookSecret(base, {
      kid: "wh2",
      secret: "s2-0123456789abcdef",
      createdAt: "2026-11-22T10:00:00.000Z",
    });
    const withinDay = rotateWebhookSecret(two, {
      kid: "wh3",
      secret: "s3-0123456789abcdef",
      createdAt: "2026-11-23T09:00:00.000Z",
    });
    expect(withinDay.secrets.map((s) => s.kid)).toEqual(["wh1", "wh2", "wh3"]);
    const dayLater = rotateWebhookSecret(two, {
      kid: "wh3",
      secret: "s3-0123456789abcdef",
      createdAt: "2026-11-23T10:00:00.000Z",
    });
    expect(dayLater.secrets.map((s) => s.kid)).toEqual(["wh2", "wh3"]);
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as DomainError).code;
      }
      return null;
    };
    expect(
      refusal(() =>
        rotateWebhookSecret(two, {
          kid: "wh2",
          secret: "s9-0123456789abcdef",
          createdAt: "2026-12-01T00:00:00.000Z",
        }),
      ),
    ).toBe("Conflict");
    expect(
      refusal(() =>
        rotateWebhookSecret(two, {
          kid: "wh9",
          secret: "s9-0123456789abcdef",
          createdAt: "2026-11-22T09:00:00.000Z",
        }),
      ),
    ).toBe("InvalidRequest");
    expect(
      refusal(() =>
        rotateWebhookSecret(two, { kid: "wh9", secret: "short", createdAt: "2026-12-01T00:00:00.000Z" }),
      ),
    ).toBe("InvalidRequest");
    expect(
      refusal(() =>
        rotateWebhookSecret(two, {
          kid: "bad kid",
          secret: "s9-0123456789abcdef",
          createdAt: "2026-12-01T00:00:00.000Z",
        }),
      ),
    ).toBe("InvalidRequest");
    expect(() =>
      rotateWebhookSecret(two, {
        kid: "wh2",
        secret: "s9-0123456789abcdef",
        createdAt: "2026-12-01T00:00:00.000Z",
      }),
    ).toThrow(DomainError);
  });
});

describe("adding a tenant's webhook secret", () => {
  it("stores a random secret that signs once the old one's overlap ends", async () => {
    const { uow } = createMemoryStore();
    await uow.run((tx) => tx.tenants.upsert(tenantFixture("acme", "http://127.0.0.1:9/hooks")));
    const now = new Date("2026-11-22T10:00:00.000Z");
    const created = await addTenantWebhookSecret(uow, "acme", now);
    expect(created.createdAt).toBe(now.toISOString());
    expect(created.kid).toMatch(/^wh_[0-9a-f]{12}$/);
    expect(created.secret.length).toBeGreaterThanOrEqual(40);
    const stored = await uow.run((tx) => tx.tenants.get("acme"));
    expect(stored?.webhook.secrets.map((s) => s.kid)).toEqual(["wh1", created.kid]);
    expect(signingSecretOf(stored!.webhook, now)?.kid).toBe("wh1");
    expect(signingSecretOf(stored!.webhook, new Date(now.getTime() + 86_400_000))).toEqual(created);
    const later = new Date(now.getTime() + 1000);
    const another = await addTenantWebhookSecret(uow, "acme", later, { immediate: true });
    expect(another.secret).not.toBe(created.secret);
    // Immediate (a leaked secret): it signs at once, skipping the one created before it.
    const rotated = (await uow.run((tx) => tx.tenants.get("acme")))!.webhook;
    expect(signingSecretOf(rotated, later)?.kid).toBe(another.kid);
    expect(signsFromOf(rotated, another.kid)).toEqual(later);
    await expect(addTenantWebhookSecret(uow, "nobody", now)).rejects.toMatchObject({ code: "NotFound" });
  });
});

describe("retry policy", () => {
  it("delivers on 2xx, retries 5xx, 408, 429 and network trouble, gives up on other answers", () => {
    for (const status of [200, 201, 204, 299]) expect(classifyAttempt({ status })).toBe("delivered");
    for (const status of [500, 502, 503, 504, 408, 429])
      expect(classifyAttempt({ status })).toBe("retryable");
    for (const status of [400, 401, 403, 404, 409, 410, 422, 301, 302, 304]) {
      expect(classifyAttempt({ status })).toBe("permanent");
    }
    expect(classifyAttempt({ error: "timeout" })).toBe("retryable");
    expect(classifyAttempt({ error: "connection" })).toBe("retryable");
  });

  it("records a connection error with its code, so a refused port and an unknown name differ", () => {
    const at = new Date("2026-11-22T10:00:00.000Z");
    const errorOf = (r: Parameters<typeof planAttemptResult>[0]) =>
      planAttemptResult(r, 1, defaultRetryScheduleSeconds, at).error;
    expect(errorOf({ error: "connection", detail: "ECONNREFUSED" })).toBe("connection (ECONNREFUSED)");
    expect(errorOf({ error: "connection", detail: "ENOTFOUND" })).toBe("connection (ENOTFOUND)");
    expect(errorOf({ error: "connection" })).toBe("connection");
    expect(errorOf({ error: "timeout" })).toBe("timeout");
    expect(errorOf({ status: 503 })).toBe("HTTP 503");
  });

  it("follows the spec's schedule and fails after the 8th attempt", () => {
    const at = new Date("2026-11-22T10:00:00.000Z");
    const waits = [60, 300, 1800, 7200, 43200, 43200, 43200];
    waits.forEach((wait, i) => {
      const r = planAttemptResult({ status: 503 }, i + 1, defaultRetryScheduleSeconds, at);
      expect(r).toMatchObject({ outcome: "retry", statusCode: 503, error: "HTTP 503", attempted: true });
      expect(Date.parse(r.nextAttemptAt!) - at.getTime()).toBe(wait * 1000);
    });
    expect(planAttemptResult({ error: "timeout" }, 8, defaultRetryScheduleSeconds, at)).toMatchObject({
      outcome: "failed",
      error: "timeout",
      statusCode: null,
    });
    expect(planAttemptResult({ status: 404 }, 1, defaultRetryScheduleSeconds, at).outcome).toBe("failed");
    expect(planAttemptResult({ status: 204 }, 3, defaultRetryScheduleSeconds, at)).toMatchObject({
      outcome: "delivered",
      error: null,
      statusCode: 204,
    });
  });
});
