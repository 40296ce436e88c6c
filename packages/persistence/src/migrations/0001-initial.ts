import { type Kysely, type Migration, sql } from "kysely";
import type { SqlDialect } from "../shared/sql-dialect.js";

/**
 * The initial schema. Frozen in time: it takes `Kysely<any>` and never imports the current row
 * types, so later changes to the application cannot change what this migration does.
 *
 * Foreign keys are DEFERRABLE INITIALLY DEFERRED: they are checked at commit, so a unit of work may
 * write parent and child rows in any order.
 */
export function initialMigration(dialect: SqlDialect): Migration {
  // An auto-increment key recording insertion order. SQLite: the rowid alias; Postgres: identity.
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  const ordinal = (db: Kysely<any>, table: string) =>
    dialect === "postgres"
      ? db.schema
          .createTable(table)
          .addColumn("ordinal", "bigint", (c) => c.primaryKey().generatedAlwaysAsIdentity())
      : db.schema.createTable(table).addColumn("ordinal", "integer", (c) => c.primaryKey().autoIncrement());

  // Checked at commit, so a unit of work may write parent and child rows in any order.
  const deferred = <T extends { deferrable(): T; initiallyDeferred(): T }>(fk: T) =>
    fk.deferrable().initiallyDeferred();

  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable("tenants")
        .addColumn("id", "text", (c) => c.primaryKey())
        .addColumn("name", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("scopes", "text", (c) => c.notNull())
        .addColumn("ip_allowlist", "text", (c) => c.notNull())
        .addColumn("approved_profiles", "text", (c) => c.notNull())
        .addColumn("default_profile", "text")
        .addColumn("approved_kyc_levels", "text", (c) => c.notNull())
        .addColumn("approved_rails", "text", (c) => c.notNull())
        .addColumn("rate_limit", "text", (c) => c.notNull())
        .addColumn("webhook", "text", (c) => c.notNull())
        .execute();

      await db.schema
        .createTable("tenant_api_keys")
        .addColumn("api_key_sha256", "text", (c) => c.primaryKey().check(sql`length(api_key_sha256) = 64`))
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addForeignKeyConstraint("tenant_api_keys_tenant_id_fk", ["tenant_id"], "tenants", ["id"], (fk) =>
          fk.onDelete("cascade").deferrable().initiallyDeferred(),
        )
        .execute();
      await db.schema
        .createIndex("tenant_api_keys_tenant")
        .on("tenant_api_keys")
        .column("tenant_id")
        .execute();

      await db.schema
        .createTable("signing_keys")
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("kid", "text", (c) => c.notNull())
        .addColumn("public_key_pem", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("expires_at", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("signing_keys_pk", ["tenant_id", "kid"])
        .addForeignKeyConstraint("signing_keys_tenant_id_fk", ["tenant_id"], "tenants", ["id"], (fk) =>
          fk.onDelete("cascade").deferrable().initiallyDeferred(),
        )
        .execute();

      await db.schema
        .createTable("replay_guard")
        .addColumn("signature", "text", (c) => c.primaryKey())
        .addColumn("seen_at", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("replay_guard_expires_at")
        .on("replay_guard")
        .column("expires_at")
        .execute();

      await db.schema
        .createTable("customers")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("customer_type", "text", (c) => c.notNull())
        .addColumn("display_name", "text", (c) => c.notNull())
        .addColumn("date_of_birth", "text")
        .addColumn("region_code", "text")
        .addColumn("preferred_locale", "text", (c) => c.notNull())
        .addColumn("client_reference", "text")
        .addColumn("metadata", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint("customers_tenant_id_fk", ["tenant_id"], "tenants", ["id"], deferred)
        .execute();
      await db.schema
        .createIndex("customers_tenant_created")
        .on("customers")
        .columns(["tenant_id", "created_at", "uid"])
        .execute();

      await db.schema
        .createTable("identifiers")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text", (c) => c.notNull())
        .addColumn("class", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("sealed_value", "text", (c) => c.notNull())
        .addColumn("blind_index", "text", (c) => c.notNull())
        .addColumn("masked_value", "text", (c) => c.notNull())
        .addColumn("is_primary", "integer", (c) => c.notNull().check(sql`is_primary in (0, 1)`))
        .addColumn("verification_status", "text", (c) => c.notNull())
        .addColumn("verified_at", "text")
        .addColumn("issuing_country", "text")
        .addColumn("valid_from", "text", (c) => c.notNull())
        .addColumn("valid_to", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint(
          "identifiers_customer_uid_fk",
          ["customer_uid"],
          "customers",
          ["uid"],
          deferred,
        )
        .execute();
      await db.schema
        .createIndex("identifiers_customer")
        .on("identifiers")
        .columns(["customer_uid", "created_at", "uid"])
        .execute();
      // One verified holder of a value per tenant: the duplicate check that survives races.
      await db.schema
        .createIndex("identifiers_verified_blind_index_unique")
        .on("identifiers")
        .columns(["tenant_id", "blind_index"])
        .unique()
        .where(sql.ref("verification_status"), "=", "verified")
        .execute();

      await db.schema
        .createTable("agreements")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text", (c) => c.notNull())
        .addColumn("agreement_type", "text", (c) => c.notNull())
        .addColumn("document_type", "text", (c) => c.notNull())
        .addColumn("document_version", "text", (c) => c.notNull())
        .addColumn("document_uri", "text", (c) => c.notNull())
        .addColumn("document_hash", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("accepted_at", "text", (c) => c.notNull())
        .addColumn("accepted_channel", "text", (c) => c.notNull())
        .addColumn("evidence_hash", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint(
          "agreements_customer_uid_fk",
          ["customer_uid"],
          "customers",
          ["uid"],
          deferred,
        )
        .execute();
      await db.schema
        .createIndex("agreements_customer")
        .on("agreements")
        .columns(["customer_uid", "created_at", "uid"])
        .execute();

      await db.schema
        .createTable("kyc_versions")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text", (c) => c.notNull())
        .addColumn("tier_code", "text", (c) => c.notNull())
        .addColumn("review_type", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("verification_source", "text", (c) => c.notNull())
        .addColumn("source_reference", "text")
        .addColumn("risk_rating", "text")
        .addColumn("evidence_hash", "text", (c) => c.notNull())
        .addColumn("effective_from", "text")
        .addColumn("rejection_reason", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint(
          "kyc_versions_customer_uid_fk",
          ["customer_uid"],
          "customers",
          ["uid"],
          deferred,
        )
        .execute();
      await db.schema
        .createIndex("kyc_versions_customer")
        .on("kyc_versions")
        .columns(["customer_uid", "created_at", "uid"])
        .execute();

      await db.schema
        .createTable("wallets")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text", (c) => c.notNull())
        .addColumn("purpose", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("rules_profile_key", "text", (c) => c.notNull())
        .addColumn("kyc_tier_code", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint("wallets_customer_uid_fk", ["customer_uid"], "customers", ["uid"], deferred)
        .execute();
      await db.schema
        .createIndex("wallets_customer")
        .on("wallets")
        .columns(["customer_uid", "created_at", "uid"])
        .execute();

      // Balance projections. The CHECK is the last line of defence behind the domain's own check:
      // accounts holding someone's money (wallets, holds, prefunds) never go below zero.
      await db.schema
        .createTable("accounts")
        .addColumn("account_key", "text", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("balance_minor", "bigint", (c) => c.notNull().defaultTo(0))
        .addColumn("updated_at", "text")
        .addPrimaryKeyConstraint("accounts_pk", ["account_key", "currency"])
        .addCheckConstraint(
          "accounts_protected_non_negative",
          sql`case when account_key like 'wallet:%' or account_key like 'tenant:%:prefund' then balance_minor >= 0 else true end`,
        )
        .execute();

      await ordinal(db, "journals")
        .addColumn("uid", "text", (c) => c.notNull().unique())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("operation_uid", "text")
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("journals_operation")
        .on("journals")
        .columns(["operation_uid", "ordinal"])
        .execute();

      await db.schema
        .createTable("journal_entries")
        .addColumn("journal_uid", "text", (c) => c.notNull())
        .addColumn("line_no", "integer", (c) => c.notNull())
        .addColumn("account_key", "text", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("amount_minor", "bigint", (c) => c.notNull().check(sql`amount_minor <> 0`))
        .addColumn("label", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("journal_entries_pk", ["journal_uid", "line_no"])
        .addForeignKeyConstraint(
          "journal_entries_account_fk",
          ["account_key", "currency"],
          "accounts",
          ["account_key", "currency"],
          deferred,
        )
        .addForeignKeyConstraint(
          "journal_entries_journal_uid_fk",
          ["journal_uid"],
          "journals",
          ["uid"],
          deferred,
        )
        .execute();
      await db.schema
        .createIndex("journal_entries_account")
        .on("journal_entries")
        .columns(["account_key", "currency"])
        .execute();

      await db.schema
        .createTable("operations")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull())
        .addColumn("amount_minor", "bigint", (c) => c.notNull().check(sql`amount_minor >= 0`))
        .addColumn("fee_minor", "bigint", (c) => c.notNull().check(sql`fee_minor >= 0`))
        .addColumn("tax_minor", "bigint", (c) => c.notNull().check(sql`tax_minor >= 0`))
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("client_reference", "text")
        .addColumn("customer_uid", "text")
        .addColumn("source_wallet_uid", "text")
        .addColumn("destination_wallet_uid", "text")
        .addColumn("counterparty_hint", "text")
        .addColumn("fee_breakdown", "text", (c) => c.notNull())
        .addColumn("provider", "text")
        .addColumn("mandate_uid", "text")
        .addColumn("intent_reference", "text")
        .addColumn("expires_at", "text")
        .addColumn("details", "text")
        .addColumn("metadata", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("completed_at", "text")
        .addColumn("funds_moved_at", "text")
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint("operations_tenant_id_fk", ["tenant_id"], "tenants", ["id"], deferred)
        .execute();
      // A clientReference names one write of a kind per tenant: two racing requests create one operation.
      await db.schema
        .createIndex("operations_client_reference_unique")
        .on("operations")
        .columns(["tenant_id", "type", "client_reference"])
        .unique()
        .where(sql.ref("client_reference"), "is not", null)
        .execute();
      // Listing pages walk these in (created_at, uid) order instead of sorting the matches.
      for (const [name, column] of [
        ["operations_tenant_created", "tenant_id"],
        ["operations_source_created", "source_wallet_uid"],
        ["operations_destination_created", "destination_wallet_uid"],
        ["operations_customer_created", "customer_uid"],
      ] as const) {
        await db.schema.createIndex(name).on("operations").columns([column, "created_at", "uid"]).execute();
      }

      await db.schema
        .createIndex("operations_mandate_created")
        .on("operations")
        .columns(["mandate_uid", "created_at"])
        .where(sql.ref("mandate_uid"), "is not", null)
        .execute();
      await db.schema
        .createIndex("operations_intent_reference")
        .on("operations")
        .columns(["intent_reference", "uid"])
        .where(sql.ref("intent_reference"), "is not", null)
        .execute();
      // Two live intents quoting one reference would make an inbound payment ambiguous.
      await db.schema
        .createIndex("operations_pending_intent_reference_unique")
        .on("operations")
        .column("intent_reference")
        .unique()
        .where(sql<boolean>`intent_reference is not null and state = 'pending_provider'`)
        .execute();
      await db.schema
        .createIndex("operations_pending_topups_expiry")
        .on("operations")
        .columns(["expires_at", "uid"])
        .where(sql<boolean>`type = 'topup_c2b' and state = 'pending_provider'`)
        .execute();

      await db.schema
        .createTable("operation_timeline")
        .addColumn("operation_uid", "text", (c) => c.notNull())
        .addColumn("sequence_no", "integer", (c) => c.notNull())
        .addColumn("from_state", "text")
        .addColumn("to_state", "text", (c) => c.notNull())
        .addColumn("occurred_at", "text", (c) => c.notNull())
        .addColumn("actor_type", "text")
        .addPrimaryKeyConstraint("operation_timeline_pk", ["operation_uid", "sequence_no"])
        .addForeignKeyConstraint(
          "operation_timeline_operation_uid_fk",
          ["operation_uid"],
          "operations",
          ["uid"],
          deferred,
        )
        .execute();

      await ordinal(db, "outbox_events")
        .addColumn("id", "text", (c) => c.notNull().unique())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("type", "text", (c) => c.notNull())
        .addColumn("resource_uid", "text", (c) => c.notNull())
        .addColumn("seq", "integer", (c) => c.notNull().check(sql`seq >= 1`))
        .addColumn("dedup_key", "text", (c) => c.notNull())
        .addColumn("occurred_at", "text", (c) => c.notNull())
        .addColumn("body", "text", (c) => c.notNull())
        // The outbox row is the delivery: its bookkeeping lives beside the event.
        .addColumn("state", "text", (c) =>
          c
            .notNull()
            .defaultTo("pending")
            .check(sql`state in ('pending', 'delivering', 'delivered', 'failed')`),
        )
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0).check(sql`attempts >= 0`))
        .addColumn("next_attempt_at", "text")
        .addColumn("lease_until", "text")
        .addColumn("lease_id", "text")
        .addColumn("last_status_code", "integer")
        .addColumn("last_error", "text")
        .addColumn("last_attempt_at", "text")
        .addColumn("delivered_at", "text")
        .addUniqueConstraint("outbox_events_resource_seq_unique", ["resource_uid", "seq"])
        .addCheckConstraint(
          "outbox_events_lease_while_delivering",
          sql`(state = 'delivering') = (lease_id is not null and lease_until is not null)`,
        )
        .execute();
      await db.schema
        .createIndex("outbox_events_tenant")
        .on("outbox_events")
        .columns(["tenant_id", "ordinal"])
        .execute();
      await db.schema
        .createIndex("outbox_events_state")
        .on("outbox_events")
        .columns(["state", "ordinal"])
        .execute();
      // Only undelivered events are ever scanned by the dispatcher; delivered ones pile up outside.
      await db.schema
        .createIndex("outbox_events_blocking_head")
        .on("outbox_events")
        .columns(["resource_uid", "seq"])
        .where(sql<boolean>`state in ('pending', 'delivering')`)
        .execute();
      await db.schema
        .createIndex("outbox_events_undelivered")
        .on("outbox_events")
        .columns(["ordinal"])
        .where(sql<boolean>`state in ('pending', 'delivering')`)
        .execute();

      await db.schema
        .createTable("idempotency_keys")
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("key", "text", (c) => c.notNull())
        .addColumn("request_hash", "text", (c) => c.notNull())
        .addColumn("state", "text", (c) => c.notNull().check(sql`state in ('in_progress', 'completed')`))
        .addColumn("response_status", "integer")
        .addColumn("response_body", "text")
        .addColumn("locked_until", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addPrimaryKeyConstraint("idempotency_keys_pk", ["tenant_id", "key"])
        .addCheckConstraint(
          "idempotency_keys_completed_has_response",
          sql`state <> 'completed' or (response_status is not null and response_body is not null)`,
        )
        .execute();
      await db.schema
        .createIndex("idempotency_keys_created")
        .on("idempotency_keys")
        .column("created_at")
        .execute();

      await ordinal(db, "audit_log")
        .addColumn("at", "text", (c) => c.notNull())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("kid", "text")
        .addColumn("action", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text")
        .addColumn("identifier_uids", "text", (c) => c.notNull())
        .addColumn("request_id", "text")
        .execute();
      await db.schema
        .createIndex("audit_log_tenant")
        .on("audit_log")
        .columns(["tenant_id", "ordinal"])
        .execute();

      await ordinal(db, "assertion_uses")
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("source_reference", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text", (c) => c.notNull())
        .addColumn("expires_at", "text", (c) => c.notNull())
        .addColumn("recorded_at", "text", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("assertion_uses_reference")
        .on("assertion_uses")
        .columns(["tenant_id", "source_reference", "ordinal"])
        .execute();
      await db.schema
        .createIndex("assertion_uses_expires_at")
        .on("assertion_uses")
        .column("expires_at")
        .execute();

      await db.schema
        .createTable("mandates")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("customer_uid", "text", (c) => c.notNull())
        .addColumn("wallet_uid", "text", (c) => c.notNull())
        .addColumn("beneficiary_entity_code", "text", (c) => c.notNull())
        .addColumn("client_reference", "text")
        .addColumn("amount_rule", "text", (c) => c.notNull())
        .addColumn("fixed_or_max_amount_minor", "bigint", (c) => c.check(sql`fixed_or_max_amount_minor >= 0`))
        .addColumn("frequency", "text", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("valid_from", "text", (c) => c.notNull())
        .addColumn("valid_to", "text")
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("agreement_uid", "text")
        .addColumn("replaces_mandate_uid", "text")
        .addColumn("revoked_at", "text")
        .addColumn("revocation_reason", "text")
        .addColumn("revoked_by", "text")
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("updated_at", "text", (c) => c.notNull())
        .addForeignKeyConstraint("mandates_customer_uid_fk", ["customer_uid"], "customers", ["uid"], deferred)
        .addForeignKeyConstraint("mandates_wallet_uid_fk", ["wallet_uid"], "wallets", ["uid"], deferred)
        .execute();
      await db.schema
        .createIndex("mandates_tenant_created")
        .on("mandates")
        .columns(["tenant_id", "created_at", "uid"])
        .execute();
      await db.schema
        .createIndex("mandates_customer_created")
        .on("mandates")
        .columns(["customer_uid", "created_at", "uid"])
        .execute();
      await db.schema
        .createIndex("mandates_pending_valid_from")
        .on("mandates")
        .columns(["valid_from", "uid"])
        .where(sql<boolean>`status = 'pending'`)
        .execute();
      await db.schema
        .createIndex("mandates_open_valid_to")
        .on("mandates")
        .columns(["valid_to", "uid"])
        .where(sql<boolean>`status in ('pending', 'active', 'suspended') and valid_to is not null`)
        .execute();

      await db.schema
        .createTable("fee_quotes")
        .addColumn("quote_id", "text", (c) => c.primaryKey())
        .addColumn("tenant_id", "text", (c) => c.notNull())
        .addColumn("operation_type", "text", (c) => c.notNull())
        .addColumn("wallet_uid", "text", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("amount_minor", "bigint", (c) => c.notNull().check(sql`amount_minor >= 0`))
        .addColumn("fee_minor", "bigint", (c) => c.notNull().check(sql`fee_minor >= 0`))
        .addColumn("tax_minor", "bigint", (c) => c.notNull().check(sql`tax_minor >= 0`))
        .addColumn("total_minor", "bigint", (c) => c.notNull().check(sql`total_minor >= 0`))
        .addColumn("breakdown", "text", (c) => c.notNull())
        .addColumn("rule_version", "text")
        .addColumn("rail_code", "text")
        .addColumn("valid_until", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .execute();
      await db.schema.createIndex("fee_quotes_valid_until").on("fee_quotes").column("valid_until").execute();

      await db.schema
        .createTable("rail_payments")
        .addColumn("rail_code", "text", (c) => c.notNull())
        .addColumn("provider_reference", "text", (c) => c.notNull())
        .addColumn("reference", "text", (c) => c.notNull())
        .addColumn("amount_minor", "bigint", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("received_at", "text", (c) => c.notNull())
        .addColumn("operation_uid", "text")
        .addColumn("suspense_uid", "text")
        .addPrimaryKeyConstraint("rail_payments_pk", ["rail_code", "provider_reference"])
        .execute();

      await db.schema
        .createTable("suspense_items")
        .addColumn("uid", "text", (c) => c.primaryKey())
        .addColumn("rail_code", "text", (c) => c.notNull())
        .addColumn("tenant_id", "text")
        .addColumn("reference", "text", (c) => c.notNull())
        .addColumn("amount_minor", "bigint", (c) => c.notNull())
        .addColumn("currency", "text", (c) => c.notNull())
        .addColumn("provider_reference", "text", (c) => c.notNull())
        .addColumn("reason", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("created_at", "text", (c) => c.notNull())
        .addColumn("resolved_at", "text")
        .addColumn("resolution", "text")
        .execute();
      await db.schema
        .createIndex("suspense_items_status_created")
        .on("suspense_items")
        .columns(["status", "created_at", "uid"])
        .execute();
    },

    // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
    async down(db: Kysely<any>): Promise<void> {
      for (const table of [
        "suspense_items",
        "rail_payments",
        "fee_quotes",
        "mandates",
        "assertion_uses",
        "audit_log",
        "idempotency_keys",
        "outbox_events",
        "operation_timeline",
        "operations",
        "journal_entries",
        "journals",
        "accounts",
        "wallets",
        "kyc_versions",
        "agreements",
        "identifiers",
        "customers",
        "replay_guard",
        "signing_keys",
        "tenant_api_keys",
        "tenants",
      ]) {
        await db.schema.dropTable(table).ifExists().execute();
      }
    },
  };
}
