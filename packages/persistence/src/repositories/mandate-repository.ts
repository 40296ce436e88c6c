import type { Mandate, MandateRepository } from "@wallet/ledger-core";
import { type Selectable, sql } from "kysely";
import type { MandatesTable } from "../schema/database.js";
import { pageWindow, sortKeys } from "./paging.js";
import { affected, explainLostUpdate, type SqlContext, versionTerms } from "./sql-context.js";

const VERSIONED = "mandates";

export function sqlMandateRepository({ trx, dialect, versions }: SqlContext): MandateRepository {
  /** Maps a row read by key, remembering the version this transaction saw. */
  const seen = (r: Selectable<MandatesTable>): Mandate => {
    versions.remember(VERSIONED, r.uid, { status: r.status, updated_at: r.updated_at });
    return toMandate(r);
  };
  return {
    async insert(m) {
      await trx.insertInto("mandates").values(fromMandate(m)).execute();
      versions.remember(VERSIONED, m.uid, { status: m.status, updated_at: m.updatedAt });
    },
    async update(m) {
      const { uid: _uid, tenant_id: _tenant, created_at: _created, ...changes } = fromMandate(m);
      let q = trx
        .updateTable("mandates")
        .set(changes)
        .where("tenant_id", "=", m.tenantId)
        .where("uid", "=", m.uid);
      for (const term of versionTerms(versions.get(VERSIONED, m.uid))) q = q.where(term);
      if (affected(await q.executeTakeFirst()) === 0) {
        await explainLostUpdate(
          async () =>
            (await trx.selectFrom("mandates").select("uid").where("uid", "=", m.uid).executeTakeFirst()) !==
            undefined,
          "mandate",
        );
      }
      versions.remember(VERSIONED, m.uid, { status: m.status, updated_at: m.updatedAt });
    },
    async get(tenantId, uid) {
      const row = await trx
        .selectFrom("mandates")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .executeTakeFirst();
      return row ? seen(row) : null;
    },
    async getAny(uid) {
      const row = await trx.selectFrom("mandates").selectAll().where("uid", "=", uid).executeTakeFirst();
      return row ? seen(row) : null;
    },
    async list(filter, page) {
      let q = trx.selectFrom("mandates").where("tenant_id", "=", filter.tenantId);
      if (filter.customerUid !== undefined) q = q.where("customer_uid", "=", filter.customerUid);
      if (filter.status !== undefined) q = q.where("status", "=", filter.status);
      const { limit, offset } = pageWindow(page);
      let rowsQuery = q.selectAll();
      for (const k of sortKeys(page)) rowsQuery = rowsQuery.orderBy(k.column, k.direction);
      const rows = await rowsQuery.limit(limit).offset(offset).execute();
      const counted = await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
      return { data: rows.map(toMandate), total: counted.n };
    },
    async countByCustomer(tenantId, customerUid) {
      const row = await trx
        .selectFrom("mandates")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("customer_uid", "=", customerUid)
        .where("tenant_id", "=", tenantId)
        .executeTakeFirstOrThrow();
      return row.n;
    },
    async listDue(kind, asOfIso, limit) {
      // Literal predicates, so both engines match the partial indexes they mirror.
      const q =
        kind === "activate"
          ? trx
              .selectFrom("mandates")
              .selectAll()
              .where(sql<boolean>`status = 'pending'`)
              .where("valid_from", "<=", asOfIso)
          : trx
              .selectFrom("mandates")
              .selectAll()
              .where(sql<boolean>`status in ('pending', 'active', 'suspended') and valid_to is not null`)
              .where("valid_to", "<=", asOfIso);
      const due = q.orderBy("uid").limit(Math.max(0, Math.trunc(limit)));
      // Postgres: the rows stay locked for the job's transaction, and rows another transaction
      // holds (a job on another process, a revocation) are left for the next run instead of
      // waited for. SQLite runs one writer at a time already.
      const rows = await (dialect === "postgres" ? due.forNoKeyUpdate().skipLocked() : due).execute();
      return rows.map(seen);
    },
  };
}

function fromMandate(m: Mandate): Selectable<MandatesTable> {
  return {
    uid: m.uid,
    tenant_id: m.tenantId,
    customer_uid: m.customerUid,
    wallet_uid: m.walletUid,
    beneficiary_entity_code: m.beneficiaryEntityCode,
    client_reference: m.clientReference,
    amount_rule: m.amountRule,
    fixed_or_max_amount_minor: m.fixedOrMaxAmountMinor,
    frequency: m.frequency,
    currency: m.currency,
    valid_from: m.validFrom,
    valid_to: m.validTo,
    status: m.status,
    agreement_uid: m.agreementUid,
    replaces_mandate_uid: m.replacesMandateUid,
    revoked_at: m.revokedAt,
    revocation_reason: m.revocationReason,
    revoked_by: m.revokedBy,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

function toMandate(r: Selectable<MandatesTable>): Mandate {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    customerUid: r.customer_uid,
    walletUid: r.wallet_uid,
    beneficiaryEntityCode: r.beneficiary_entity_code,
    clientReference: r.client_reference,
    amountRule: r.amount_rule as Mandate["amountRule"],
    fixedOrMaxAmountMinor: r.fixed_or_max_amount_minor,
    frequency: r.frequency as Mandate["frequency"],
    currency: r.currency,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    status: r.status as Mandate["status"],
    agreementUid: r.agreement_uid,
    replacesMandateUid: r.replaces_mandate_uid,
    revokedAt: r.revoked_at,
    revocationReason: r.revocation_reason,
    revokedBy: r.revoked_by as Mandate["revokedBy"],
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
