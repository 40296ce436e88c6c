import type {
  Agreement,
  AgreementRepository,
  Customer,
  CustomerRepository,
  Identifier,
  IdentifierRepository,
  KycVersion,
  KycVersionRepository,
} from "@wallet/ledger-core";
import { type Selectable, sql } from "kysely";
import type {
  AgreementsTable,
  CustomersTable,
  IdentifiersTable,
  KycVersionsTable,
} from "../schema/database.js";
import { fromJsonOrNull, toJsonOrNull } from "../shared/json-column.js";
import { queryTemplate } from "../shared/query-template.js";
import { lockedForUpdate } from "../shared/sql-dialect.js";
import { conflictError, conflictIndexes, isUniqueViolationOf } from "../shared/store-errors.js";
import { affected, guarded, type SqlContext } from "./sql-context.js";

/**
 * The first characters of `column`, as many as `prefix` has: to compare a sealed value's start
 * as a string (LIKE would read `_` in a key id as a wildcard).
 */
const startOf = (column: "date_of_birth" | "sealed_value", prefix: string) =>
  sql<string>`substr(${sql.ref(column)}, 1, ${sql.lit(prefix.length)})`;

export const getCustomer = queryTemplate((db, p: { tenantId: string; uid: string }) =>
  db.selectFrom("customers").selectAll().where("tenant_id", "=", p.tenantId).where("uid", "=", p.uid),
);

export function sqlCustomerRepository(ctx: SqlContext): CustomerRepository {
  const { trx, dialect } = ctx;
  return {
    async insert(c) {
      await trx
        .insertInto("customers")
        .values({
          uid: c.uid,
          tenant_id: c.tenantId,
          status: c.status,
          customer_type: c.customerType,
          display_name: c.displayName,
          date_of_birth: c.dateOfBirth,
          region_code: c.regionCode,
          preferred_locale: c.preferredLocale,
          client_reference: c.clientReference,
          metadata: toJsonOrNull(c.metadata),
          created_at: c.createdAt,
        })
        .execute();
    },
    async get(tenantId, uid) {
      const row = await getCustomer.first(ctx, { tenantId, uid });
      return row ? toCustomer(row) : null;
    },
    async getAny(uid) {
      const row = await trx.selectFrom("customers").selectAll().where("uid", "=", uid).executeTakeFirst();
      return row ? toCustomer(row) : null;
    },
    async getForUpdate(tenantId, uid) {
      const query = trx
        .selectFrom("customers")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid);
      const row = await lockedForUpdate(query, dialect).executeTakeFirst();
      return row ? toCustomer(row) : null;
    },
    async setStatus(tenantId, uid, status) {
      await trx
        .updateTable("customers")
        .set({ status })
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .execute();
    },
    async clearDatesOfBirth(limit, sealedMark, afterUid) {
      let query = trx
        .selectFrom("customers")
        .select(["uid", "date_of_birth"])
        .where("date_of_birth", "is not", null)
        .where(startOf("date_of_birth", sealedMark), "<>", sealedMark);
      if (afterUid !== undefined) query = query.where("uid", ">", afterUid);
      const rows = await query.orderBy("uid").limit(limit).execute();
      return rows.map((r) => ({ uid: r.uid, dateOfBirth: r.date_of_birth as string }));
    },
    async sealDatesOfBirth(rows) {
      if (rows.length === 0) return;
      const byUid = (pick: (r: (typeof rows)[number]) => string) =>
        sql`case uid ${sql.join(
          rows.map((r) => sql`when ${r.uid} then ${pick(r)}`),
          sql` `,
        )} end`;
      await sql`update customers set date_of_birth = ${byUid((r) => r.sealed)}
        where uid in (${sql.join(rows.map((r) => r.uid))}) and date_of_birth = ${byUid((r) => r.clear)}`.execute(
        trx,
      );
    },
    async sealedDateOfBirthOutsidePrefixes(sealedMark, prefixes) {
      let q = trx
        .selectFrom("customers")
        .select("date_of_birth")
        .where("date_of_birth", "is not", null)
        .where(startOf("date_of_birth", sealedMark), "=", sealedMark);
      for (const prefix of prefixes) q = q.where(startOf("date_of_birth", prefix), "<>", prefix);
      const row = await q.limit(1).executeTakeFirst();
      return row?.date_of_birth ?? null;
    },
  };
}

