import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { assertionTransactionBinding, signRequest } from "@wallet/client";
import { scopes } from "@wallet/ledger-core";

export const TENANT_ID = "acme";
export const TENANT = "/api/v1/tenant";
export const ADMIN = "/api/v1/admin";
export const RAIL = "sandbox_mobile";

/** Credentials generated for one test file; never printed. */
export interface Credentials {
  apiKey: string;
  kid: string;
  privateKeyPem: string;
  publicKeyPem: string;
  adminToken: string;
  /** WALLET_PII_KEY: 32 random bytes, base64. */
  piiKey: string;
}

export function newCredentials(): Credentials {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    apiKey: `sk_rel_${randomBytes(16).toString("hex")}`,
    kid: "rel1",
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    adminToken: `adm_${randomBytes(24).toString("hex")}`,
    piiKey: randomBytes(32).toString("base64"),
  };
}

export const serverEnv = (c: Credentials): Record<string, string> => ({
  WALLET_ADMIN_TOKEN: c.adminToken,
  WALLET_PII_KEY: c.piiKey,
});

/**
 * A config for load tests: limits far above the load (so refusals are about money, not KYC
 * caps), the DESIGN.md payout fee schedule, a debit fee, one beneficiary, a sandbox rail whose
 * results come only from the operator API, a generous rate limit, and webhooks to `webhookUrl`
 * with a compressed retry schedule (or none).
 */
export function reliabilityConfig(c: Credentials, opts: { webhookUrl?: string | null } = {}) {
  return {
    sandbox: true,
    // A short lease: a delivery leased by a killed process is due again after 5 s, not 62 s.
    webhooks: {
      retryScheduleSeconds: [0, 0.2, 0.5, 1, 1, 1, 1, 1],
      timeoutMs: 2_000,
      maxInFlight: 8,
      leaseMs: 5_000,
    },
    kycLevels: [
      {
        code: "tier_1",
        name: "Load",
        currency: "KES",
        maxBalanceMinor: 1_000_000_000_000,
        maxSingleTxnMinor: null,
        aggregateDailyLimitMinor: 1_000_000_000_000,
        monthlyOutLimitMinor: null,
        twoFactorThresholdMinor: 100_000,
      },
    ],
    walletProfiles: [{ key: "standard_kes", name: "Standard", currency: "KES" }],
    rails: [
      {
        code: RAIL,
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
      {
        ruleCode: "debit_std",
        versionNo: 1,
        operationType: "wallet_debit",
        railCode: null,
        currency: "KES",
        components: [{ label: "Debit fee", type: "flat", amountMinor: 300, refundable: false }],
      },
    ],
    tenants: [
      {
        id: TENANT_ID,
        name: "Acme",
        status: "active",
        apiKeys: [{ key: c.apiKey }],
        signingKeys: [{ kid: c.kid, publicKeyPem: c.publicKeyPem, status: "active", expiresAt: null }],
        scopes: [...scopes],
        ipAllowlist: [],
        approvedProfiles: ["standard_kes"],
        defaultProfile: "standard_kes",
        approvedKycLevels: ["tier_1"],
        approvedRails: [RAIL],
        webhook: opts.webhookUrl
          ? {
              url: opts.webhookUrl,
              enabled: true,
              events: [],
              secrets: [{ kid: "wh1", secret: `whsec_${randomBytes(16).toString("hex")}` }],
            }
          : { url: null, enabled: false, events: [], secrets: [] },
        rateLimit: { perSecond: 100_000, burst: 100_000 },
      },
    ],
  };
}

export function writeConfig(dir: string, config: unknown): string {
  const path = join(dir, "wallet.config.json");
  writeFileSync(path, JSON.stringify(config, null, 2), { mode: 0o600 });
  return path;
}

export interface HttpAnswer {
  /** 0 when no answer came (connection refused or reset, timeout). */
  status: number;
  text: string;
  headers?: Headers | undefined;
  error?: string | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON, read field by field by the tests
  json(): any;
}

const answer = (status: number, text: string, error?: string, headers?: Headers): HttpAnswer => ({
  status,
  text,
  headers,
  error,
  json: () => JSON.parse(text),
});

async function fetchAnswer(url: string, init: RequestInit, timeoutMs: number): Promise<HttpAnswer> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return answer(res.status, await res.text(), undefined, res.headers);
  } catch (e) {
    return answer(0, "", e instanceof Error ? `${e.name}: ${e.message}` : String(e));
  }
}

/**
 * Signed tenant requests and operator requests against any server process. Ed25519 is
 * deterministic, so two identical requests signed in the same second share a signature and the
 * replay guard refuses the second: each use of one (method, path, body) gets a timestamp older
 * than every earlier use, inside the 300 s window.
 */
export class WalletHttp {
  /** Per (method, path, body): the oldest timestamp used so far. */
  private readonly oldest = new Map<string, number>();
  constructor(private readonly c: Credentials) {}

  private timestampFor(method: string, pathAndQuery: string, body: string): number {
    const id = `${method} ${pathAndQuery} ${createHash("sha256").update(body).digest("hex")}`;
    const now = Math.floor(Date.now() / 1000);
    const previous = this.oldest.get(id);
    // Strictly older than any earlier use, even when the clock ticks between two copies.
    const timestamp = previous === undefined ? now : Math.min(now, previous - 1);
    if (now - timestamp > 250)
      throw new Error(`request sent too often for distinct timestamps: ${method} ${pathAndQuery}`);
    this.oldest.set(id, timestamp);
    return timestamp;
  }

