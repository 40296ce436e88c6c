import { createHash, generateKeyPairSync } from "node:crypto";
import { createFixedClock, createMemoryStore } from "@wallet/ledger-core/memory";
import { describe, expect, it } from "vitest";
import { parseConfig, seedFromConfig } from "../src/config/index.js";
import { designExample, testPublicKeyPem } from "./fixtures.js";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const clock = createFixedClock("2026-03-01T08:00:00.000Z");

describe("seedFromConfig", () => {
  it("inserts a new tenant whole and stores plain API keys only as SHA-256", async () => {
    const store = createMemoryStore();
    const config = parseConfig(designExample());
    const report = await seedFromConfig(store.uow, config, clock);
    expect(report).toEqual({
      inserted: ["acme"],
      updated: [],
      apiKeysAdded: 2,
      signingKeysAdded: 1,
      signingKeysRevoked: 0,
      signingKeysDiffering: [],
    });

    const tenant = await store.uow.run((tx) => tx.tenants.get("acme"));
    expect(tenant?.name).toBe("Acme");
    expect(tenant?.webhook.url).toBe("http://127.0.0.1:9000/hooks");
    expect(tenant?.scopes).toContain("wallet-credits:write");

    const owner = await store.uow.run((tx) => tx.tenants.findByApiKeyHash(sha256("sandbox-key-acme-0001")));
    expect(owner).toBe("acme");
    expect(JSON.stringify([...store.state.apiKeys])).not.toContain("sandbox-key-acme-0001");

    const key = await store.uow.run((tx) => tx.tenants.getSigningKey("acme", "k1"));
    expect(key).toMatchObject({ kid: "k1", status: "active", tenantId: "acme" });
  });

  it("refuses a new tenant whose enabled webhook has no URL or no secret; an existing one keeps the database's", async () => {
    for (const [edit, message] of [
      [
        (w: { url: string | null }) => (w.url = null),
        'config: tenants[0].webhook.url: required when "enabled" is true (set "enabled": false to turn it off)',
      ],
      [
        (w: { secrets: unknown[] }) => (w.secrets = []),
        'config: tenants[0].webhook.secrets: at least one secret when "enabled" is true (events are signed)',
      ],
    ] as const) {
      const raw = designExample();
      edit(raw.tenants[0].webhook);
      const store = createMemoryStore();
      await expect(seedFromConfig(store.uow, parseConfig(raw), clock)).rejects.toThrow(message);
      expect(store.state.tenants.size).toBe(0);
      // Seeded once with secrets, the tenant's webhook is the operator API's: the file's is ignored.
      await seedFromConfig(store.uow, parseConfig(designExample()), clock);
      await expect(seedFromConfig(store.uow, parseConfig(raw), clock)).resolves.toMatchObject({
        inserted: [],
      });
    }
  });

  it("refuses a new tenant's webhook secret dated in the future: it would block every rotation", async () => {
    const raw = designExample();
    raw.tenants[0].webhook.secrets[0].createdAt = "2099-01-01T00:00:00Z";
    const store = createMemoryStore();
    await expect(seedFromConfig(store.uow, parseConfig(raw), clock)).rejects.toThrow(
      "config: tenants[0].webhook.secrets[0].createdAt: must not be in the future (it would block every rotation until then)",
    );
    expect(store.state.tenants.size).toBe(0);
    // A few seconds ahead is a clock skew, not a plan.
    raw.tenants[0].webhook.secrets[0].createdAt = new Date(clock.now().getTime() + 60_000).toISOString();
    await expect(seedFromConfig(store.uow, parseConfig(raw), clock)).resolves.toMatchObject({
      inserted: ["acme"],
    });
  });

  it("is idempotent: a second run changes nothing", async () => {
    const store = createMemoryStore();
    const config = parseConfig(designExample());
    await seedFromConfig(store.uow, config, clock);
    const before = JSON.stringify([
      ...store.state.tenants,
      ...store.state.apiKeys,
      ...store.state.signingKeys,
    ]);
    const report = await seedFromConfig(store.uow, config, clock);
    expect(report).toEqual({
      inserted: [],
      updated: [],
      apiKeysAdded: 0,
      signingKeysAdded: 0,
      signingKeysRevoked: 0,
      signingKeysDiffering: [],
    });
    expect(JSON.stringify([...store.state.tenants, ...store.state.apiKeys, ...store.state.signingKeys])).toBe(
      before,
    );
  });

  it("keeps operator-owned fields and follows the file for config-owned ones", async () => {
    const store = createMemoryStore();
    await seedFromConfig(store.uow, parseConfig(designExample()), clock);

    // The operator suspends the tenant, narrows its scopes, changes its rate limit and revokes k1.
    await store.uow.run(async (tx) => {
      const t = await tx.tenants.get("acme");
      if (t === null) throw new Error("seeded tenant missing");
      await tx.tenants.upsert({
        ...t,
        status: "suspended",
        scopes: ["customers:read"],
        ipAllowlist: ["10.1.0.0/16"],
        rateLimit: { perSecond: 5, burst: 5 },
        webhook: { ...t.webhook, enabled: false },
      });
      await tx.tenants.setSigningKeyStatus("acme", "k1", "revoked");
    });

    const next = designExample();
    next.tenants[0].name = "Acme Ltd";
    next.tenants[0].approvedRails = [];
    next.tenants[0].apiKeys.push({ sha256: "e".repeat(64) });
    next.tenants[0].signingKeys.push({ kid: "k2", publicKeyPem: testPublicKeyPem });
    const report = await seedFromConfig(store.uow, parseConfig(next), clock);
    expect(report).toEqual({
      inserted: [],
      updated: ["acme"],
      apiKeysAdded: 1,
      signingKeysAdded: 1,
      signingKeysRevoked: 0,
      signingKeysDiffering: [],
    });

    const t = await store.uow.run((tx) => tx.tenants.get("acme"));
    expect(t).toMatchObject({
      name: "Acme Ltd",
      approvedRails: [],
      status: "suspended",
      scopes: ["customers:read"],
      ipAllowlist: ["10.1.0.0/16"],
      rateLimit: { perSecond: 5, burst: 5 },
    });
    expect(t?.webhook.enabled).toBe(false);
    const keys = await store.uow.run((tx) => tx.tenants.listSigningKeys("acme"));
    expect(Object.fromEntries(keys.map((k) => [k.kid, k.status]))).toEqual({ k1: "revoked", k2: "active" });
  });

  it("applies a revocation the file makes (it goes one way only), and never re-activates one", async () => {
    const store = createMemoryStore();
    const first = designExample();
    first.tenants[0].signingKeys.push({ kid: "k2", publicKeyPem: testPublicKeyPem });
    await seedFromConfig(store.uow, parseConfig(first), clock);

    // k1 leaked: the operator marks it revoked in the file and restarts.
    const next = designExample();
    next.tenants[0].signingKeys[0]!.status = "revoked";
    next.tenants[0].signingKeys.push({ kid: "k2", publicKeyPem: testPublicKeyPem });
    const report = await seedFromConfig(store.uow, parseConfig(next), clock);
    expect(report).toMatchObject({ updated: [], signingKeysAdded: 0, signingKeysRevoked: 1 });
    const statuses = async () =>
      Object.fromEntries(
        (await store.uow.run((tx) => tx.tenants.listSigningKeys("acme"))).map((k) => [k.kid, k.status]),
      );
    expect(await statuses()).toEqual({ k1: "revoked", k2: "active" });

    // The file back to active: still revoked. Applied again: nothing to do.
    expect((await seedFromConfig(store.uow, parseConfig(first), clock)).signingKeysRevoked).toBe(0);
    expect((await seedFromConfig(store.uow, parseConfig(next), clock)).signingKeysRevoked).toBe(0);
    expect(await statuses()).toEqual({ k1: "revoked", k2: "active" });
  });

  it("keeps the database's key under a kid whose PEM the file changed, and reports it", async () => {
    const store = createMemoryStore();
    const first = designExample();
    first.tenants[0].signingKeys.push({ kid: "k2", publicKeyPem: testPublicKeyPem });
    await seedFromConfig(store.uow, parseConfig(first), clock);
    const stored = async () =>
      (await store.uow.run((tx) => tx.tenants.listSigningKeys("acme"))).find((k) => k.kid === "k2")
        ?.publicKeyPem;
    const before = await stored();

    // The same key wrapped differently is the same key: nothing to report.
    const rewrapped = designExample();
    rewrapped.tenants[0].signingKeys.push({ kid: "k2", publicKeyPem: `\n${testPublicKeyPem.trim()}\n\n` });
    expect((await seedFromConfig(store.uow, parseConfig(rewrapped), clock)).signingKeysDiffering).toEqual([]);

    const other = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString();
    const changed = designExample();
    changed.tenants[0].signingKeys.push({ kid: "k2", publicKeyPem: other });
    const report = await seedFromConfig(store.uow, parseConfig(changed), clock);
    expect(report.signingKeysDiffering).toEqual(["acme/k2"]);
    expect(await stored()).toBe(before);
  });

  it("never removes a key the file no longer lists", async () => {
    const store = createMemoryStore();
    await seedFromConfig(store.uow, parseConfig(designExample()), clock);
    const next = designExample();
    next.tenants[0].apiKeys = [{ sha256: "f".repeat(64) }];
    await seedFromConfig(store.uow, parseConfig(next), clock);
    const owner = await store.uow.run((tx) => tx.tenants.findByApiKeyHash("a".repeat(64)));
    expect(owner).toBe("acme");
  });

  it("refuses an API key that another tenant already holds, with nothing written", async () => {
    const store = createMemoryStore();
    await seedFromConfig(store.uow, parseConfig(designExample()), clock);
    const next = designExample();
    next.tenants[0].id = "globex";
    await expect(seedFromConfig(store.uow, parseConfig(next), clock)).rejects.toThrow(
      "config: tenants[0].apiKeys[0]: API key already belongs to another tenant",
    );
    expect(await store.uow.run((tx) => tx.tenants.get("globex"))).toBeNull();
  });
});
