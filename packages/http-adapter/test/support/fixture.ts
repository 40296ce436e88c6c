import { createHash, generateKeyPairSync, randomBytes, sign } from "node:crypto";
import { signRequest } from "@wallet/client";
import type { Catalog, CoreDeps, Scope, SigningKey, Tenant, UnitOfWork } from "@wallet/ledger-core";
import { scopes as allScopes, createUlidGenerator } from "@wallet/ledger-core";
import { createFixedClock, createTestVault } from "@wallet/ledger-core/memory";
import type { Hono } from "hono";
import { type ApiDeps, type AppEnv, createApp, type RequestLogger } from "../../src/index.js";

export const START = "2026-11-22T10:00:00.000Z";
export const ADMIN_TOKEN = "admin-token-for-tests-only";

export const hasher = { sha256Hex: (s: string) => createHash("sha256").update(s, "utf8").digest("hex") };
export const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** tier_1: max balance 10 000.00 KES, the DESIGN.md sample level. */
export const catalog: Catalog = {
  kycLevels: [
    {
      code: "tier_1",
      name: "Basic",
      currency: "KES",
      maxBalanceMinor: 10_000_000,
      maxSingleTxnMinor: 7_000_000,
      aggregateDailyLimitMinor: 15_000_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 100_000,
    },
    // A higher level for KYC upgrades; a tenant must list it in approvedKycLevels to use it.
    {
      code: "tier_2",
      name: "Standard",
      currency: "KES",
      maxBalanceMinor: 50_000_000,
      maxSingleTxnMinor: 20_000_000,
      aggregateDailyLimitMinor: 60_000_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 100_000,
    },
  ],
  walletProfiles: [{ key: "standard_kes", name: "Standard", currency: "KES" }],
  // The DESIGN.md section 9 sandbox rail; a tenant must list it in approvedRails to use it.
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
  // Mandate beneficiaries: one set up to collect mandate debits, one that is not.
  beneficiaries: [
    { entityCode: "POWERCO", name: "Power Co", canCollect: true },
    { entityCode: "DORMANTCO", name: "Dormant Co", canCollect: false },
  ],
  // The DESIGN.md section 9 payout schedule: on 1 000 000, fee 2500 + 15000, VAT 16% of 2500 = 400.
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
};

export type FixedClock = ReturnType<typeof createFixedClock>;

export function coreDeps(clock: FixedClock): CoreDeps {
  return {
    clock,
    ids: createUlidGenerator(clock, { bytes: (n) => new Uint8Array(randomBytes(n)) }),
    hasher,
    vault: createTestVault(hasher),
    catalog,
  };
}

