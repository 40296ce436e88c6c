import type {
  Agreement,
  AuditEntry,
  Customer,
  FeeQuote,
  IdempotencyRecord,
  Identifier,
  Journal,
  KycVersion,
  Mandate,
  Operation,
  OutboxEvent,
  RailPayment,
  SigningKey,
  SuspenseItem,
  Tenant,
  Wallet,
} from "@wallet/ledger-core";
import { scopes } from "@wallet/ledger-core";

let counter = 0;
/**
 * A name no other test of the run uses: suites share one database per store, so every test works
 * in its own tenants, wallets and currencies and never sees another test's rows.
 */
export const unique = (prefix: string): string =>
  `${prefix}_${process.pid}_${Date.now().toString(36)}_${++counter}`;

/** A three-letter-ish currency code unique to the test (trial balances are per currency). */
export const uniqueCurrency = (): string => `T${(++counter).toString(36).toUpperCase()}${Date.now() % 1000}`;

/** `base` plus `ms` milliseconds, as the ISO string the store keeps. */
export const at = (ms: number, base = "2026-11-22T10:00:00.000Z"): string =>
  new Date(Date.parse(base) + ms).toISOString();

export function tenantFixture(id: string, overrides: Partial<Tenant> = {}): Tenant {
  return {
    id,
    name: `Tenant ${id}`,
    status: "active",
    scopes: [...scopes],
    ipAllowlist: ["10.0.0.0/8", "192.168.1.7/32"],
    approvedProfiles: ["standard_kes"],
    defaultProfile: "standard_kes",
    approvedKycLevels: ["tier_1", "tier_2"],
    approvedRails: ["sandbox_mobile"],
    rateLimit: { perSecond: 2.5, burst: 100 },
    webhook: {
      url: "http://127.0.0.1:9000/hooks",
      enabled: true,
      events: ["payout.confirmed", "wallet_credit.completed"],
      secrets: [{ kid: "wh1", secret: "s3cr3t-✓", createdAt: at(0) }],
    },
    ...overrides,
  };
}

export function signingKeyFixture(
  tenantId: string,
  kid: string,
  overrides: Partial<SigningKey> = {},
): SigningKey {
  return {
    tenantId,
    kid,
    publicKeyPem: `-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA${kid}\n-----END PUBLIC KEY-----\n`,
    status: "active",
    expiresAt: null,
    createdAt: at(0),
    ...overrides,
  };
}

export function customerFixture(tenantId: string, overrides: Partial<Customer> = {}): Customer {
  return {
    uid: unique("cus"),
    tenantId,
    status: "active",
    customerType: "person",
    displayName: "Wanjiku Kamau",
    dateOfBirth: "1990-04-01",
    regionCode: "KE-30",
    preferredLocale: "en-KE",
    clientReference: "crm-42",
    metadata: { segment: "retail", nested: { tags: ["a", "b"], n: 1.5, yes: true, nothing: null } },
    createdAt: at(0),
    ...overrides,
  };
}

export function identifierFixture(c: Customer, overrides: Partial<Identifier> = {}): Identifier {
  return {
    uid: unique("idn"),
    tenantId: c.tenantId,
    customerUid: c.uid,
    class: "contact",
    type: "msisdn",
    sealedValue: "v1:key1:c2VhbGVk",
    blindIndex: unique("bi"),
    maskedValue: "+2547******78",
    isPrimary: true,
    verificationStatus: "verified",
    verifiedAt: at(1),
    issuingCountry: null,
    validFrom: at(0),
    validTo: null,
    createdAt: at(0),
    ...overrides,
  };
}

export function agreementFixture(c: Customer, overrides: Partial<Agreement> = {}): Agreement {
  return {
    uid: unique("agr"),
    tenantId: c.tenantId,
    customerUid: c.uid,
    agreementType: "wallet_opening",
    documentType: "terms",
    documentVersion: "2026-01",
    documentUri: "https://example.com/terms/2026-01",
    documentHash: "ab".repeat(32),
    status: "accepted",
    acceptedAt: at(0),
    acceptedChannel: "mobile_app",
    evidenceHash: "cd".repeat(32),
    createdAt: at(0),
    ...overrides,
  };
}

export function kycVersionFixture(c: Customer, overrides: Partial<KycVersion> = {}): KycVersion {
  return {
    uid: unique("kyc"),
    tenantId: c.tenantId,
    customerUid: c.uid,
    tierCode: "tier_1",
    reviewType: "onboarding",
    state: "pending",
    verificationSource: "provider_x",
    sourceReference: null,
    riskRating: "low",
    evidenceHash: "ef".repeat(32),
    effectiveFrom: null,
    rejectionReason: null,
    createdAt: at(0),
    ...overrides,
  };
}

export function walletFixture(c: Customer, overrides: Partial<Wallet> = {}): Wallet {
  return {
    uid: unique("wal"),
    tenantId: c.tenantId,
    customerUid: c.uid,
    purpose: "main",
    status: "active",
    currency: "KES",
    rulesProfileKey: "standard_kes",
    kycTierCode: "tier_1",
    createdAt: at(0),
    ...overrides,
  };
}

