import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig, toCatalog, toTenants } from "../src/config/index.js";
import { designExample, type RawConfig } from "./fixtures.js";

const messageOf = (input: unknown): string => {
  try {
    parseConfig(input);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    const message = (e as Error).message;
    expect(message).not.toContain("\n");
    return message;
  }
  throw new Error("expected the config to be refused");
};

/** The example with one change applied. */
const edited = (edit: (c: RawConfig) => void) => {
  const c = designExample();
  edit(c);
  return c;
};

describe("parseConfig", () => {
  it("accepts the DESIGN.md example and keeps its values", () => {
    const config = parseConfig(JSON.stringify(designExample()));
    expect(config.sandbox).toBe(true);
    expect(config.kycLevels[0]?.monthlyOutLimitMinor).toBeNull();
    expect(config.feeSchedules[0]?.components).toHaveLength(3);
    expect(config.tenants[0]?.signingKeys[0]?.kid).toBe("k1");
  });

  it("reads a timestamp without seconds, and a rival fee schedule of another version", () => {
    const config = parseConfig(
      edited((c) => {
        c.tenants[0].signingKeys[0].expiresAt = "2027-02-28T10:00Z";
        c.feeSchedules.push({ ...structuredClone(c.feeSchedules[0]), ruleCode: "payout_new", versionNo: 2 });
      }),
    );
    expect(config.tenants[0]?.signingKeys[0]?.expiresAt).toBe("2027-02-28T10:00Z");
    expect(config.feeSchedules).toHaveLength(2);
  });

  it("counts a name's characters in code points, as the API does", () => {
    const name = "\u{1F3E6}".repeat(200);
    expect(parseConfig(edited((c) => (c.tenants[0].name = name))).tenants[0]?.name).toBe(name);
  });

  it("applies the defaults of a minimal file", () => {
    const c = designExample();
    delete c.sandbox;
    delete c.webhooks;
    const t = c.tenants[0];
    t.apiKeys = [{ sha256: "b".repeat(64) }];
    delete t.ipAllowlist;
    delete t.webhook;
    delete t.rateLimit;
    const config = parseConfig(c);
    expect(config.sandbox).toBe(false);
    expect(config.webhooks).toEqual({
      retryScheduleSeconds: [0, 60, 300, 1800, 7200, 43200, 43200, 43200],
      timeoutMs: 10000,
      maxInFlight: 4,
    });
    expect(config.tenants[0]?.rateLimit).toEqual({ perSecond: 50, burst: 100 });
    expect(config.tenants[0]?.ipAllowlist).toEqual([]);
    expect(config.tenants[0]?.webhook).toBeUndefined();
  });

  it.each<[string, (c: RawConfig) => void, string]>([
    ["unknown key at the root", (c) => (c.sandBox = true), "config: sandBox: unknown key"],
    [
      "unknown key in a tenant",
      (c) => (c.tenants[0].colour = "red"),
      "config: tenants[0].colour: unknown key",
    ],
    [
      "unknown key in a fee component",
      (c) => (c.feeSchedules[0].components[1].cap = 10),
      "config: feeSchedules[0].components[1].cap: unknown key",
    ],
    [
      "unknown key in a webhook secret",
      (c) => (c.tenants[0].webhook.secrets[0].alg = "sha256"),
      "config: tenants[0].webhook.secrets[0].alg: unknown key",
    ],
    [
      "fractional money",
      (c) => (c.kycLevels[0].maxBalanceMinor = 100.5),
      "config: kycLevels[0].maxBalanceMinor: expected a safe integer >= 0",
    ],
    [
      "money as a string",
      (c) => (c.feeSchedules[0].components[0].amountMinor = "2500"),
      "config: feeSchedules[0].components[0].amountMinor: expected a safe integer >= 0",
    ],
    [
      "money above 2^53-1",
      (c) => (c.kycLevels[0].aggregateDailyLimitMinor = 2 ** 53),
      "config: kycLevels[0].aggregateDailyLimitMinor: expected a safe integer >= 0",
    ],
    [
      "null where no null is allowed",
      (c) => (c.kycLevels[0].maxBalanceMinor = null),
      "config: kycLevels[0].maxBalanceMinor: expected a safe integer >= 0",
    ],
    [
      "negative limit that may be null",
      (c) => (c.kycLevels[0].monthlyOutLimitMinor = -1),
      "config: kycLevels[0].monthlyOutLimitMinor: expected a safe integer >= 0 or null",
    ],
    ["a missing required key", (c) => delete c.tenants[0].name, "config: tenants[0].name: is required"],
    ["an empty name", (c) => (c.tenants[0].name = ""), "config: tenants[0].name: must not be empty"],
    [
      "a trusted proxy that is not a CIDR block",
      (c) => (c.trustedProxies = ["10.0.0.0/8", "balancer"]),
      'config: trustedProxies[1]: expected a CIDR block (e.g. 10.0.0.0/8), got "balancer"',
    ],
    [
      "an impossible date, which Date.parse would roll over to March 3rd",
      (c) => (c.tenants[0].signingKeys[0].expiresAt = "2027-02-31T00:00:00Z"),
      "config: tenants[0].signingKeys[0].expiresAt: expected a real calendar time",
    ],
    [
      "two fee schedules tied on one slot (the file's order would pick)",
      (c) =>
        c.feeSchedules.push({
          ...structuredClone(c.feeSchedules[0]),
          ruleCode: "payout_rival",
          components: [{ label: "Fee", type: "flat", amountMinor: 999, refundable: false }],
        }),
      'config: feeSchedules[1].versionNo: ties with feeSchedules[0] ("payout_std" v1) for payout_b2c KES on any rail: the highest versionNo applies, so they must differ',
    ],
    [
      "a name over 200 characters (code points)",
      (c) => (c.tenants[0].name = "\u00e9".repeat(201)),
      "config: tenants[0].name: must be at most 200 characters",
    ],
    [
      "plain API key outside sandbox",
      (c) => (c.sandbox = false),
      'config: tenants[0].apiKeys[0].key: plain API keys are allowed only when "sandbox" is true; give its "sha256"',
    ],
    [
      "an API key with both forms",
      (c) => (c.tenants[0].apiKeys[0].sha256 = "c".repeat(64)),
      'config: tenants[0].apiKeys[0]: expected exactly one of "key" or "sha256"',
    ],
    [
      "a malformed sha256",
      (c) => (c.tenants[0].apiKeys[1].sha256 = "ABC"),
      "config: tenants[0].apiKeys[1].sha256: expected 64 lower-case hex characters (SHA-256)",
    ],
    [
      "a bad CIDR",
      (c) => (c.tenants[0].ipAllowlist = ["10.0.0.0/8", "10.0.0.0/33"]),
      'config: tenants[0].ipAllowlist[1]: expected a CIDR block (e.g. 10.0.0.0/8), got "10.0.0.0/33"',
    ],
    [
      "a duplicate kid",
      (c) => c.tenants[0].signingKeys.push({ ...c.tenants[0].signingKeys[0] }),
      'config: tenants[0].signingKeys[1].kid: duplicate kid "k1"',
    ],
    [
      "a rail-specific fee schedule for an operation that goes through no rail",
      (c) =>
        c.feeSchedules.push({
          ...c.feeSchedules[0],
          ruleCode: "credit_rail",
          operationType: "wallet_credit",
          railCode: "sandbox_mobile",
        }),
      "config: feeSchedules[1].railCode: must be null for wallet_credit (only payout_b2c and topup_c2b go through a rail)",
    ],
    [
      "a signing key that is not Ed25519",
      (c) =>
        (c.tenants[0].signingKeys[0].publicKeyPem =
          "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"),
      "config: tenants[0].signingKeys[0].publicKeyPem: expected an Ed25519 public key in PEM (SPKI: BEGIN PUBLIC KEY), never a private key",
    ],
    [
      "a private key where the public key goes (it would be stored and shown back)",
      (c) =>
        (c.tenants[0].signingKeys[0].publicKeyPem = generateKeyPairSync("ed25519")
          .privateKey.export({ type: "pkcs8", format: "pem" })
          .toString()),
      "config: tenants[0].signingKeys[0].publicKeyPem: expected an Ed25519 public key in PEM (SPKI: BEGIN PUBLIC KEY), never a private key",
    ],
    [
      "an unknown approved KYC level",
      (c) => c.tenants[0].approvedKycLevels.push("tier_9"),
      'config: tenants[0].approvedKycLevels[1]: unknown KYC level "tier_9"',
    ],
    [
      "an automatic payout outcome on a provider rail (a real provider decides)",
      (c) => c.rails.push({ ...c.rails[0], code: "mpesa", kind: "provider", autoPayoutOutcome: "confirmed" }),
      'config: rails[1].autoPayoutOutcome: only a sandbox rail takes automatic outcomes; this one is "provider"',
    ],
    [
      "an unknown rail kind",
      (c) => (c.rails[0].kind = "bank"),
      "config: rails[0].kind: expected one of sandbox, provider",
    ],
    [
      "an unknown approved rail",
      (c) => (c.tenants[0].approvedRails = ["mpesa"]),
      'config: tenants[0].approvedRails[0]: unknown rail "mpesa"',
    ],
    [
      "a default profile that is not approved",
      (c) => {
        c.walletProfiles.push({ key: "premium_kes", name: "Premium", currency: "KES" });
        c.tenants[0].defaultProfile = "premium_kes";
      },
      'config: tenants[0].defaultProfile: "premium_kes" is not in approvedProfiles',
    ],
    [
      "an unknown scope",
      (c) => c.tenants[0].scopes.push("admin"),
      "config: tenants[0].scopes[4]: expected one of customers:read, customers:write, customers:pii, wallets:read, wallet-credits:write, wallet-debits:write, mandates:read, mandates:write, payouts:write, topup-intents:write, operations:read",
    ],
    [
      "a currency in lower case",
      (c) => (c.walletProfiles[0].currency = "kes"),
      "config: walletProfiles[0].currency: expected a currency of 3 upper-case letters",
    ],
    [
      "a webhook lease not longer than the POST timeout",
      (c) => (c.webhooks = { timeoutMs: 5_000, leaseMs: 5_000 }),
      "config: webhooks.leaseMs: must be longer than webhooks.timeoutMs (5000)",
    ],
    [
      "duplicate fee component labels",
      (c) => (c.feeSchedules[0].components[1].label = "Transfer fee"),
      'config: feeSchedules[0].components[1].label: duplicate label "Transfer fee"',
    ],
    [
      "appliesToLabel naming no component",
      (c) => (c.feeSchedules[0].components[2].appliesToLabel = "Transfer"),
      'config: feeSchedules[0].components[2].appliesToLabel: no component labelled "Transfer"',
    ],
    [
      "an unknown fee component type",
      (c) => (c.feeSchedules[0].components[0].type = "tiered"),
      "config: feeSchedules[0].components[0].type: expected one of flat, percentage, vat",
    ],
    [
      "duplicate webhook secret kids",
      (c) => c.tenants[0].webhook.secrets.push({ kid: "wh1", secret: "another-secret-000000" }),
      'config: tenants[0].webhook.secrets[1].kid: duplicate kid "wh1"',
    ],
    [
      "an unknown status",
      (c) => (c.tenants[0].status = "closed"),
      "config: tenants[0].status: expected one of active, suspended",
    ],
    [
      "a duplicate tenant id",
      (c) => c.tenants.push({ ...c.tenants[0], apiKeys: [{ sha256: "d".repeat(64) }] }),
      'config: tenants[1].id: duplicate tenant id "acme"',
    ],
    [
      "one API key on two tenants",
      (c) => c.tenants.push({ ...c.tenants[0], id: "other", apiKeys: [{ sha256: "a".repeat(64) }] }),
      "config: tenants[1].apiKeys[0]: duplicate API key",
    ],
    ["tenants that are not a list", (c) => (c.tenants = "all"), "config: tenants: expected an array"],
  ])("refuses %s", (_name, edit, message) => {
    expect(messageOf(edited(edit))).toBe(message);
  });

  it("refuses text that is not JSON, in one line", () => {
    expect(messageOf("{ sandbox: true,\n}")).toMatch(/^config: invalid JSON \(.+\)$/);
    expect(messageOf("[]")).toBe("config: expected a JSON object");
    expect(messageOf("null")).toBe("config: expected a JSON object");
  });
});

