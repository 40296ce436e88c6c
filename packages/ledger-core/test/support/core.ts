import { createHash, randomBytes } from "node:crypto";
import type {
  Catalog,
  CoreDeps,
  DomainError,
  FeeComponent,
  FeeSchedule,
  Rail,
  RequestContext,
  Tenant,
  Tx,
} from "../../src/index.js";
import { createUlidGenerator, fundPrefund, onboardCustomer, scopes } from "../../src/index.js";
import { createMemoryStore, createSteppingClock, createTestVault } from "../../src/memory/index.js";

/** A version-1 KES fee schedule of an operation type, on any rail, with these components. */
export const feeSchedule = (
  operationType: FeeSchedule["operationType"],
  ...components: FeeComponent[]
): FeeSchedule => ({
  ruleCode: `${operationType}_test`,
  versionNo: 1,
  operationType,
  railCode: null,
  currency: "KES",
  components,
});

export const nodeHasher = { sha256Hex: (d: string) => createHash("sha256").update(d, "utf8").digest("hex") };

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
    {
      code: "tier_2",
      name: "Full",
      currency: "KES",
      maxBalanceMinor: 100_000_000,
      maxSingleTxnMinor: null,
      aggregateDailyLimitMinor: 200_000_000,
      monthlyOutLimitMinor: 150_000_000,
      twoFactorThresholdMinor: 500_000,
    },
    {
      code: "tier_usd",
      name: "USD",
      currency: "USD",
      maxBalanceMinor: 1_000_000,
      maxSingleTxnMinor: null,
      aggregateDailyLimitMinor: 2_000_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 10_000,
    },
  ],
  walletProfiles: [
    { key: "standard_kes", name: "Standard", currency: "KES" },
    { key: "standard_usd", name: "Dollar", currency: "USD" },
  ],
  rails: [],
  beneficiaries: [
    { entityCode: "POWERCO", name: "Power Co", canCollect: true },
    { entityCode: "WATERCO", name: "Water Co", canCollect: true },
    { entityCode: "NOCOLLECT", name: "No Collect Ltd", canCollect: false },
  ],
  feeSchedules: [
    {
      ruleCode: "debit_std",
      versionNo: 1,
      operationType: "wallet_debit",
      railCode: null,
      currency: "KES",
      components: [
        { label: "Debit fee", type: "flat", amountMinor: 1_000, refundable: false },
        { label: "Processing", type: "percentage", rateBps: 50, refundable: false },
        { label: "VAT", type: "vat", rateBps: 1_600, appliesToLabel: "Debit fee", refundable: false },
      ],
    },
  ],
};

export function tenantFixture(id: string, overrides: Partial<Tenant> = {}): Tenant {
  return {
    id,
    name: id,
    status: "active",
    scopes: [...scopes],
    ipAllowlist: [],
    approvedProfiles: ["standard_kes"],
    defaultProfile: "standard_kes",
    approvedKycLevels: ["tier_1", "tier_2"],
    approvedRails: [],
    rateLimit: { perSecond: 50, burst: 100 },
    webhook: { url: "http://127.0.0.1:9/hooks", enabled: true, events: [], secrets: [] },
    ...overrides,
  };
}

export function createCore(start = "2026-11-22T10:00:00.000Z") {
  const store = createMemoryStore();
  const clock = createSteppingClock(start, 1);
  const deps: CoreDeps = {
    clock,
    ids: createUlidGenerator(clock, { bytes: (n) => randomBytes(n) }),
    hasher: nodeHasher,
    vault: createTestVault(nodeHasher),
    catalog,
  };
  const ctxFor = (tenant: Tenant): RequestContext => ({
    tenant,
    kid: "k1",
    requestId: "req-1",
    scopes: tenant.scopes,
  });
  const run = <T>(work: (tx: Tx) => Promise<T>) => store.uow.run(work);
  return { store, deps, ctxFor, run };
}

