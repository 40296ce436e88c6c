import type {
  FeeQuote,
  QuoteRepository,
  RailPayment,
  RailPaymentRepository,
  SuspenseItem,
  SuspenseRepository,
} from "@wallet/ledger-core";
import type { Selectable } from "kysely";
import type { FeeQuotesTable, RailPaymentsTable, SuspenseItemsTable } from "../schema/database.js";
import { fromJson, fromJsonOrNull, toJson, toJsonOrNull } from "../shared/json-column.js";
import { affected, explainLostUpdate, type SqlContext, versionTerms } from "./sql-context.js";

/** Quotes expired for longer than this are purged on every Nth insert, at most N rows at a time (ten an insert against the one added: a backlog shrinks). */
export const QUOTE_PURGE_EVERY = 100;
export const QUOTE_PURGE_MAX_ROWS = 1000;
export const QUOTE_RETENTION_MS = 24 * 3600 * 1000;

export function sqlQuoteRepository({ trx, housekeeping }: SqlContext): QuoteRepository {
  return {
    async insert(q) {
      housekeeping.quoteInserts = (housekeeping.quoteInserts + 1) % QUOTE_PURGE_EVERY;
      if (housekeeping.quoteInserts === 0) {
        // A day past its validity no payout can use a quote; keeping it only costs space.
        const cutoff = new Date(Date.parse(q.createdAt) - QUOTE_RETENTION_MS).toISOString();
        await trx
          .deleteFrom("fee_quotes")
          .where("quote_id", "in", (qb) =>
            qb
              .selectFrom("fee_quotes")
              .select("quote_id")
              .where("valid_until", "<", cutoff)
              .limit(QUOTE_PURGE_MAX_ROWS),
          )
          .execute();
      }
      await trx.insertInto("fee_quotes").values(fromQuote(q)).execute();
    },
    async get(tenantId, quoteId) {
      const row = await trx
        .selectFrom("fee_quotes")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("quote_id", "=", quoteId)
        .executeTakeFirst();
      return row ? toQuote(row) : null;
    },
  };
}

export function sqlRailPaymentRepository({ trx }: SqlContext): RailPaymentRepository {
  return {
    async insertIfNew(p) {
      // The primary key (rail_code, provider_reference) decides, also between racing reports.
      const result = await trx
        .insertInto("rail_payments")
        .values({
          rail_code: p.railCode,
          provider_reference: p.providerReference,
          reference: p.reference,
          amount_minor: p.amountMinor,
          currency: p.currency,
          received_at: p.receivedAt,
          operation_uid: p.operationUid,
          suspense_uid: p.suspenseUid,
        })
        .onConflict((oc) => oc.columns(["rail_code", "provider_reference"]).doNothing())
        .executeTakeFirst();
      return affected(result) === 1;
    },
    async get(railCode, providerReference) {
      const row = await trx
        .selectFrom("rail_payments")
        .selectAll()
        .where("rail_code", "=", railCode)
        .where("provider_reference", "=", providerReference)
        .executeTakeFirst();
      return row ? toRailPayment(row) : null;
    },
  };
}

const SUSPENSE = "suspense_items";