export interface TenantKey {
  kid: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

export function newKey(kid: string): TenantKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    kid,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

export interface SeededTenant {
  tenant: Tenant;
  apiKey: string;
  key: TenantKey;
}

export interface TenantOptions {
  id: string;
  scopes?: Scope[];
  status?: Tenant["status"];
  ipAllowlist?: string[];
  rateLimit?: Tenant["rateLimit"];
  /** Default ["tier_1"]. */
  approvedKycLevels?: string[];
  /** Default none. */
  approvedRails?: string[];
  /** Default disabled (no outbox events are written); enable it to read events through the store. */
  webhook?: Tenant["webhook"];
  /** Extra keys besides the active `k1` (revoked, expired...). */
  extraKeys?: { key: TenantKey; status: SigningKey["status"]; expiresAt: string | null }[];
}

/** Seeds a tenant through the tenant repository, as the server's config loader does. */
export async function seedTenant(uow: UnitOfWork, opts: TenantOptions): Promise<SeededTenant> {
  const tenant: Tenant = {
    id: opts.id,
    name: `Tenant ${opts.id}`,
    status: opts.status ?? "active",
    scopes: opts.scopes ?? [...allScopes],
    ipAllowlist: opts.ipAllowlist ?? [],
    approvedProfiles: ["standard_kes"],
    defaultProfile: "standard_kes",
    approvedKycLevels: opts.approvedKycLevels ?? ["tier_1"],
    approvedRails: opts.approvedRails ?? [],
    rateLimit: opts.rateLimit ?? { perSecond: 1000, burst: 1000 },
    webhook: opts.webhook ?? { url: null, enabled: false, events: [], secrets: [] },
  };
  const apiKey = `sk_test_${opts.id}_${randomBytes(12).toString("hex")}`;
  const key = newKey("k1");
  await uow.run(async (tx) => {
    await tx.tenants.upsert(tenant);
    await tx.tenants.addApiKeyHash(tenant.id, sha256Hex(apiKey));
    const keys = [{ key, status: "active" as const, expiresAt: null }, ...(opts.extraKeys ?? [])];
    for (const k of keys) {
      await tx.tenants.addSigningKey({
        tenantId: tenant.id,
        kid: k.key.kid,
        publicKeyPem: k.key.publicKeyPem,
        status: k.status,
        expiresAt: k.expiresAt,
        createdAt: START,
      });
    }
  });
  return { tenant, apiKey, key };
}

export interface SignInput {
  method: string;
  pathAndQuery: string;
  body: string;
  apiKey: string;
  key: TenantKey;
  timestamp: string;
}

/** The four auth headers, signed by the client SDK (`@wallet/client`), as a tenant would. */
export function signHeaders(input: SignInput): Record<string, string> {
  return {
    ...signRequest({
      method: input.method,
      pathAndQuery: input.pathAndQuery,
      body: input.body,
      apiKey: input.apiKey,
      kid: input.key.kid,
      privateKey: input.key.privateKeyPem,
      timestamp: input.timestamp,
    }),
  };
}

/** The same headers signed with node:crypto: an implementation independent of the SDK. */
export function signHeadersWithNodeCrypto(input: SignInput): Record<string, string> {
  const canonical = `${input.method}\n${input.pathAndQuery}\n${input.timestamp}\n${sha256Hex(input.body)}`;
  const signature = sign(null, Buffer.from(canonical, "utf8"), input.key.privateKeyPem).toString("base64");
  return {
    "X-Api-Key": input.apiKey,
    "X-Key-Id": input.key.kid,
    "X-Timestamp": input.timestamp,
    "X-Signature": signature,
  };
}

export interface CallOptions {
  body?: unknown;
  /** Sent verbatim instead of JSON.stringify(body). */
  rawBody?: string;
  /** The body the signature covers, when it differs from what is sent. */
  signedBody?: string;
  /** The path+query the signature covers, when it differs from what is sent. */
  signedPath?: string;
  timestamp?: string;
  /** Signs with this key and sends its kid. */
  key?: TenantKey;
  apiKey?: string;
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
  /** Auth headers to leave out. */
  omit?: string[];
  /** Socket address seen by the server. */
  remoteAddress?: string;
  /** Sign with node:crypto instead of the client SDK. */
  signer?: (input: SignInput) => Record<string, string>;
  /**
   * Moves the clock one second before signing (default true), so two identical requests get two
   * signatures: Ed25519 is deterministic and the replay guard would refuse the second.
   */
  advanceClock?: boolean;
}

export interface Harness {
  app: Hono<AppEnv>;
  deps: ApiDeps;
  clock: FixedClock;
  uow: UnitOfWork;
  logs: { level: "info" | "error"; obj: Record<string, unknown>; msg?: string | undefined }[];
  /** Seconds since epoch of the clock, as the X-Timestamp header. */
  nowSeconds(): string;
  /** A signed tenant request. */
  call(t: SeededTenant, method: string, path: string, opts?: CallOptions): Promise<Response>;
  /** An operator request with the admin bearer token. */
  admin(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
}

export function createHarness(uow: UnitOfWork, overrides: Partial<ApiDeps> = {}): Harness {
  const clock = createFixedClock(START);
  const logs: Harness["logs"] = [];
  const logger: RequestLogger = {
    info: (obj, msg) => logs.push({ level: "info", obj: obj as Record<string, unknown>, msg }),
    error: (obj, msg) => logs.push({ level: "error", obj: obj as Record<string, unknown>, msg }),
  };
  const deps: ApiDeps = {
    uow,
    core: coreDeps(clock),
    adminToken: ADMIN_TOKEN,
    sandbox: true,
    logger,
    ...overrides,
  };
  const app = createApp(deps);
  const nowSeconds = () => String(Math.floor(clock.now().getTime() / 1000));
  let idempotencySeq = 0;

  return {
    app,
    deps,
    clock,
    uow,
    logs,
    nowSeconds,
    call(t, method, path, opts = {}) {
      if (opts.advanceClock !== false && opts.timestamp === undefined) clock.advanceMs(1000);
      const body = opts.rawBody ?? (opts.body === undefined ? "" : JSON.stringify(opts.body));
      const key = opts.key ?? t.key;
      const auth = (opts.signer ?? signHeaders)({
        method,
        pathAndQuery: opts.signedPath ?? path,
        body: opts.signedBody ?? body,
        apiKey: opts.apiKey ?? t.apiKey,
        key,
        timestamp: opts.timestamp ?? nowSeconds(),
      });
      for (const name of opts.omit ?? []) delete auth[name];
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        ...auth,
        ...opts.headers,
      };
      const isWrite = method === "POST" || method === "PATCH";
      const idem =
        opts.idempotencyKey === undefined
          ? isWrite
            ? `idem-${++idempotencySeq}`
            : null
          : opts.idempotencyKey;
      if (idem !== null) headers["Idempotency-Key"] = idem;
      return Promise.resolve(
        app.request(
          path,
          { method, headers, body: method === "GET" || method === "HEAD" ? null : body },
          { incoming: { socket: { remoteAddress: opts.remoteAddress ?? "127.0.0.1" } } },
        ),
      );
    },
    admin(method, path, body, token = ADMIN_TOKEN) {
      const headers: Record<string, string> = {
        Authorization: `Bearer ${token}`,
        "Content-Type": "application/json",
      };
      return Promise.resolve(
        app.request(path, { method, headers, body: body === undefined ? null : JSON.stringify(body) }),
      );
    },
  };
}

/** A valid onboarding body; `overrides` replace top-level fields. */
export function onboardingBody(overrides: Record<string, unknown> = {}, msisdn = "+254712345678") {
  return {
    customerType: "person",
    displayName: "Wanjiru Kamau",
    identifiers: [
      { class: "contact", type: "msisdn", value: msisdn, isPrimary: true, verificationStatus: "verified" },
      {
        class: "identity_document",
        type: "national_id",
        value: "12345678",
        isPrimary: true,
        verificationStatus: "verified",
        issuingCountry: "KE",
      },
    ],
    kyc: {
      tierCode: "tier_1",
      reviewType: "onboarding",
      verificationSource: "acme-kyc",
      sourceReference: "kyc-ref-1",
      evidence: { checks: ["id", "liveness"] },
      riskRating: "low",
    },
    agreements: [
      {
        agreementType: "wallet_opening",
        documentType: "terms",
        documentVersion: "v1",
        documentUri: "https://acme.example/terms/v1",
        documentHash: "a".repeat(64),
        acceptedAt: "2026-11-22T09:00:00.000Z",
        acceptedChannel: "mobile_app",
        evidence: { ip: "203.0.113.7" },
      },
    ],
    ...overrides,
  };
}

export const TENANT = "/api/v1/tenant";
export const ADMIN = "/api/v1/admin";