/** A core with tenant `acme` stored, and `onboard(overrides)` onboarding a customer of it. */
export async function coreWithTenant(start?: string) {
  const core = createCore(start);
  const acme = tenantFixture("acme");
  await core.run((tx) => tx.tenants.upsert(acme));
  const onboard = (overrides: Record<string, unknown> = {}) =>
    core.run((tx) => onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput(overrides) as never));
  return { core, acme, onboard };
}

/**
 * `coreWithTenant`, its prefund funded with `prefundMinor` KES and one customer onboarded from
 * `onboardingInput()`: the start of most tests of a money movement.
 */
export async function coreWithCustomer(opts: { start?: string; prefundMinor?: number } = {}) {
  const { core, acme, onboard } = await coreWithTenant(opts.start);
  await core.run((tx) =>
    fundPrefund(core.deps, tx, {
      tenantId: "acme",
      amountMinor: opts.prefundMinor ?? 1_000_000,
      currency: "KES",
    }),
  );
  const customer = await onboard();
  return { core, acme, customer, walletUid: customer.walletUid };
}

export const onboardingInput = (overrides: Record<string, unknown> = {}) => ({
  customerType: "person" as const,
  displayName: "Amina W.",
  identifiers: [
    {
      class: "contact" as const,
      type: "msisdn",
      value: "+254712345678",
      isPrimary: true,
      verificationStatus: "verified" as const,
    },
    {
      class: "identity_document" as const,
      type: "national_id",
      value: "12345678",
      isPrimary: true,
      verificationStatus: "verified" as const,
    },
  ],
  kyc: {
    tierCode: "tier_1",
    reviewType: "onboarding" as const,
    verificationSource: "acme-kyc",
    sourceReference: "kyc-ref-1",
    evidence: { check: "passed", score: 98 },
    riskRating: "low" as const,
  },
  agreements: [
    {
      agreementType: "wallet_opening" as const,
      documentType: "terms",
      documentVersion: "v1",
      documentUri: "https://example.com/terms/v1",
      documentHash: "a".repeat(64),
      acceptedAt: "2026-11-22T09:59:00.000Z",
      acceptedChannel: "mobile_app",
      evidence: { ip: "203.0.113.9" },
    },
  ],
  ...overrides,
});

// --- Payment rails (payouts, top-ups): opt in with `core.deps.catalog = railsCatalog()`. ---

/** The DESIGN.md section 9 sandbox rail. */
export const sandboxRail: Rail = {
  code: "sandbox_mobile",
  kind: "sandbox",
  currency: "KES",
  status: "active",
  payouts: true,
  payins: true,
  intentLifetimeSeconds: 3600,
  payerInstructions: "Pay with reference {reference}",
};

/** The DESIGN.md section 9 payout fee schedule. */
export const payoutFeeSchedule: FeeSchedule = {
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
};

/** Rails beside the sandbox one, each missing one capability. */
export const otherRails: Rail[] = [
  {
    ...sandboxRail,
    code: "sandbox_bank",
    payouts: false,
    intentLifetimeSeconds: null,
    payerInstructions: null,
  },
  { ...sandboxRail, code: "sandbox_collect_off", payins: false, intentLifetimeSeconds: 900 },
  { ...sandboxRail, code: "sandbox_off", status: "inactive" },
  { ...sandboxRail, code: "sandbox_usd", currency: "USD" },
];

export const railsCatalog = (extra: Partial<Catalog> = {}): Catalog => ({
  ...catalog,
  rails: [...catalog.rails, sandboxRail, ...otherRails],
  feeSchedules: [...catalog.feeSchedules, payoutFeeSchedule],
  ...extra,
});

/** The refusal a use case ends with; fails the test when it resolves instead. */
export const refusal = async (p: Promise<unknown>): Promise<DomainError> => {
  try {
    await p;
  } catch (e) {
    return e as DomainError;
  }
  throw new Error("expected a refusal");
};
