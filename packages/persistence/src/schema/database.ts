import type { Generated } from "kysely";

/**
 * Row types of the tables, as the application reads and writes them today. Migrations never import
 * these (they are frozen in time and take `Kysely<any>`); this is the current shape only.
 *
 * Storage conventions, identical on SQLite and Postgres:
 * - money and counters are 64-bit integers read back as exact `number`s (the drivers refuse values
 *   beyond 2^53-1 instead of rounding them);
 * - timestamps are ISO-8601 UTC strings with milliseconds (`2026-11-22T10:00:00.000Z`) in text
 *   columns: byte-identical on every read, and their lexicographic order is their time order;
 * - JSON values are text holding `JSON.stringify` output, so what is read is what was written;
 * - booleans are integers 0/1 (SQLite has no boolean type and better-sqlite3 cannot bind one).
 */
export interface Database {
  tenants: TenantsTable;
  tenant_api_keys: TenantApiKeysTable;
  signing_keys: SigningKeysTable;
  replay_guard: ReplayGuardTable;
  customers: CustomersTable;
  identifiers: IdentifiersTable;
  agreements: AgreementsTable;
  kyc_versions: KycVersionsTable;
  wallets: WalletsTable;
  accounts: AccountsTable;
  journals: JournalsTable;
  journal_entries: JournalEntriesTable;
  operations: OperationsTable;
  operation_timeline: OperationTimelineTable;
  wallet_day_totals: WalletDayTotalsTable;
  outbox_events: OutboxEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
  assertion_uses: AssertionUsesTable;
  mandates: MandatesTable;
  fee_quotes: FeeQuotesTable;
  rail_payments: RailPaymentsTable;
  suspense_items: SuspenseItemsTable;
}

export interface TenantsTable {
  id: string;
  name: string;
  status: string;
  /** JSON array of scopes. */
  scopes: string;
  /** JSON array of CIDR blocks. */
  ip_allowlist: string;
  approved_profiles: string;
  default_profile: string | null;
  approved_kyc_levels: string;
  approved_rails: string;
  /** JSON RateLimit (rates may be fractional, so not an integer column). */
  rate_limit: string;
  /** JSON WebhookConfig, secrets included (they sign deliveries, so they cannot be hashed). */
  webhook: string;
}

export interface TenantApiKeysTable {
  /** Lower-case SHA-256 hex of the API key; the key itself is never stored. */
  api_key_sha256: string;
  tenant_id: string;
  /** Set when the operator revoked the key (migration 0004); null while it authenticates. */
  revoked_at: string | null;
}

export interface SigningKeysTable {
  tenant_id: string;
  kid: string;
  public_key_pem: string;
  status: string;
  expires_at: string | null;
  created_at: string;
}

export interface ReplayGuardTable {
  signature: string;
  seen_at: string;
  expires_at: string;
}

export interface CustomersTable {
  uid: string;
  tenant_id: string;
  status: string;
  customer_type: string;
  display_name: string;
  date_of_birth: string | null;
  region_code: string | null;
  preferred_locale: string;
  client_reference: string | null;
  metadata: string | null;
  created_at: string;
}

export interface IdentifiersTable {
  uid: string;
  tenant_id: string;
  customer_uid: string;
  class: string;
  type: string;
  sealed_value: string;
  blind_index: string;
  masked_value: string;
  is_primary: number;
  verification_status: string;
  verified_at: string | null;
  issuing_country: string | null;
  valid_from: string;
  valid_to: string | null;
  created_at: string;
}

export interface AgreementsTable {
  uid: string;
  tenant_id: string;
  customer_uid: string;
  agreement_type: string;
  document_type: string;
  document_version: string;
  document_uri: string;
  document_hash: string;
  status: string;
  accepted_at: string;
  accepted_channel: string;
  evidence_hash: string;
  created_at: string;
}

export interface KycVersionsTable {
  uid: string;
  tenant_id: string;
  customer_uid: string;
  tier_code: string;
  review_type: string;
  state: string;
  verification_source: string;
  source_reference: string | null;
  risk_rating: string | null;
  evidence_hash: string;
  effective_from: string | null;
  rejection_reason: string | null;
  created_at: string;
}

export interface WalletsTable {
  uid: string;
  tenant_id: string;
  customer_uid: string;
  purpose: string;
  status: string;
  currency: string;
  rules_profile_key: string;
  kyc_tier_code: string;
  created_at: string;
}

export interface AccountsTable {
  account_key: string;
  currency: string;
  balance_minor: number;
  /** When a journal last touched the account; null while it never moved. */
  updated_at: string | null;
}