export function sqlSuspenseRepository({ trx, versions }: SqlContext): SuspenseRepository {
  return {
    async insert(item) {
      await trx.insertInto("suspense_items").values(fromSuspense(item)).execute();
      versions.remember(SUSPENSE, item.uid, { status: item.status, resolved_at: item.resolvedAt });
    },
    async update(item) {
      const { uid: _uid, created_at: _created, ...changes } = fromSuspense(item);
      let q = trx.updateTable("suspense_items").set(changes).where("uid", "=", item.uid);
      // A suspense item resolved twice would credit the payment twice: the version guard refuses.
      for (const term of versionTerms(versions.get(SUSPENSE, item.uid))) q = q.where(term);
      if (affected(await q.executeTakeFirst()) === 0) {
        await explainLostUpdate(
          async () =>
            (await trx
              .selectFrom("suspense_items")
              .select("uid")
              .where("uid", "=", item.uid)
              .executeTakeFirst()) !== undefined,
          "suspense item",
        );
      }
      versions.remember(SUSPENSE, item.uid, { status: item.status, resolved_at: item.resolvedAt });
    },
    async get(uid) {
      const row = await trx
        .selectFrom("suspense_items")
        .selectAll()
        .where("uid", "=", uid)
        .executeTakeFirst();
      if (!row) return null;
      versions.remember(SUSPENSE, row.uid, { status: row.status, resolved_at: row.resolved_at });
      return toSuspense(row);
    },
    async list({ status, limit, offset }) {
      let q = trx.selectFrom("suspense_items").selectAll();
      if (status !== undefined) q = q.where("status", "=", status);
      // Oldest first; uid makes the order total. One status walks suspense_items_status_created.
      const rows = await q
        .orderBy("created_at")
        .orderBy("uid")
        .limit(Math.max(0, Math.trunc(limit)))
        .offset(Math.max(0, Math.trunc(offset)))
        .execute();
      return rows.map(toSuspense);
    },
  };
}

function fromQuote(q: FeeQuote): Selectable<FeeQuotesTable> {
  return {
    quote_id: q.quoteId,
    tenant_id: q.tenantId,
    operation_type: q.operationType,
    wallet_uid: q.walletUid,
    currency: q.currency,
    amount_minor: q.amountMinor,
    fee_minor: q.feeMinor,
    tax_minor: q.taxMinor,
    total_minor: q.totalMinor,
    breakdown: toJson(q.breakdown),
    rule_version: toJsonOrNull(q.ruleVersion),
    rail_code: q.railCode,
    valid_until: q.validUntil,
    created_at: q.createdAt,
  };
}

function toQuote(r: Selectable<FeeQuotesTable>): FeeQuote {
  return {
    quoteId: r.quote_id,
    tenantId: r.tenant_id,
    operationType: r.operation_type,
    walletUid: r.wallet_uid,
    currency: r.currency,
    amountMinor: r.amount_minor,
    feeMinor: r.fee_minor,
    taxMinor: r.tax_minor,
    totalMinor: r.total_minor,
    breakdown: fromJson(r.breakdown),
    ruleVersion: fromJsonOrNull(r.rule_version),
    railCode: r.rail_code,
    validUntil: r.valid_until,
    createdAt: r.created_at,
  };
}

function toRailPayment(r: Selectable<RailPaymentsTable>): RailPayment {
  return {
    railCode: r.rail_code,
    providerReference: r.provider_reference,
    reference: r.reference,
    amountMinor: r.amount_minor,
    currency: r.currency,
    receivedAt: r.received_at,
    operationUid: r.operation_uid,
    suspenseUid: r.suspense_uid,
  };
}

function fromSuspense(s: SuspenseItem): Selectable<SuspenseItemsTable> {
  return {
    uid: s.uid,
    rail_code: s.railCode,
    tenant_id: s.tenantId,
    reference: s.reference,
    amount_minor: s.amountMinor,
    currency: s.currency,
    provider_reference: s.providerReference,
    reason: s.reason,
    status: s.status,
    created_at: s.createdAt,
    resolved_at: s.resolvedAt,
    resolution: toJsonOrNull(s.resolution),
  };
}

function toSuspense(r: Selectable<SuspenseItemsTable>): SuspenseItem {
  return {
    uid: r.uid,
    railCode: r.rail_code,
    tenantId: r.tenant_id,
    reference: r.reference,
    amountMinor: r.amount_minor,
    currency: r.currency,
    providerReference: r.provider_reference,
    reason: r.reason,
    status: r.status as SuspenseItem["status"],
    createdAt: r.created_at,
    resolvedAt: r.resolved_at,
    resolution: fromJsonOrNull(r.resolution),
  };
}
