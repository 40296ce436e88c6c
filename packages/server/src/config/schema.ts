import {
  boundInstantMs,
  CURRENCY_CODE,
  eventTypes,
  hasCodePointsBetween,
  payoutOutcomes,
  railKinds,
  scopes,
  signingKeyStatuses,
  tenantStatuses,
} from "@wallet/ledger-core";
import * as v from "valibot";

/*
 * The config file (DESIGN.md section 9). Every object is strict: an unknown key is an error, so a
 * typo never silently becomes a default. Messages are written for the operator reading the one
 * line the CLI prints; rules that relate several values live in `cross-check.ts`.
 */

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

const integer = (min: number, max = MAX_SAFE, nullable = false) => {
  const range = max === MAX_SAFE ? `a safe integer >= ${min}` : `an integer from ${min} to ${max}`;
  const message = `expected ${range}${nullable ? " or null" : ""}`;
  return v.pipe(
    v.number(message),
    v.safeInteger(message),
    v.minValue(min, message),
    v.maxValue(max, message),
  );
};

/** Money and limits: integer minor units, never floats. */
const money = integer(0);
/** A limit where null means "no limit". */
const limitOrNull = v.nullable(integer(0, MAX_SAFE, true));
const bps = integer(0, 10_000);

/** Characters are code points, as in the API (`hasCodePointsBetween`). */
const text = (max = 200) =>
  v.pipe(
    v.string("expected a string"),
    v.check((s) => s.length > 0, "must not be empty"),
    v.check((s) => hasCodePointsBetween(s, 0, max), `must be at most ${max} characters`),
  );

const pattern = (re: RegExp, what: string) =>
  v.pipe(v.string(`expected ${what}`), v.regex(re, `expected ${what}`));

/** Codes end up inside ledger account keys (`beneficiary:{code}`), so no colons or spaces. */
const code = pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a code of 1-64 characters [A-Za-z0-9_.-]");
const entityCode = pattern(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$/, "a code of 1-40 characters [A-Za-z0-9_.-]");
const tenantId = pattern(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, "an id of 1-64 characters [A-Za-z0-9_-]");
const kid = pattern(/^[A-Za-z0-9._:-]{1,64}$/, "a kid of 1-64 characters [A-Za-z0-9._:-]");
const currency = pattern(CURRENCY_CODE, "a currency of 3 upper-case letters");
const sha256Hex = pattern(/^[0-9a-f]{64}$/, "64 lower-case hex characters (SHA-256)");
const bool = v.boolean("expected true or false");

/** Seconds may be left out ("2026-01-01T00:00Z"); the API's RFC 3339 reader does the rest. */
const withSeconds = (s: string) => s.replace(/^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(Z|[+-])/, "$1:00$2");

/** A real calendar time: `2027-02-31` is refused, not rolled over to March 3rd (as Date.parse does). */
const timestamp = v.pipe(
  v.string("expected an ISO-8601 timestamp"),
  v.regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/,
    "expected an ISO-8601 timestamp",
  ),
  v.check((s) => boundInstantMs(withSeconds(s), "upper") !== null, "expected a real calendar time"),
);