export interface JournalsTable {
  /** Posting order (auto-increment). */
  ordinal: Generated<number>;
  uid: string;
  tenant_id: string;
  operation_uid: string | null;
  currency: string;
  kind: string;
  created_at: string;
}

export interface JournalEntriesTable {
  journal_uid: string;
  line_no: number;
  account_key: string;
  currency: string;
  amount_minor: number;
  label: string;
}

export interface OperationsTable {
  uid: string;
  tenant_id: string;
  type: string;
  state: string;
  amount_minor: number;
  fee_minor: number;
  tax_minor: number;
  currency: string;
  client_reference: string | null;
  customer_uid: string | null;
  source_wallet_uid: string | null;
  destination_wallet_uid: string | null;
  counterparty_hint: string | null;
  /** JSON FeeLine[]. */
  fee_breakdown: string;
  /** JSON ProviderBlock or null. */
  provider: string | null;
  mandate_uid: string | null;
  intent_reference: string | null;
  expires_at: string | null;
  details: string | null;
  metadata: string | null;
  created_at: string;
  completed_at: string | null;
  funds_moved_at: string | null;
  updated_at: string;
}

/**
 * What counts toward a wallet's limits, per UTC day of the operations' `funds_moved_at`: amounts
 * of operations that moved funds and did not fail. Written only by triggers on `operations`
 * (migrations 0002 and 0003); read by `sumForWallet`.
 */
export interface WalletDayTotalsTable {
  wallet_uid: string;
  /** `YYYY-MM-DD`: the first ten characters of `funds_moved_at`. */
  day: string;
  /** Into the wallet (it is the destination). */
  inbound_minor: number;
  /** Out of the wallet (it is the source). */
  outbound_minor: number;
  /** Either way, once per operation (a wallet paying itself counts once). */
  both_minor: number;
}

export interface OperationTimelineTable {
  operation_uid: string;
  sequence_no: number;
  from_state: string | null;
  to_state: string;
  occurred_at: string;
  actor_type: string | null;
}

export interface OutboxEventsTable {
  /** Insertion order (auto-increment). */
  ordinal: Generated<number>;
  id: string;
  tenant_id: string;
  type: string;
  resource_uid: string;
  seq: number;
  dedup_key: string;
  occurred_at: string;
  body: string;
  /** Delivery bookkeeping: the outbox row is the delivery (see DeliveryStatus). */
  state: Generated<string>;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  lease_until: string | null;
  lease_id: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  delivered_at: string | null;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  locked_until: string;
  created_at: string;
}

export interface AuditLogTable {
  ordinal: Generated<number>;
  at: string;
  tenant_id: string;
  kid: string | null;
  action: string;
  customer_uid: string | null;
  /** JSON string[]. */
  identifier_uids: string;
  request_id: string | null;
}

export interface AssertionUsesTable {
  ordinal: Generated<number>;
  tenant_id: string;
  source_reference: string;
  customer_uid: string;
  expires_at: string;
  recorded_at: string;
}

export interface MandatesTable {
  uid: string;
  tenant_id: string;
  customer_uid: string;
  wallet_uid: string;
  beneficiary_entity_code: string;
  client_reference: string | null;
  amount_rule: string;
  fixed_or_max_amount_minor: number | null;
  frequency: string;
  currency: string;
  valid_from: string;
  valid_to: string | null;
  status: string;
  agreement_uid: string | null;
  replaces_mandate_uid: string | null;
  revoked_at: string | null;
  revocation_reason: string | null;
  revoked_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface FeeQuotesTable {
  quote_id: string;
  tenant_id: string;
  operation_type: string;
  wallet_uid: string;
  currency: string;
  amount_minor: number;
  fee_minor: number;
  tax_minor: number;
  total_minor: number;
  /** JSON FeeBreakdownLine[]. */
  breakdown: string;
  /** JSON { uid, ruleCode, versionNo } or null. */
  rule_version: string | null;
  rail_code: string | null;
  valid_until: string;
  created_at: string;
}

export interface RailPaymentsTable {
  rail_code: string;
  provider_reference: string;
  reference: string;
  amount_minor: number;
  currency: string;
  received_at: string;
  operation_uid: string | null;
  suspense_uid: string | null;
}

export interface SuspenseItemsTable {
  uid: string;
  rail_code: string;
  tenant_id: string | null;
  reference: string;
  amount_minor: number;
  currency: string;
  provider_reference: string;
  reason: string;
  status: string;
  created_at: string;
  resolved_at: string | null;
  /** JSON { action, walletUid, operationUid } or null. */
  resolution: string | null;
}
