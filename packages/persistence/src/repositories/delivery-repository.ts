import {
  type DeliveryRepository,
  type DeliverySummary,
  deliveryListLimitDefault,
  deliveryListLimitMax,
  type EventType,
  invariant,
  type LeasedDelivery,
} from "@wallet/ledger-core";
import { type Selectable, sql } from "kysely";
import type { OutboxEventsTable } from "../schema/database.js";
import { affected, type SqlContext } from "./sql-context.js";

/**
 * Advisory lock key taken (per transaction) by every Postgres lease: leasing is one short query,
 * and serializing it is what keeps the per-tenant in-flight cap and the per-resource order exact
 * across dispatcher processes. SQLite's single writer serializes it already.
 */
const LEASE_LOCK_KEY = 727_001;

// Literal SQL, identical to the partial indexes' predicates so both planners use them.
const undelivered = sql<boolean>`state in ('pending', 'delivering')`;

export function sqlDeliveryRepository({ trx, dialect }: SqlContext): DeliveryRepository {
  const summaryOf = (r: Selectable<OutboxEventsTable>): DeliverySummary => ({
    eventId: r.id,
    tenantId: r.tenant_id,
    type: r.type as EventType,
    resourceUid: r.resource_uid,
    seq: r.seq,
    dedupKey: r.dedup_key,
    occurredAt: r.occurred_at,
    status: r.state as DeliverySummary["status"],
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    deliveredAt: r.delivered_at,
  });

  const get = async (eventId: string) => {
    const row = await trx
      .selectFrom("outbox_events")
      .selectAll()
      .where("id", "=", eventId)
      .executeTakeFirst();
    return row ? summaryOf(row) : null;
  };

  return {
    async leaseDue(r) {
      invariant(r.leaseUntilIso > r.nowIso, "a lease must end after it starts");
      invariant(r.limit >= 1 && r.maxInFlightPerTenant >= 1, "lease limits are positive");
      if (dialect === "postgres") await sql`select pg_advisory_xact_lock(${LEASE_LOCK_KEY})`.execute(trx);
      const now = r.nowIso;
      const due = sql<boolean>`((state = 'pending' and (next_attempt_at is null or next_attempt_at <= ${now}))
        or (state = 'delivering' and lease_until <= ${now}))`;
      // Heads: per resource, the lowest-seq event still pending or delivering (a failed one no
      // longer holds the resource back). Live: leases not yet run out, per tenant. A due head is
      // taken in write order while its tenant stays under the in-flight cap.
      const { rows } = await sql<{ id: string }>`
        with heads as (
          select resource_uid, min(seq) as seq from outbox_events
          where ${undelivered}
          group by resource_uid
        ),
        live as (
          select tenant_id, count(*) as n from outbox_events
          where ${undelivered} and state = 'delivering' and lease_until > ${now}
          group by tenant_id
        ),
        candidates as (
          select e.id, e.ordinal, e.tenant_id,
            row_number() over (partition by e.tenant_id order by e.ordinal) as rank_in_tenant
          from outbox_events e
          join heads h on h.resource_uid = e.resource_uid and h.seq = e.seq
          where ${due}
        )
        select c.id from candidates c
        left join live l on l.tenant_id = c.tenant_id
        where c.rank_in_tenant + coalesce(l.n, 0) <= ${r.maxInFlightPerTenant}
        order by c.ordinal
        limit ${r.limit}`.execute(trx);
      if (rows.length === 0) return [];
      // Re-checked in the UPDATE: a late result of the previous lease may have landed meanwhile.
      const leased = await trx
        .updateTable("outbox_events")
        .set({ state: "delivering", lease_until: r.leaseUntilIso, lease_id: r.leaseId })
        .where(
          "id",
          "in",
          rows.map((row) => row.id),
        )
        .where(due)
        .returningAll()
        .execute();
      return leased
        .sort((a, b) => a.ordinal - b.ordinal)
        .map(
          (e): LeasedDelivery => ({
            eventId: e.id,
            tenantId: e.tenant_id,
            type: e.type as EventType,
            resourceUid: e.resource_uid,
            seq: e.seq,
            dedupKey: e.dedup_key,
            occurredAt: e.occurred_at,
            body: e.body,
            attempts: e.attempts,
            leaseId: r.leaseId,
            leaseUntil: r.leaseUntilIso,
          }),
        );
    },

    async recordResult(eventId, leaseId, result) {
      invariant(result.outcome !== "retry" || result.nextAttemptAt !== null, "a retry needs its due time");
      const outcome =
        result.outcome === "delivered"
          ? { state: "delivered", next_attempt_at: null, delivered_at: result.atIso }
          : result.outcome === "retry"
            ? { state: "pending", next_attempt_at: result.nextAttemptAt }
            : { state: "failed", next_attempt_at: null };
      const attempt = result.attempted
        ? { last_status_code: result.statusCode, last_attempt_at: result.atIso }
        : {};
      const updated = await trx
        .updateTable("outbox_events")
        .set((eb) => ({
          ...outcome,
          ...attempt,
          attempts: result.attempted ? eb("attempts", "+", 1) : eb.ref("attempts"),
          last_error: result.error,
          lease_until: null,
          lease_id: null,
        }))
        // Fencing: only the holder of the current lease may record; a stale lease changes nothing.
        .where("id", "=", eventId)
        .where("state", "=", "delivering")
        .where("lease_id", "=", leaseId)
        .executeTakeFirst();
      return affected(updated) === 1;
    },

    async list(filter) {
      const limit = Math.min(
        Math.max(1, Math.trunc(filter.limit ?? deliveryListLimitDefault)),
        deliveryListLimitMax,
      );
      let q = trx.selectFrom("outbox_events").selectAll();
      if (filter.tenantId !== undefined) q = q.where("tenant_id", "=", filter.tenantId);
      if (filter.status !== undefined) q = q.where("state", "=", filter.status);
      const rows = await q.orderBy("ordinal", "desc").limit(limit).execute();
      return rows.map(summaryOf);
    },

    get,

    async requeue(eventId, nowIso) {
      const updated = await trx
        .updateTable("outbox_events")
        .set({ state: "pending", attempts: 0, next_attempt_at: nowIso, lease_until: null, lease_id: null })
        .where("id", "=", eventId)
        .where("state", "=", "failed")
        .executeTakeFirst();
      const delivery = await get(eventId);
      if (!delivery) return { kind: "not_found" };
      return affected(updated) === 1 ? { kind: "requeued", delivery } : { kind: "not_failed", delivery };
    },
  };
}
