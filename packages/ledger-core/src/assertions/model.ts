/** Customer authentication assertion (spec: Customer authentication assertion). */
export const assuranceLevels = ["single_factor", "two_factor", "step_up"] as const;
export type AssuranceLevel = (typeof assuranceLevels)[number];

/** The literal template the spec requires in `transactionBinding.canonical`. */
export const BINDING_TEMPLATE =
  "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference";

/** Default maximum lifetime of an assertion (expiresAt - authenticatedAt). */
export const ASSERTION_LIFETIME_SECONDS_MAX = 600;
/**
 * How far ahead of the service's clock an assertion's authenticatedAt may be: the spec's
 * timestamp tolerance for requests. An authentication dated later has not happened yet; taken at
 * its word it would keep its 10-minute lifetime for as long as it is dated ahead.
 */
export const ASSERTION_CLOCK_SKEW_SECONDS_MAX = 300;

export interface TransactionBinding {
  hash: string;
  algorithm: "sha256";
  canonical: string;
}

export interface Assertion {
  customerUid: string;
  identifierUid?: string | undefined;
  assuranceLevel: AssuranceLevel;
  factor1Type: string;
  factor2Type?: string | undefined;
  authenticatedAt: string;
  expiresAt: string;
  channelCode: string;
  deviceHash?: string | undefined;
  sourceReference: string;
  transactionBinding?: TransactionBinding | undefined;
}

/** A sourceReference seen in an accepted assertion, live until the assertion's expiresAt. */
export interface AssertionUse {
  tenantId: string;
  sourceReference: string;
  customerUid: string;
  expiresAt: string;
  recordedAt: string;
}

export interface AssertionRepository {
  /**
   * The most recent use of the sourceReference in the tenant that is still live at `nowIso`.
   * Serializes the units of work asking about the same (tenant, sourceReference) until they end
   * (Postgres: an advisory transaction lock; SQLite and the memory store run one writer at a
   * time), so two customers cannot both find it free and both record it.
   */
  findLive(tenantId: string, sourceReference: string, nowIso: string): Promise<AssertionUse | null>;
  record(use: AssertionUse): Promise<void>;
}

/** The six values bound by an assertion (spec: transaction binding rule). */
export interface BindingValues {
  customerUid: string;
  walletUid: string;
  amountMinor: number;
  currency: string;
  /** destinationIdentifierUid (payout), mandateUid (debit), empty otherwise. */
  target: string;
  clientReference: string | null;
}

/** `customerUid|walletUid|amountMinor|currency|target|clientReference`, UTF-8, no spaces. */
export const bindingCanonical = (v: BindingValues): string =>
  [v.customerUid, v.walletUid, String(v.amountMinor), v.currency, v.target, v.clientReference ?? ""].join(
    "|",
  );