const httpUrl = v.pipe(
  v.string("expected an http(s) URL"),
  v.maxLength(2000, "must be at most 2000 characters"),
  v.check((s) => {
    try {
      const u = new URL(s);
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  }, "expected an http(s) URL"),
);

const oneOf = <const T extends readonly [string, ...string[]]>(options: T) =>
  v.picklist(options, `expected one of ${options.join(", ")}`);

const list = <T extends v.GenericSchema>(item: T, max = 1000) =>
  v.pipe(v.array(item, "expected an array"), v.maxLength(max, `must have at most ${max} items`));

const object = <T extends v.ObjectEntries>(entries: T) => v.strictObject(entries, "expected an object");

export const defaultWebhookSettings = {
  retryScheduleSeconds: [0, 60, 300, 1800, 7200, 43200, 43200, 43200],
  timeoutMs: 10_000,
  maxInFlight: 4,
} as const;

export const defaultRateLimit = { perSecond: 50, burst: 100 } as const;

/** Seconds as a number: fractions allowed, so tests can compress the retry schedule. */
const seconds = (max: number) => {
  const message = `expected a number of seconds from 0 to ${max}`;
  return v.pipe(v.number(message), v.finite(message), v.minValue(0, message), v.maxValue(max, message));
};

/** Bounds are the webhook dispatcher's own (`assertWebhookSettings`), so a valid file always starts. */
const webhookSettingsSchema = object({
  retryScheduleSeconds: v.optional(
    v.pipe(
      v.array(seconds(7 * 86_400), "expected an array"),
      v.minLength(1, "must have at least 1 item"),
      v.maxLength(32, "must have at most 32 items"),
      v.check((s) => s[0] === 0, "the first entry must be 0 (the first attempt is immediate)"),
    ),
    () => [...defaultWebhookSettings.retryScheduleSeconds],
  ),
  timeoutMs: v.optional(integer(1, 120_000), defaultWebhookSettings.timeoutMs),
  maxInFlight: v.optional(integer(1, 64), defaultWebhookSettings.maxInFlight),
  /** How long a leased delivery is held before another round may send it again (default timeoutMs + 60 s). */
  leaseMs: v.optional(integer(1, 3_600_000)),
});

const kycLevelSchema = object({
  code,
  name: text(),
  currency,
  maxBalanceMinor: money,
  maxSingleTxnMinor: limitOrNull,
  aggregateDailyLimitMinor: money,
  monthlyOutLimitMinor: limitOrNull,
  twoFactorThresholdMinor: money,
});

const walletProfileSchema = object({ key: code, name: text(), currency });

const railSchema = object({
  code,
  kind: oneOf(railKinds),
  currency,
  status: oneOf(["active", "inactive"]),
  payouts: bool,
  payins: bool,
  /** Top-up intent lifetime when the request names none; null = one hour (spec). */
  intentLifetimeSeconds: v.optional(v.nullable(integer(60, 86_400, true)), null),
  payerInstructions: v.optional(v.nullable(text(500)), null),
  /**
   * Sandbox rule (a `sandbox` rail only): payouts on this rail still awaiting the provider get this
   * outcome automatically, `autoOutcomeDelaySeconds` after they were handed to it. null: only the
   * operator API decides.
   */
  autoPayoutOutcome: v.optional(v.nullable(oneOf(payoutOutcomes)), null),
  autoOutcomeDelaySeconds: v.optional(integer(0, 86_400), 0),
});

const beneficiarySchema = object({ entityCode, name: text(), canCollect: bool });

const feeComponentSchema = v.variant(
  "type",
  [
    object({ label: text(100), type: v.literal("flat"), amountMinor: money, refundable: bool }),
    object({ label: text(100), type: v.literal("percentage"), rateBps: bps, refundable: bool }),
    object({
      label: text(100),
      type: v.literal("vat"),
      rateBps: bps,
      appliesToLabel: v.optional(v.nullable(text(100)), null),
      refundable: bool,
    }),
  ],
  "expected one of flat, percentage, vat",
);

/** Only these operation types carry charges (spec, POST /fees/quote). */
export const feeOperationTypes = ["wallet_credit", "wallet_debit", "payout_b2c", "topup_c2b"] as const;

const feeScheduleSchema = object({
  ruleCode: code,
  versionNo: integer(1),
  operationType: oneOf(feeOperationTypes),
  railCode: v.optional(v.nullable(code), null),
  currency,
  components: list(feeComponentSchema, 32),
});

const apiKeySchema = object({
  /** Plain key, sandbox only; stored as its SHA-256. */
  key: v.optional(pattern(/^[\x21-\x7e]{8,256}$/, "8-256 printable ASCII characters without spaces")),
  sha256: v.optional(sha256Hex),
});

const signingKeySchema = object({
  kid,
  publicKeyPem: text(4000),
  status: v.optional(oneOf(signingKeyStatuses), "active"),
  expiresAt: v.optional(v.nullable(timestamp), null),
});

const webhookSecretSchema = object({
  kid,
  secret: pattern(/^[\x21-\x7e]{1,512}$/, "1-512 printable ASCII characters without spaces"),
  createdAt: v.optional(timestamp),
});

const tenantWebhookSchema = object({
  url: v.nullable(httpUrl),
  enabled: v.optional(bool, true),
  /** Exact event types; empty subscribes to everything. */
  events: v.optional(list(oneOf(eventTypes), eventTypes.length), () => []),
  secrets: v.optional(list(webhookSecretSchema, 16), () => []),
});

const rateLimitSchema = object({ perSecond: integer(1, 1_000_000), burst: integer(1, 1_000_000) });

const tenantSchema = object({
  id: tenantId,
  name: text(),
  status: v.optional(oneOf(tenantStatuses), "active"),
  apiKeys: list(apiKeySchema, 64),
  signingKeys: list(signingKeySchema, 64),
  scopes: list(oneOf(scopes), scopes.length),
  ipAllowlist: v.optional(list(v.string("expected a CIDR block"), 256), () => []),
  approvedProfiles: list(code),
  defaultProfile: v.optional(v.nullable(code), null),
  approvedKycLevels: list(code),
  approvedRails: v.optional(list(code), () => []),
  webhook: v.optional(tenantWebhookSchema),
  rateLimit: v.optional(rateLimitSchema, () => ({ ...defaultRateLimit })),
});

/**
 * Store tuning (docs/performance.md). Group commit coalesces concurrent requests into one
 * transaction, each in its own savepoint; `enabled` defaults to the engine's choice: on for SQLite,
 * off for Postgres.
 */
const databaseSchema = object({
  /** Postgres connections in the pool (SQLite has one). Default 10. */
  poolSize: v.optional(integer(1, 1000)),
  /** Postgres: the hot statements as named prepared statements. Default true. */
  preparedStatements: v.optional(bool),
  /** SQLite: `full` syncs every commit (survives a power loss), `normal` does not. Default full. */
  sqliteSynchronous: v.optional(oneOf(["full", "normal"])),
  groupCommit: v.optional(
    object({
      enabled: v.optional(bool),
      maxBatch: v.optional(integer(1, 10_000)),
      maxWaitMs: v.optional(integer(0, 1_000)),
      writers: v.optional(integer(1, 64)),
    }),
  ),
});

export const configSchema = v.strictObject(
  {
    $schema: v.optional(v.string("expected a string")),
    sandbox: v.optional(bool, false),
    webhooks: v.optional(webhookSettingsSchema, () => ({
      ...defaultWebhookSettings,
      retryScheduleSeconds: [...defaultWebhookSettings.retryScheduleSeconds],
    })),
    kycLevels: list(kycLevelSchema),
    walletProfiles: list(walletProfileSchema),
    rails: v.optional(list(railSchema), () => []),
    beneficiaries: v.optional(list(beneficiarySchema), () => []),
    feeSchedules: v.optional(list(feeScheduleSchema), () => []),
    tenants: list(tenantSchema, 10_000),
    trustedProxies: v.optional(list(v.string("expected a CIDR block"), 256), () => []),
    database: v.optional(databaseSchema, () => ({})),
  },
  "expected a JSON object",
);

export type WalletConfig = v.InferOutput<typeof configSchema>;
export type TenantConfig = WalletConfig["tenants"][number];
export type FeeScheduleConfig = WalletConfig["feeSchedules"][number];
export type DatabaseConfig = WalletConfig["database"];
