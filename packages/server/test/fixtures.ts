import { readFileSync } from "node:fs";

const vectors = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/request-signing.json", import.meta.url), "utf8"),
) as { publicKeySpkiPem: string; privateKeyPkcs8Pem: string };

/** RFC 8032 test key 1 (test only). */
export const testPublicKeyPem = vectors.publicKeySpkiPem;
export const testPrivateKeyPem = vectors.privateKeyPkcs8Pem;

/** Raw config JSON, edited freely by the tests to break one rule at a time. */
// biome-ignore lint/suspicious/noExplicitAny: tests reach into arbitrary depths of the raw JSON
export type RawConfig = Record<string, any>;

/** The DESIGN.md section 9 example with its placeholders filled in. A fresh copy per call. */
export function designExample(): RawConfig {
  return {
    sandbox: true,
    webhooks: {
      retryScheduleSeconds: [0, 60, 300, 1800, 7200, 43200, 43200, 43200],
      timeoutMs: 10000,
      maxInFlight: 4,
    },
    kycLevels: [
      {
        code: "tier_1",
        name: "Basic",
        currency: "KES",
        maxBalanceMinor: 10000000,
        maxSingleTxnMinor: 7000000,
        aggregateDailyLimitMinor: 15000000,
        monthlyOutLimitMinor: null,
        twoFactorThresholdMinor: 100000,
      },
    ],
    walletProfiles: [{ key: "standard_kes", name: "Standard", currency: "KES" }],
    rails: [
      {
        code: "sandbox_mobile",
        kind: "sandbox",
        currency: "KES",
        status: "active",
        payouts: true,
        payins: true,
        intentLifetimeSeconds: 3600,
        payerInstructions: "Pay with reference {reference}",
      },
    ],
    beneficiaries: [{ entityCode: "POWERCO", name: "Power Co", canCollect: true }],
    feeSchedules: [
      {
        ruleCode: "payout_std",
        versionNo: 1,
        operationType: "payout_b2c",
        railCode: null,
        currency: "KES",
        components: [
          { label: "Transfer fee", type: "flat", amountMinor: 2500, refundable: true },
          { label: "Levy", type: "percentage", rateBps: 150, refundable: false },
          { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Transfer fee", refundable: true },
        ],
      },
    ],
    tenants: [
      {
        id: "acme",
        name: "Acme",
        status: "active",
        apiKeys: [{ key: "sandbox-key-acme-0001" }, { sha256: "a".repeat(64) }],
        signingKeys: [{ kid: "k1", publicKeyPem: testPublicKeyPem, status: "active", expiresAt: null }],
        scopes: ["customers:read", "customers:write", "wallets:read", "wallet-credits:write"],
        ipAllowlist: [],
        approvedProfiles: ["standard_kes"],
        defaultProfile: "standard_kes",
        approvedKycLevels: ["tier_1"],
        approvedRails: ["sandbox_mobile"],
        webhook: {
          url: "http://127.0.0.1:9000/hooks",
          enabled: true,
          events: [],
          secrets: [{ kid: "wh1", secret: "whsec-0123456789abcdef", createdAt: "2026-01-01T00:00:00.000Z" }],
        },
        rateLimit: { perSecond: 50, burst: 100 },
      },
    ],
  };
}
