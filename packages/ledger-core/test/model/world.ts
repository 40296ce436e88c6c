import { createHash, randomBytes } from "node:crypto";
import type { Catalog, CoreDeps, RequestContext, Tenant, UnitOfWork } from "../../src/index.js";
import { createUlidGenerator, fundPrefund, scopes } from "../../src/index.js";
import { createFixedClock, createTestVault } from "../../src/memory/index.js";

/**
 * The fixed world every model run starts from: one tenant, one currency, one rail, the fee
 * schedules of DESIGN.md section 9 (plus one for credits, debits and top-ups), and two KYC levels whose
 * limits are small enough for random amounts to reach them.
 */
export const TENANT_ID = "model";
export const CURRENCY = "KES";
export const RAIL = "sandbox_mobile";
export const BENEFICIARY = "POWERCO";
export const START = "2026-11-23T08:00:00.000Z";
/** The prefund the world starts with, so the first credits need not wait for a funding command. */
export const INITIAL_PREFUND_MINOR = 3_000_000;

export const modelCatalog: Catalog = {
  kycLevels: [
    {
      code: "tier_1",
      name: "Basic",
      currency: CURRENCY,
      maxBalanceMinor: 1_000_000,
      maxSingleTxnMinor: 700_000,
      aggregateDailyLimitMinor: 1_500_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 100_000,
    },
    {
      code: "tier_2",
      name: "Full",
      currency: CURRENCY,
      maxBalanceMinor: 5_000_000,
      maxSingleTxnMinor: null,
      aggregateDailyLimitMinor: 4_000_000,
      monthlyOutLimitMinor: 2_500_000,
      twoFactorThresholdMinor: 500_000,
    },
  ],
  walletProfiles: [{ key: "standard_kes", name: "Standard", currency: CURRENCY }],
  rails: [
    {
      code: RAIL,
      kind: "sandbox",
      currency: CURRENCY,
      status: "active",
      payouts: true,
      payins: true,
      intentLifetimeSeconds: 3600,
      payerInstructions: "Pay with reference {reference}",
    },
  ],
  beneficiaries: [{ entityCode: BENEFICIARY, name: "Power Co", canCollect: true }],
  feeSchedules: [
    {
      ruleCode: "credit_std",
      versionNo: 1,
      operationType: "wallet_credit",
      railCode: null,
      currency: CURRENCY,
      components: [
        { label: "Credit fee", type: "flat", amountMinor: 50, refundable: false },
        { label: "VAT", type: "vat", rateBps: 1_600, appliesToLabel: "Credit fee", refundable: false },
      ],
    },
    {
      ruleCode: "debit_std",
      versionNo: 1,
      operationType: "wallet_debit",
      railCode: null,
      currency: CURRENCY,
      components: [
        { label: "Debit fee", type: "flat", amountMinor: 1_000, refundable: false },
        { label: "Processing", type: "percentage", rateBps: 50, refundable: false },
        { label: "VAT", type: "vat", rateBps: 1_600, appliesToLabel: "Debit fee", refundable: false },
      ],
    },
    {
      ruleCode: "payout_std",
      versionNo: 1,
      operationType: "payout_b2c",
      railCode: null,
      currency: CURRENCY,
      components: [
        { label: "Transfer fee", type: "flat", amountMinor: 2_500, refundable: true },
        { label: "Levy", type: "percentage", rateBps: 150, refundable: false },
        { label: "VAT", type: "vat", rateBps: 1_600, appliesToLabel: "Transfer fee", refundable: true },
      ],
    },
    {
      ruleCode: "topup_std",
      versionNo: 1,
      operationType: "topup_c2b",
      railCode: null,
      currency: CURRENCY,
      components: [
        { label: "Top-up fee", type: "flat", amountMinor: 100, refundable: false },
        { label: "VAT", type: "vat", rateBps: 1_600, appliesToLabel: "Top-up fee", refundable: false },
      ],
    },
  ],
};

export const modelTenant: Tenant = {
  id: TENANT_ID,
  name: "Model tenant",
  status: "active",
  scopes: [...scopes],
  ipAllowlist: [],
  approvedProfiles: ["standard_kes"],
  defaultProfile: "standard_kes",
  approvedKycLevels: ["tier_1", "tier_2"],
  approvedRails: [RAIL],
  rateLimit: { perSecond: 1000, burst: 1000 },
  // Enabled, so every use case also writes its outbox events inside the same transaction.
  webhook: { url: "http://127.0.0.1:9/hooks", enabled: true, events: [], secrets: [] },
};

/** One journal as the store holds it, reduced to what the invariants need. */
export interface SnapshotJournal {
  uid: string;
  currency: string;
  entries: { accountKey: string; amountMinor: number }[];
}

/** Everything the invariants read, straight from the store (not through the use cases). */
export interface LedgerSnapshot {
  journals: SnapshotJournal[];
  accounts: { accountKey: string; currency: string; balanceMinor: number }[];
  operations: { uid: string; type: string; state: string }[];
}

/**
 * A store under test: the unit of work the use cases run in, and a raw reader of its ledger
 * tables (memory state, or SQL on a second connection) so the invariants do not trust the
 * repositories they check.
 */
export interface LedgerHarness {
  name: string;
  uow: UnitOfWork;
  snapshot(): Promise<LedgerSnapshot>;
  close(): Promise<void>;
}

export type HarnessFactory = () => Promise<LedgerHarness>;

export const sha256Hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");

export type ModelClock = ReturnType<typeof createFixedClock>;

/** The system under test as the commands see it. */
export interface Real {
  harness: LedgerHarness;
  uow: UnitOfWork;
  deps: CoreDeps;
  clock: ModelClock;
  ctx: RequestContext;
}

/** Seeds the tenant and its first prefund on a fresh store. */
export async function createReal(harness: LedgerHarness): Promise<Real> {
  // A clock that stands still within a command: the model knows the exact instant every rule sees.
  const clock = createFixedClock(START);
  const hasher = { sha256Hex };
  const deps: CoreDeps = {
    clock,
    ids: createUlidGenerator(clock, { bytes: (n) => new Uint8Array(randomBytes(n)) }),
    hasher,
    vault: createTestVault(hasher),
    catalog: modelCatalog,
  };
  await harness.uow.run((tx) => tx.tenants.upsert(modelTenant));
  await harness.uow.run((tx) =>
    fundPrefund(deps, tx, { tenantId: TENANT_ID, amountMinor: INITIAL_PREFUND_MINOR, currency: CURRENCY }),
  );
  const ctx: RequestContext = {
    tenant: modelTenant,
    kid: "k1",
    requestId: "model",
    scopes: modelTenant.scopes,
  };
  return { harness, uow: harness.uow, deps, clock, ctx };
}