export function sqlIdentifierRepository(ctx: SqlContext): IdentifierRepository {
  const { trx, dialect } = ctx;
  const index = conflictIndexes.verifiedBlindIndex;
  return {
    async insert(i) {
      // ON CONFLICT keeps a Postgres transaction usable after the duplicate, and waits for a
      // concurrent inserter of the same value to finish before deciding.
      const result = await trx
        .insertInto("identifiers")
        .values(fromIdentifier(i))
        .onConflict((oc) =>
          oc
            .columns(["tenant_id", "blind_index"])
            .where(sql<boolean>`verification_status = 'verified'`)
            .doNothing(),
        )
        .executeTakeFirst();
      if (affected(result) !== 1) throw conflictError(index);
    },
    async update(i) {
      const {
        uid: _uid,
        tenant_id: _tenant,
        customer_uid: _customer,
        created_at: _created,
        ...changes
      } = fromIdentifier(i);
      try {
        await guarded(ctx, "identifier_update", () =>
          trx
            .updateTable("identifiers")
            .set(changes)
            .where("tenant_id", "=", i.tenantId)
            .where("uid", "=", i.uid)
            .execute(),
        );
      } catch (e) {
        if (isUniqueViolationOf(e, index)) throw conflictError(index);
        throw e;
      }
    },
    async get(tenantId, uid) {
      const row = await trx
        .selectFrom("identifiers")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .executeTakeFirst();
      return row ? toIdentifier(row) : null;
    },
    async listByCustomer(tenantId, customerUid) {
      const rows = await trx
        .selectFrom("identifiers")
        .selectAll()
        .where("customer_uid", "=", customerUid)
        .where("tenant_id", "=", tenantId)
        .orderBy("created_at")
        .orderBy("uid")
        .execute();
      return rows.map(toIdentifier);
    },
    async expireRetired(tenantId, uid, validTo) {
      await trx
        .updateTable("identifiers")
        .set({ verification_status: "expired" })
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .where("verification_status", "=", "verified")
        .where("valid_to", "=", validTo)
        .execute();
    },
    async findVerifiedByBlindIndex(tenantId, blindIndex, exceptUid) {
      if (dialect === "postgres") {
        // Held until the transaction ends: a concurrent claim of the same value waits here, then
        // reads this one's identifier (a statement of its own, so the read below takes its
        // snapshot after the lock is granted). Claims take these locks in blind index order.
        const lockKey = `identifier/${tenantId}/${blindIndex}`;
        await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
      }
      let q = trx
        .selectFrom("identifiers")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("blind_index", "=", blindIndex)
        .where("verification_status", "=", "verified");
      if (exceptUid !== undefined) q = q.where("uid", "<>", exceptUid);
      const row = await q.orderBy("created_at").orderBy("uid").executeTakeFirst();
      return row ? toIdentifier(row) : null;
    },

    async firstAndLast() {
      const end = (direction: "asc" | "desc") =>
        trx.selectFrom("identifiers").selectAll().orderBy("uid", direction).limit(1).executeTakeFirst();
      const [first, last] = [await end("asc"), await end("desc")];
      if (first === undefined || last === undefined) return [];
      return first.uid === last.uid ? [toIdentifier(first)] : [toIdentifier(first), toIdentifier(last)];
    },
    async sealedOutsidePrefixes(prefixes) {
      // One scan of the table, at start: the prefixes are the vault's (`v1.<keyId>.`).
      let q = trx.selectFrom("identifiers").select("sealed_value");
      for (const prefix of prefixes) q = q.where(startOf("sealed_value", prefix), "<>", prefix);
      const row = await q.limit(1).executeTakeFirst();
      return row?.sealed_value ?? null;
    },
  };
}

export function sqlAgreementRepository({ trx }: SqlContext): AgreementRepository {
  return {
    async insert(a) {
      await trx
        .insertInto("agreements")
        .values({
          uid: a.uid,
          tenant_id: a.tenantId,
          customer_uid: a.customerUid,
          agreement_type: a.agreementType,
          document_type: a.documentType,
          document_version: a.documentVersion,
          document_uri: a.documentUri,
          document_hash: a.documentHash,
          status: a.status,
          accepted_at: a.acceptedAt,
          accepted_channel: a.acceptedChannel,
          evidence_hash: a.evidenceHash,
          created_at: a.createdAt,
        })
        .execute();
    },
    async get(tenantId, uid) {
      const row = await trx
        .selectFrom("agreements")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .executeTakeFirst();
      return row ? toAgreement(row) : null;
    },
    async setStatus(tenantId, uid, status) {
      await trx
        .updateTable("agreements")
        .set({ status })
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .execute();
    },
    async listByCustomer(tenantId, customerUid) {
      const rows = await trx
        .selectFrom("agreements")
        .selectAll()
        .where("customer_uid", "=", customerUid)
        .where("tenant_id", "=", tenantId)
        .orderBy("created_at")
        .orderBy("uid")
        .execute();
      return rows.map(toAgreement);
    },
  };
}