  signed(
    baseUrl: string,
    method: string,
    path: string,
    body?: unknown,
    opts: { idempotencyKey?: string; timeoutMs?: number } = {},
  ): Promise<HttpAnswer> {
    const text = body === undefined ? "" : JSON.stringify(body);
    const pathAndQuery = `${TENANT}${path}`;
    const headers: Record<string, string> = {
      ...signRequest({
        method,
        pathAndQuery,
        body: text,
        apiKey: this.c.apiKey,
        kid: this.c.kid,
        privateKey: this.c.privateKeyPem,
        timestamp: this.timestampFor(method, pathAndQuery, text),
      }),
      "Content-Type": "application/json",
    };
    if (opts.idempotencyKey !== undefined) headers["Idempotency-Key"] = opts.idempotencyKey;
    return fetchAnswer(
      `${baseUrl}${pathAndQuery}`,
      { method, headers, body: method === "GET" ? null : text },
      opts.timeoutMs ?? 30_000,
    );
  }

  admin(
    baseUrl: string,
    method: string,
    path: string,
    body?: unknown,
    timeoutMs = 30_000,
  ): Promise<HttpAnswer> {
    return fetchAnswer(
      `${baseUrl}${ADMIN}${path}`,
      {
        method,
        headers: { Authorization: `Bearer ${this.c.adminToken}`, "Content-Type": "application/json" },
        body: body === undefined ? null : JSON.stringify(body),
      },
      timeoutMs,
    );
  }
}

// --- Request bodies ---

export function onboardingBody(msisdn: string) {
  return {
    customerType: "person",
    displayName: "Load Customer",
    identifiers: [
      {
        class: "contact",
        type: "msisdn",
        value: msisdn,
        isPrimary: true,
        verificationStatus: "verified",
        verifiedAt: "2026-01-01T00:00:00.000Z",
      },
    ],
    kyc: {
      tierCode: "tier_1",
      reviewType: "onboarding",
      verificationSource: "load",
      sourceReference: `kyc-${msisdn}`,
      evidence: { method: "test" },
      riskRating: "low",
    },
    agreements: [
      {
        agreementType: "wallet_opening",
        documentType: "terms",
        documentVersion: "1",
        documentUri: "https://example.com/terms/1",
        documentHash: "0".repeat(64),
        acceptedAt: "2026-01-01T00:00:00.000Z",
        acceptedChannel: "mobile_app",
        evidence: { method: "checkbox" },
      },
    ],
  };
}

export interface Party {
  customerUid: string;
  walletUid: string;
  msisdnUid: string;
}

/** A live two-factor assertion bound to the request (the SDK computes the binding). */
function boundAssertion(p: Party, amountMinor: number, target: string, clientReference: string) {
  const now = Date.now();
  return {
    customerUid: p.customerUid,
    assuranceLevel: "two_factor",
    factor1Type: "pin",
    factor2Type: "otp",
    authenticatedAt: new Date(now - 30_000).toISOString(),
    expiresAt: new Date(now + 300_000).toISOString(),
    channelCode: "mobile_app",
    sourceReference: `sess-${clientReference}`,
    transactionBinding: assertionTransactionBinding({
      customerUid: p.customerUid,
      walletUid: p.walletUid,
      amountMinor,
      currency: "KES",
      target,
      clientReference,
    }),
  };
}

export const creditBody = (p: Party, amountMinor: number, clientReference: string) => ({
  walletUid: p.walletUid,
  amountMinor,
  currency: "KES",
  clientReference,
});

export const payoutBody = (p: Party, amountMinor: number, clientReference: string) => ({
  walletUid: p.walletUid,
  destinationIdentifierUid: p.msisdnUid,
  amountMinor,
  currency: "KES",
  railCode: RAIL,
  clientReference,
  assertion: boundAssertion(p, amountMinor, p.msisdnUid, clientReference),
});

export const debitBody = (p: Party, mandateUid: string, amountMinor: number, clientReference: string) => ({
  walletUid: p.walletUid,
  mandateUid,
  amountMinor,
  currency: "KES",
  clientReference,
  assertion: boundAssertion(p, amountMinor, mandateUid, clientReference),
});

export const mandateDebitBody = (p: Party, amountMinor: number, clientReference: string) => ({
  walletUid: p.walletUid,
  amountMinor,
  currency: "KES",
  clientReference,
});

/** An ad_hoc up_to mandate (no period limit), active at once. */
export const mandateBody = (p: Party, maxMinor: number, clientReference: string) => ({
  customerUid: p.customerUid,
  walletUid: p.walletUid,
  beneficiaryEntityCode: "POWERCO",
  clientReference,
  amountRule: "up_to",
  fixedOrMaxAmountMinor: maxMinor,
  frequency: "ad_hoc",
  currency: "KES",
  validFrom: new Date(Date.now() - 60_000).toISOString(),
  validTo: null,
  agreement: {
    documentType: "debit_mandate",
    documentVersion: "v1",
    documentUri: "https://example.com/mandate/v1",
    documentHash: "b".repeat(64),
    acceptedAt: "2026-01-01T00:00:00.000Z",
    acceptedChannel: "mobile_app",
    evidence: { otp: "verified" },
  },
  assertion: {
    customerUid: p.customerUid,
    assuranceLevel: "two_factor",
    factor1Type: "pin",
    factor2Type: "otp",
    authenticatedAt: new Date(Date.now() - 30_000).toISOString(),
    expiresAt: new Date(Date.now() + 300_000).toISOString(),
    channelCode: "mobile_app",
    sourceReference: `sess-${clientReference}`,
  },
});
