import { generateKeyPairSync } from "node:crypto";
import type { Tenant, WebhookConfig, WebhookSecret } from "@wallet/ledger-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ADMIN,
  createHarness,
  type Harness,
  newKey,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  sha256Hex,
  TENANT,
} from "./support/fixture.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

const WEBHOOK: Tenant["webhook"] = {
  url: "http://127.0.0.1:9/hooks",
  enabled: true,
  events: [],
  secrets: [{ kid: "wh1", secret: "webhook-secret-for-tests-only", createdAt: "2026-01-01T00:00:00.000Z" }],
};

/** A rotation hook as the server wires it, minus the randomness (the kid counts up). */
function countingRotation() {
  let n = 0;
  return (webhook: WebhookConfig, now: Date, options: { immediate: boolean }) => {
    n++;
    const secret: WebhookSecret = {
      kid: `wh-rot-${n}`,
      secret: `rotated-secret-${n}-0123456789`,
      createdAt: now.toISOString(),
    };
    // The rule itself is @wallet/webhooks' (tested there); this stand-in shows what reaches it.
    const signsFrom = options.immediate ? now : new Date(now.getTime() + 86_100_000);
    return { webhook: { ...webhook, secrets: [...webhook.secrets, secret] }, secret, signsFrom };
  };
}