describe("loadConfig", () => {
  it("reads a file and names an unreadable one", () => {
    const dir = mkdtempSync(join(tmpdir(), "wallet-config-"));
    const file = join(dir, "wallet.config.json");
    writeFileSync(file, JSON.stringify(designExample()));
    expect(loadConfig(file).tenants[0]?.id).toBe("acme");
    expect(() => loadConfig(join(dir, "missing.json"))).toThrow(
      /^config: cannot read .*missing\.json \(ENOENT\)$/,
    );
  });
});

describe("toCatalog / toTenants", () => {
  it("converts to the ledger-core types", () => {
    const config = parseConfig({
      ...designExample(),
      tenants: [{ ...designExample().tenants[0], ipAllowlist: ["192.168.1.7", "10.0.0.0/8"] }],
    });
    const catalog = toCatalog(config);
    expect(catalog.kycLevels[0]).toEqual({
      code: "tier_1",
      name: "Basic",
      currency: "KES",
      maxBalanceMinor: 10000000,
      maxSingleTxnMinor: 7000000,
      aggregateDailyLimitMinor: 15000000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 100000,
    });
    expect(catalog.feeSchedules[0]?.components[2]).toEqual({
      label: "VAT",
      type: "vat",
      rateBps: 1600,
      appliesToLabel: "Transfer fee",
      refundable: true,
    });
    const [tenant] = toTenants(config);
    expect(tenant?.ipAllowlist).toEqual(["192.168.1.7/32", "10.0.0.0/8"]);
    expect(tenant?.webhook.secrets[0]).toEqual({
      kid: "wh1",
      secret: "whsec-0123456789abcdef",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    expect(tenant?.defaultProfile).toBe("standard_kes");
  });

  it("keeps a provider rail's kind, with no automatic outcome", () => {
    const c = designExample();
    c.rails.push({ ...c.rails[0], code: "mpesa", kind: "provider" });
    const rail = toCatalog(parseConfig(c)).rails.find((r) => r.code === "mpesa");
    expect(rail).toMatchObject({ code: "mpesa", kind: "provider" });
    expect(rail).not.toHaveProperty("autoPayoutOutcome");
  });
});