export function operationFixture(tenantId: string, overrides: Partial<Operation> = {}): Operation {
  return {
    uid: unique("op"),
    tenantId,
    type: "wallet_credit",
    state: "completed",
    amountMinor: 1_000,
    feeMinor: 0,
    taxMinor: 0,
    currency: "KES",
    clientReference: null,
    customerUid: null,
    sourceWalletUid: null,
    destinationWalletUid: null,
    counterpartyHint: null,
    feeBreakdown: [],
    provider: null,
    mandateUid: null,
    intentReference: null,
    expiresAt: null,
    details: null,
    metadata: null,
    createdAt: at(0),
    completedAt: null,
    fundsMovedAt: null,
    updatedAt: at(0),
    ...overrides,
  };
}

export function journalFixture(
  tenantId: string,
  currency: string,
  transfers: { from: string; to: string; amountMinor: number; label?: string }[],
  overrides: Partial<Journal> = {},
): Journal {
  return {
    uid: unique("jrn"),
    tenantId,
    operationUid: null,
    currency,
    kind: "test_transfer",
    createdAt: at(0),
    entries: transfers.flatMap((t) => [
      { accountKey: t.from, amountMinor: -t.amountMinor, label: t.label ?? "amount" },
      { accountKey: t.to, amountMinor: t.amountMinor, label: t.label ?? "amount" },
    ]),
    ...overrides,
  };
}

export function outboxEventFixture(tenantId: string, overrides: Partial<OutboxEvent> = {}): OutboxEvent {
  const id = unique("evt");
  return {
    id,
    tenantId,
    type: "wallet_credit.completed",
    resourceUid: unique("op"),
    seq: 1,
    dedupKey: `dedup-${id}`,
    occurredAt: at(0),
    body: '{"id":"evt","data":{"amountMinor":9007199254740991,"note":"ünï"}}',
    ...overrides,
  };
}

export function idempotencyFixture(
  tenantId: string,
  overrides: Partial<IdempotencyRecord> = {},
): IdempotencyRecord {
  return {
    tenantId,
    key: unique("idem"),
    requestHash: "11".repeat(32),
    state: "in_progress",
    response: null,
    lockedUntil: at(30_000),
    createdAt: at(0),
    ...overrides,
  };
}

export function auditFixture(tenantId: string, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    at: at(0),
    tenantId,
    kid: "k1",
    action: "customer.read_unmasked",
    customerUid: unique("cus"),
    identifierUids: [unique("idn"), unique("idn")],
    requestId: "req-1",
    ...overrides,
  };
}

export function mandateFixture(
  customerUid: string,
  walletUid: string,
  tenantId: string,
  overrides: Partial<Mandate> = {},
): Mandate {
  return {
    uid: unique("man"),
    tenantId,
    customerUid,
    walletUid,
    beneficiaryEntityCode: "POWERCO",
    clientReference: unique("mref"),
    amountRule: "up_to",
    fixedOrMaxAmountMinor: 250_000,
    frequency: "monthly",
    currency: "KES",
    validFrom: at(0),
    validTo: at(86_400_000),
    status: "pending",
    agreementUid: null,
    replacesMandateUid: null,
    revokedAt: null,
    revocationReason: null,
    revokedBy: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function quoteFixture(tenantId: string, overrides: Partial<FeeQuote> = {}): FeeQuote {
  return {
    quoteId: unique("quo"),
    tenantId,
    operationType: "payout_b2c",
    walletUid: unique("wal"),
    currency: "KES",
    amountMinor: 100_000,
    feeMinor: 4_000,
    taxMinor: 400,
    totalMinor: 104_400,
    breakdown: [
      { label: "Transfer fee", type: "flat", amountMinor: 2_500, refundable: true, appliesToLabel: null },
      { label: "Levy", type: "percentage", amountMinor: 1_500, refundable: false, appliesToLabel: null },
      { label: "VAT", type: "vat", amountMinor: 400, refundable: true, appliesToLabel: "Transfer fee" },
    ],
    ruleVersion: { uid: "fee_1", ruleCode: "payout_std", versionNo: 1 },
    railCode: "sandbox_mobile",
    validUntil: at(300_000),
    createdAt: at(0),
    ...overrides,
  };
}

export function railPaymentFixture(overrides: Partial<RailPayment> = {}): RailPayment {
  return {
    railCode: "sandbox_mobile",
    providerReference: unique("prv"),
    reference: "123456789012",
    amountMinor: 50_000,
    currency: "KES",
    receivedAt: at(0),
    operationUid: unique("op"),
    suspenseUid: null,
    ...overrides,
  };
}

export function suspenseFixture(overrides: Partial<SuspenseItem> = {}): SuspenseItem {
  return {
    uid: unique("sus"),
    railCode: "sandbox_mobile",
    tenantId: null,
    reference: "000000000000",
    amountMinor: 50_000,
    currency: "KES",
    providerReference: unique("prv"),
    reason: "unknown_reference",
    status: "open",
    createdAt: at(0),
    resolvedAt: null,
    resolution: null,
    ...overrides,
  };
}