describe.each(storeKinds())("operator tenant and webhook routes on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow, { rotateWebhookSecret: countingRotation() });
    acme = await seedTenant(store.uow, { id: "acme", webhook: WEBHOOK });
  });
  afterEach(async () => {
    await store.close();
  });

  const listOperations = (opts: Parameters<Harness["call"]>[3] = {}) =>
    h.call(acme, "GET", `${TENANT}/operations`, opts);

  it("suspends and resumes a tenant, changes its scopes, and never shows a secret", async () => {
    expect((await listOperations()).status).toBe(200);

    const suspended = await h.admin("PATCH", `${ADMIN}/tenants/acme`, { status: "suspended" });
    expect(suspended.status).toBe(200);
    const text = await suspended.text();
    expect(text).not.toContain("webhook-secret-for-tests-only");
    expect(text).not.toContain(acme.apiKey);
    const view = JSON.parse(text);
    expect(view).toMatchObject({
      id: "acme",
      status: "suspended",
      webhook: { url: WEBHOOK.url, enabled: true, secretKids: [{ kid: "wh1" }] },
      signingKeys: [{ kid: "k1", status: "active" }],
    });
    expect(view.webhook.secrets).toBeUndefined();
    expect((await listOperations()).status).toBe(401);

    const resumed = await h.admin("PATCH", `${ADMIN}/tenants/acme`, {
      status: "active",
      scopes: ["customers:read"],
      ipAllowlist: ["127.0.0.1", "10.0.0.0/8"],
      rateLimit: { perSecond: 5, burst: 7 },
    });
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({
      status: "active",
      scopes: ["customers:read"],
      ipAllowlist: ["127.0.0.1/32", "10.0.0.0/8"],
      rateLimit: { perSecond: 5, burst: 7 },
    });
    expect((await listOperations()).status).toBe(403);
    // The allowlist applies at once too.
    expect((await listOperations({ remoteAddress: "192.0.2.1" })).status).toBe(401);

    await h.admin("PATCH", `${ADMIN}/tenants/acme`, { scopes: ["operations:read"], ipAllowlist: [] });
    expect((await listOperations({ remoteAddress: "192.0.2.1" })).status).toBe(200);
    const stored = await store.uow.run((tx) => tx.tenants.get("acme"));
    expect(stored).toMatchObject({ status: "active", scopes: ["operations:read"], ipAllowlist: [] });
    expect(stored?.webhook.secrets).toEqual(WEBHOOK.secrets);
  });

  it("validates a tenant patch (400) before the lookup (404)", async () => {
    for (const body of [
      { status: "closed" },
      { scopes: ["customers:read", "customers:read"] },
      { scopes: ["root"] },
      { ipAllowlist: ["10.0.0.0/33"] },
      { rateLimit: { perSecond: 0, burst: 1 } },
      { rateLimit: { perSecond: 1.5, burst: 1 } },
      { name: "Renamed" },
    ]) {
      const res = await h.admin("PATCH", `${ADMIN}/tenants/nobody`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await h.admin("PATCH", `${ADMIN}/tenants/nobody`, { status: "active" })).status).toBe(404);
  });

  it("rotates signing keys: both kids work, a revoked kid fails at once", async () => {
    const k2 = newKey("k2");
    const added = await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys`, {
      kid: "k2",
      publicKeyPem: k2.publicKeyPem,
    });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({
      tenantId: "acme",
      kid: "k2",
      publicKeyPem: k2.publicKeyPem,
      status: "active",
      expiresAt: null,
      createdAt: expect.any(String),
    });
    expect((await listOperations()).status).toBe(200);
    expect((await listOperations({ key: k2 })).status).toBe(200);

    const again = await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys`, {
      kid: "k2",
      publicKeyPem: newKey("k2").publicKeyPem,
    });
    expect(again.status).toBe(409);

    const revoked = await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys/k1/revoke`);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ kid: "k1", status: "revoked" });
    expect((await listOperations()).status).toBe(401);
    expect((await listOperations({ key: k2 })).status).toBe(200);
    // Revoking twice answers the same; a revoked kid is never registered again.
    expect((await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys/k1/revoke`)).status).toBe(200);
    const reuse = await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys`, {
      kid: "k1",
      publicKeyPem: acme.key.publicKeyPem,
    });
    expect(reuse.status).toBe(409);
    expect((await listOperations()).status).toBe(401);

    expect((await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys/k9/revoke`)).status).toBe(404);
    expect((await h.admin("POST", `${ADMIN}/tenants/nobody/signing-keys/k1/revoke`)).status).toBe(404);
  });

  it("rotates API keys: a new key shown once works beside the old; a revoked key fails at once", async () => {
    const created = await h.admin("POST", `${ADMIN}/tenants/acme/api-keys`);
    expect(created.status).toBe(201);
    const fresh = (await created.json()) as { tenantId: string; key: string; sha256: string; status: string };
    expect(fresh).toEqual({
      tenantId: "acme",
      key: expect.stringMatching(/^wk_[A-Za-z0-9_-]{43}$/),
      sha256: sha256Hex(fresh.key),
      status: "active",
    });
    expect((await listOperations()).status).toBe(200);
    expect((await listOperations({ apiKey: fresh.key })).status).toBe(200);

    const oldSha = sha256Hex(acme.apiKey);
    const revoked = await h.admin("POST", `${ADMIN}/tenants/acme/api-keys/${oldSha}/revoke`);
    expect(revoked.status).toBe(200);
    const view = await revoked.json();
    expect(view).toEqual({
      tenantId: "acme",
      sha256: oldSha,
      status: "revoked",
      revokedAt: expect.any(String),
    });
    expect((await listOperations()).status).toBe(401);
    expect((await listOperations({ apiKey: fresh.key })).status).toBe(200);
    // Revoking twice answers the same, first time kept; the key stays refused.
    h.clock.advanceMs(5_000);
    const again = await h.admin("POST", `${ADMIN}/tenants/acme/api-keys/${oldSha}/revoke`);
    expect([again.status, await again.json()]).toEqual([200, view]);
    expect((await listOperations()).status).toBe(401);

    // Another tenant's key, an unknown key or tenant: 404; a malformed hash: 400.
    const globex = await seedTenant(store.uow, { id: "globex" });
    const strangers = [
      `${ADMIN}/tenants/acme/api-keys/${sha256Hex(globex.apiKey)}/revoke`,
      `${ADMIN}/tenants/acme/api-keys/${"0".repeat(64)}/revoke`,
      `${ADMIN}/tenants/nobody/api-keys/${oldSha}/revoke`,
    ];
    for (const path of strangers) expect([path, (await h.admin("POST", path)).status]).toEqual([path, 404]);
    expect((await h.call(globex, "GET", `${TENANT}/operations`)).status).toBe(200);
    expect(
      (await h.admin("POST", `${ADMIN}/tenants/acme/api-keys/${oldSha.toUpperCase()}/revoke`)).status,
    ).toBe(400);
    expect((await h.admin("POST", `${ADMIN}/tenants/nobody/api-keys`)).status).toBe(404);
  });

  it("accepts only an Ed25519 SPKI public key, with a future expiry", async () => {
    const k3 = newKey("k3");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 })
      .publicKey.export({ type: "spki", format: "pem" })
      .toString();
    for (const body of [
      { kid: "k3", publicKeyPem: rsa },
      { kid: "k3", publicKeyPem: k3.privateKeyPem },
      { kid: "k3", publicKeyPem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----" },
      { kid: "bad kid", publicKeyPem: k3.publicKeyPem },
      { kid: "k3", publicKeyPem: k3.publicKeyPem, expiresAt: "2000-01-01T00:00:00.000Z" },
      { kid: "k3", publicKeyPem: k3.publicKeyPem, extra: true },
    ]) {
      const res = await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(await res.text()).not.toContain("PRIVATE KEY");
    }
    const expiresAt = "2027-01-01T00:00:00Z";
    const ok = await h.admin("POST", `${ADMIN}/tenants/acme/signing-keys`, {
      kid: "k3",
      publicKeyPem: `\n${k3.publicKeyPem}\n`,
      expiresAt,
    });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({
      expiresAt: "2027-01-01T00:00:00.000Z",
      publicKeyPem: k3.publicKeyPem,
    });
    expect((await listOperations({ key: k3 })).status).toBe(200);
    expect(
      (
        await h.admin("POST", `${ADMIN}/tenants/nobody/signing-keys`, {
          kid: "k3",
          publicKeyPem: k3.publicKeyPem,
        })
      ).status,
    ).toBe(404);
  });

  it("replaces the webhook config and keeps its secrets; rotates a secret shown once", async () => {
    const put = await h.admin("PUT", `${ADMIN}/tenants/acme/webhook`, {
      url: "https://hooks.acme.example/wallet",
      events: ["wallet_credit.completed", "payout.failed"],
      enabled: false,
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({
      url: "https://hooks.acme.example/wallet",
      enabled: false,
      events: ["wallet_credit.completed", "payout.failed"],
      secretKids: [{ kid: "wh1", createdAt: WEBHOOK.secrets[0]?.createdAt }],
    });
    for (const body of [
      { url: "https://x.example", events: ["wallet.created"], enabled: true },
      { url: "https://x.example", events: ["payout.failed", "payout.failed"], enabled: true },
      { url: "ftp://x.example", events: [], enabled: true },
      { url: null, events: [], enabled: true },
      { url: "https://x.example", events: [] },
    ]) {
      expect((await h.admin("PUT", `${ADMIN}/tenants/acme/webhook`, body)).status, JSON.stringify(body)).toBe(
        400,
      );
    }
    expect(
      (await h.admin("PUT", `${ADMIN}/tenants/nobody/webhook`, { url: null, events: [], enabled: false }))
        .status,
    ).toBe(404);

    const rotated = await h.admin("POST", `${ADMIN}/tenants/acme/webhook/secrets`);
    expect(rotated.status).toBe(201);
    const { signsFrom, ...secret } = (await rotated.json()) as {
      kid: string;
      secret: string;
      createdAt: string;
      signsFrom: string;
    };
    expect(secret).toEqual({
      kid: "wh-rot-1",
      secret: "rotated-secret-1-0123456789",
      createdAt: expect.any(String),
    });
    // When it takes over signing: the end of the old one's overlap, or at once when asked.
    expect(Date.parse(signsFrom) - Date.parse(secret.createdAt)).toBe(86_100_000);
    const immediate = await h.admin("POST", `${ADMIN}/tenants/acme/webhook/secrets`, { immediate: true });
    expect(immediate.status).toBe(201);
    const now = (await immediate.json()) as {
      kid: string;
      secret: string;
      createdAt: string;
      signsFrom: string;
    };
    expect(now.signsFrom).toBe(now.createdAt);
    for (const body of [{ immediate: "yes" }, { immediate: true, label: "x" }, []]) {
      expect((await h.admin("POST", `${ADMIN}/tenants/acme/webhook/secrets`, body)).status).toBe(400);
    }
    const stored = await store.uow.run((tx) => tx.tenants.get("acme"));
    expect(stored?.webhook).toMatchObject({
      url: "https://hooks.acme.example/wallet",
      enabled: false,
      secrets: [WEBHOOK.secrets[0], secret, { kid: now.kid, secret: now.secret, createdAt: now.createdAt }],
    });
    expect((await h.admin("POST", `${ADMIN}/tenants/nobody/webhook/secrets`)).status).toBe(404);

    const without = createHarness(store.uow);
    const unavailable = await without.admin("POST", `${ADMIN}/tenants/acme/webhook/secrets`);
    expect(unavailable.status).toBe(503);
  });

  it("refuses to enable a webhook without a signing secret (409, nothing stored); disabled is fine", async () => {
    await seedTenant(store.uow, { id: "bare" });
    const storedWebhook = async () => (await store.uow.run((tx) => tx.tenants.get("bare")))?.webhook;
    const before = await storedWebhook();
    expect(before?.secrets).toEqual([]);

    const enable = { url: "https://hooks.bare.example/wallet", events: [], enabled: true };
    const refused = await h.admin("PUT", `${ADMIN}/tenants/bare/webhook`, enable);
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: string; message: string };
    expect(body).toEqual({ error: "Conflict", message: expect.any(String) });
    expect(body.message).toContain("POST /tenants/{tenantId}/webhook/secrets");
    expect(await storedWebhook()).toEqual(before);

    // Validation still comes first (400), and an unknown tenant is still 404.
    expect((await h.admin("PUT", `${ADMIN}/tenants/bare/webhook`, { ...enable, url: null })).status).toBe(
      400,
    );
    expect((await h.admin("PUT", `${ADMIN}/tenants/nobody/webhook`, enable)).status).toBe(404);

    // Disabled without a secret: allowed, and stored.
    const disabled = await h.admin("PUT", `${ADMIN}/tenants/bare/webhook`, {
      url: "https://hooks.bare.example/wallet",
      events: ["payout.failed"],
      enabled: false,
    });
    expect(disabled.status).toBe(200);
    const afterDisabled = await storedWebhook();
    expect(afterDisabled).toEqual({
      url: "https://hooks.bare.example/wallet",
      enabled: false,
      events: ["payout.failed"],
      secrets: [],
    });
    expect((await h.admin("PUT", `${ADMIN}/tenants/bare/webhook`, enable)).status).toBe(409);
    expect(await storedWebhook()).toEqual(afterDisabled);

    // Once a secret exists, enabling works.
    expect((await h.admin("POST", `${ADMIN}/tenants/bare/webhook/secrets`)).status).toBe(201);
    const enabled = await h.admin("PUT", `${ADMIN}/tenants/bare/webhook`, enable);
    expect(enabled.status).toBe(200);
    expect(await enabled.json()).toMatchObject({ enabled: true, secretKids: [{ kid: "wh-rot-1" }] });
    expect(await storedWebhook()).toMatchObject({ enabled: true, secrets: [{ kid: "wh-rot-1" }] });
  });

  it("lists deliveries and re-queues only a failed event", async () => {
    const onboarded = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(onboarded.status).toBe(201);
    const log = await h.admin("GET", `${ADMIN}/webhook-deliveries?tenantId=acme`);
    expect(log.status).toBe(200);
    const { data } = (await log.json()) as { data: Record<string, unknown>[] };
    expect(data.length).toBeGreaterThan(0);
    const event = data.find((d) => d.type === "customer.created");
    expect(event).toMatchObject({ attempts: 0, status: "pending", lastStatusCode: null, tenantId: "acme" });
    expect(typeof event?.dedupKey).toBe("string");
    const eventId = String(event?.eventId);
    expect(await (await h.admin("GET", `${ADMIN}/webhook-deliveries?tenantId=globex`)).json()).toEqual({
      data: [],
    });
    expect((await h.admin("GET", `${ADMIN}/webhook-deliveries?status=lost`)).status).toBe(400);
    expect((await h.admin("GET", `${ADMIN}/webhook-deliveries?limit=0`)).status).toBe(400);

    const notFailed = await h.admin("POST", `${ADMIN}/webhook-events/${eventId}/retry`);
    expect(notFailed.status).toBe(409);
    expect((await h.admin("POST", `${ADMIN}/webhook-events/evt_unknown/retry`)).status).toBe(404);

    // Fail every pending event as a dispatcher would after a 400 from the receiver.
    const now = h.clock.now();
    await store.uow.run(async (tx) => {
      const leased = await tx.deliveries.leaseDue({
        nowIso: now.toISOString(),
        leaseUntilIso: new Date(now.getTime() + 60_000).toISOString(),
        leaseId: "lease-1",
        limit: 100,
        maxInFlightPerTenant: 100,
      });
      for (const d of leased) {
        await tx.deliveries.recordResult(d.eventId, d.leaseId, {
          outcome: "failed",
          attempted: true,
          statusCode: 400,
          error: "HTTP 400",
          atIso: now.toISOString(),
          nextAttemptAt: null,
        });
      }
    });
    const failed = await h.admin("GET", `${ADMIN}/webhook-deliveries?tenantId=acme&status=failed`);
    expect(((await failed.json()) as { data: unknown[] }).data).toContainEqual(
      expect.objectContaining({ eventId, status: "failed", attempts: 1, lastStatusCode: 400 }),
    );

    const retried = await h.admin("POST", `${ADMIN}/webhook-events/${eventId}/retry`);
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({
      eventId,
      status: "pending",
      attempts: 0,
      lastStatusCode: 400,
    });
    expect((await h.admin("POST", `${ADMIN}/webhook-events/${eventId}/retry`)).status).toBe(409);
  });
});