export function sqlKycVersionRepository({ trx }: SqlContext): KycVersionRepository {
  return {
    async insert(v) {
      await trx.insertInto("kyc_versions").values(fromKycVersion(v)).execute();
    },
    async update(v) {
      const {
        uid: _uid,
        tenant_id: _tenant,
        customer_uid: _customer,
        created_at: _created,
        ...changes
      } = fromKycVersion(v);
      await trx
        .updateTable("kyc_versions")
        .set(changes)
        .where("tenant_id", "=", v.tenantId)
        .where("uid", "=", v.uid)
        .execute();
    },
    async get(tenantId, uid) {
      const row = await trx
        .selectFrom("kyc_versions")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .executeTakeFirst();
      return row ? toKycVersion(row) : null;
    },
    async getAny(uid) {
      const row = await trx.selectFrom("kyc_versions").selectAll().where("uid", "=", uid).executeTakeFirst();
      return row ? toKycVersion(row) : null;
    },
    async tierCodesInUse() {
      const rows = await trx
        .selectFrom("kyc_versions")
        .select("tier_code")
        .distinct()
        .where("state", "in", ["approved", "pending"])
        .execute();
      return rows.map((r) => r.tier_code);
    },
    async listByCustomer(tenantId, customerUid) {
      const rows = await trx
        .selectFrom("kyc_versions")
        .selectAll()
        .where("customer_uid", "=", customerUid)
        .where("tenant_id", "=", tenantId)
        .orderBy("created_at")
        .orderBy("uid")
        .execute();
      return rows.map(toKycVersion);
    },
  };
}

export function toCustomer(r: Selectable<CustomersTable>): Customer {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    status: r.status as Customer["status"],
    customerType: r.customer_type as Customer["customerType"],
    displayName: r.display_name,
    dateOfBirth: r.date_of_birth,
    regionCode: r.region_code,
    preferredLocale: r.preferred_locale,
    clientReference: r.client_reference,
    metadata: fromJsonOrNull(r.metadata),
    createdAt: r.created_at,
  };
}

function fromIdentifier(i: Identifier): Selectable<IdentifiersTable> {
  return {
    uid: i.uid,
    tenant_id: i.tenantId,
    customer_uid: i.customerUid,
    class: i.class,
    type: i.type,
    sealed_value: i.sealedValue,
    blind_index: i.blindIndex,
    masked_value: i.maskedValue,
    is_primary: i.isPrimary ? 1 : 0,
    verification_status: i.verificationStatus,
    verified_at: i.verifiedAt,
    issuing_country: i.issuingCountry,
    valid_from: i.validFrom,
    valid_to: i.validTo,
    created_at: i.createdAt,
  };
}

function toIdentifier(r: Selectable<IdentifiersTable>): Identifier {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    customerUid: r.customer_uid,
    class: r.class as Identifier["class"],
    type: r.type,
    sealedValue: r.sealed_value,
    blindIndex: r.blind_index,
    maskedValue: r.masked_value,
    isPrimary: r.is_primary === 1,
    verificationStatus: r.verification_status as Identifier["verificationStatus"],
    verifiedAt: r.verified_at,
    issuingCountry: r.issuing_country,
    validFrom: r.valid_from,
    validTo: r.valid_to,
    createdAt: r.created_at,
  };
}

function toAgreement(r: Selectable<AgreementsTable>): Agreement {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    customerUid: r.customer_uid,
    agreementType: r.agreement_type as Agreement["agreementType"],
    documentType: r.document_type,
    documentVersion: r.document_version,
    documentUri: r.document_uri,
    documentHash: r.document_hash,
    status: r.status as Agreement["status"],
    acceptedAt: r.accepted_at,
    acceptedChannel: r.accepted_channel,
    evidenceHash: r.evidence_hash,
    createdAt: r.created_at,
  };
}

function fromKycVersion(v: KycVersion): Selectable<KycVersionsTable> {
  return {
    uid: v.uid,
    tenant_id: v.tenantId,
    customer_uid: v.customerUid,
    tier_code: v.tierCode,
    review_type: v.reviewType,
    state: v.state,
    verification_source: v.verificationSource,
    source_reference: v.sourceReference,
    risk_rating: v.riskRating,
    evidence_hash: v.evidenceHash,
    effective_from: v.effectiveFrom,
    rejection_reason: v.rejectionReason,
    created_at: v.createdAt,
  };
}

function toKycVersion(r: Selectable<KycVersionsTable>): KycVersion {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    customerUid: r.customer_uid,
    tierCode: r.tier_code,
    reviewType: r.review_type as KycVersion["reviewType"],
    state: r.state as KycVersion["state"],
    verificationSource: r.verification_source,
    sourceReference: r.source_reference,
    riskRating: r.risk_rating as KycVersion["riskRating"],
    evidenceHash: r.evidence_hash,
    effectiveFrom: r.effective_from,
    rejectionReason: r.rejection_reason,
    createdAt: r.created_at,
  };
}
