import { createHash } from "node:crypto";

export const BENCH_TENANT_ID = "bench";
export const BENCH_KID = "bench-k1";
export const BENCH_CURRENCY = "KES";
/** Large enough that no credit of a bench run is refused for funds (safe integer, minor units). */
export const BENCH_PREFUND_MINOR = 4_000_000_000_000_000;

/**
 * A KYC level that never refuses a bench credit: the bench measures the ledger's path, not its
 * limits (which are exercised by the tests). Limits still run (the daily sum is read per credit).
 */
export const benchKycLevel = {
  code: "bench",
  name: "Bench",
  currency: BENCH_CURRENCY,
  maxBalanceMinor: 4_000_000_000_000_000,
  maxSingleTxnMinor: null,
  aggregateDailyLimitMinor: 4_000_000_000_000_000,
  monthlyOutLimitMinor: null,
  twoFactorThresholdMinor: 4_000_000_000_000_000,
};

/** The server config of a bench run: one tenant with every scope, no rate limit to speak of. */
export function benchConfig({ apiKey, publicKeyPem, scopes, database }) {
  return {
    sandbox: true,
    kycLevels: [benchKycLevel],
    walletProfiles: [{ key: "standard_kes", name: "Standard", currency: BENCH_CURRENCY }],
    tenants: [
      {
        id: BENCH_TENANT_ID,
        name: "Bench tenant",
        status: "active",
        apiKeys: [{ sha256: createHash("sha256").update(apiKey, "utf8").digest("hex") }],
        signingKeys: [{ kid: BENCH_KID, publicKeyPem, status: "active", expiresAt: null }],
        scopes: [...scopes],
        approvedProfiles: ["standard_kes"],
        defaultProfile: "standard_kes",
        approvedKycLevels: ["bench"],
        // Enabled, so every credit writes its outbox event as in production; nothing delivers it
        // (the scheduler is off), so no traffic leaves the bench.
        // (An enabled webhook needs a secret, as the config requires.)
        webhook: {
          url: "http://127.0.0.1:9/hooks",
          enabled: true,
          events: [],
          secrets: [{ kid: "bench", secret: "bench-webhook-secret-0123456789abcdef" }],
        },
        rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
      },
    ],
    ...(database === undefined ? {} : { database }),
  };
}

/** Onboarding input for the n-th bench customer: unique verified identifiers, the bench level. */
export function benchOnboarding(n) {
  const digits = String(n).padStart(8, "0");
  return {
    customerType: "person",
    displayName: `Bench customer ${n}`,
    identifiers: [
      {
        class: "contact",
        type: "msisdn",
        value: `+2547${digits}`,
        isPrimary: true,
        verificationStatus: "verified",
      },
      {
        class: "identity_document",
        type: "national_id",
        value: `9${digits}`,
        isPrimary: true,
        verificationStatus: "verified",
      },
    ],
    kyc: {
      tierCode: "bench",
      reviewType: "onboarding",
      verificationSource: "bench",
      sourceReference: `bench-kyc-${n}`,
      evidence: { check: "passed" },
      riskRating: "low",
    },
    agreements: [
      {
        agreementType: "wallet_opening",
        documentType: "terms",
        documentVersion: "v1",
        documentUri: "https://example.com/terms/v1",
        documentHash: "a".repeat(64),
        acceptedAt: new Date().toISOString(),
        acceptedChannel: "mobile_app",
        evidence: { ip: "203.0.113.9" },
      },
    ],
  };
}
