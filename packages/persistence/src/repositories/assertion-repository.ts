import type { AssertionRepository } from "@wallet/ledger-core";
import { sql } from "kysely";
import type { SqlContext } from "./sql-context.js";

/** Uses whose assertion expired are purged on every Nth record, at most this many at a time (ten a record against the one added: a backlog shrinks). */
export const ASSERTION_PURGE_EVERY = 100;
export const ASSERTION_PURGE_MAX_ROWS = 1000;

export function sqlAssertionRepository({ trx, housekeeping, dialect }: SqlContext): AssertionRepository {
  return {
    async findLive(tenantId, sourceReference, nowIso) {
      if (dialect === "postgres") {
        // Held until the transaction ends: a concurrent use of the same sourceReference waits here
        // and then reads this one's record (READ COMMITTED: the next statement sees it). A
        // statement of its own, so the read below takes its snapshot after the lock is granted.
        const lockKey = `${tenantId}/${sourceReference}`;
        await sql`select pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`.execute(trx);
      }
      const row = await trx
        .selectFrom("assertion_uses")
        .select(["tenant_id", "source_reference", "customer_uid", "expires_at", "recorded_at"])
        .where("tenant_id", "=", tenantId)
        .where("source_reference", "=", sourceReference)
        .where("expires_at", ">", nowIso)
        .orderBy("ordinal", "desc")
        .limit(1)
        .executeTakeFirst();
      return row
        ? {
            tenantId: row.tenant_id,
            sourceReference: row.source_reference,
            customerUid: row.customer_uid,
            expiresAt: row.expires_at,
            recordedAt: row.recorded_at,
          }
        : null;
    },
    async record(use) {
      housekeeping.assertionRecords = (housekeeping.assertionRecords + 1) % ASSERTION_PURGE_EVERY;
      if (housekeeping.assertionRecords === 0) {
        // An expired use can never be live again: it only costs space.
        await trx
          .deleteFrom("assertion_uses")
          .where("ordinal", "in", (qb) =>
            qb
              .selectFrom("assertion_uses")
              .select("ordinal")
              .where("expires_at", "<=", use.recordedAt)
              .limit(ASSERTION_PURGE_MAX_ROWS),
          )
          .execute();
      }
      await trx
        .insertInto("assertion_uses")
        .values({
          tenant_id: use.tenantId,
          source_reference: use.sourceReference,
          customer_uid: use.customerUid,
          expires_at: use.expiresAt,
          recorded_at: use.recordedAt,
        })
        .execute();
    },
  };
}
