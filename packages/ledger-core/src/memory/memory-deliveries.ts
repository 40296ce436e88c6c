import type {
  DeliveryRepository,
  DeliveryStatus,
  DeliverySummary,
  LeasedDelivery,
} from "../events/delivery.js";
import {
  assertDeliveryTransition,
  blockingDeliveryStates,
  deliveryListLimitDefault,
  deliveryListLimitMax,
  isDeliveryDue,
  isLeaseLive,
  newDeliveryStatus,
} from "../events/delivery.js";
import type { OutboxEvent } from "../events/model.js";
import { invariant } from "../shared/errors.js";
import { clone } from "./clone.js";
import type { UndoLog } from "./undo-log.js";

/**
 * Delivery state of the in-memory outbox. The outbox array keeps the events as written; the
 * bookkeeping lives in `deliveries` by event id, and an event with no entry there is pending and
 * due at once — so the outbox's own `append` needs no change to make a new event deliverable.
 */
export function createMemoryDeliveries(
  s: { outbox: OutboxEvent[]; deliveries: Map<string, DeliveryStatus> },
  log: UndoLog,
): DeliveryRepository {
  const statusOf = (eventId: string): DeliveryStatus => s.deliveries.get(eventId) ?? newDeliveryStatus();
  const move = (eventId: string, next: DeliveryStatus) => {
    assertDeliveryTransition(statusOf(eventId).state, next.state);
    log.set(s.deliveries, eventId, next);
  };
  const summary = (e: OutboxEvent): DeliverySummary => {
    const d = statusOf(e.id);
    return clone({
      eventId: e.id,
      tenantId: e.tenantId,
      type: e.type,
      resourceUid: e.resourceUid,
      seq: e.seq,
      dedupKey: e.dedupKey,
      occurredAt: e.occurredAt,
      status: d.state,
      attempts: d.attempts,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      nextAttemptAt: d.nextAttemptAt,
      lastAttemptAt: d.lastAttemptAt,
      deliveredAt: d.deliveredAt,
    });
  };
  const find = (eventId: string) => s.outbox.find((e) => e.id === eventId) ?? null;

  return {
    leaseDue: async (r) => {
      invariant(r.leaseUntilIso > r.nowIso, "a lease must end after it starts");
      invariant(r.limit >= 1 && r.maxInFlightPerTenant >= 1, "lease limits are positive");
      // The head of each resource: its lowest-seq event that is still pending or delivering.
      const heads = new Map<string, OutboxEvent>();
      const inFlight = new Map<string, number>();
      for (const e of s.outbox) {
        const d = statusOf(e.id);
        if (isLeaseLive(d, r.nowIso)) inFlight.set(e.tenantId, (inFlight.get(e.tenantId) ?? 0) + 1);
        if (!blockingDeliveryStates.includes(d.state)) continue;
        const head = heads.get(e.resourceUid);
        if (!head || e.seq < head.seq) heads.set(e.resourceUid, e);
      }
      const leased: LeasedDelivery[] = [];
      // Outbox order is write order: oldest first.
      for (const e of s.outbox) {
        if (leased.length >= r.limit) break;
        if (heads.get(e.resourceUid) !== e) continue;
        const d = statusOf(e.id);
        if (!isDeliveryDue(d, r.nowIso)) continue;
        const n = inFlight.get(e.tenantId) ?? 0;
        if (n >= r.maxInFlightPerTenant) continue;
        inFlight.set(e.tenantId, n + 1);
        move(e.id, { ...d, state: "delivering", leaseUntil: r.leaseUntilIso, leaseId: r.leaseId });
        leased.push(
          clone({
            eventId: e.id,
            tenantId: e.tenantId,
            type: e.type,
            resourceUid: e.resourceUid,
            seq: e.seq,
            dedupKey: e.dedupKey,
            occurredAt: e.occurredAt,
            body: e.body,
            attempts: d.attempts,
            leaseId: r.leaseId,
            leaseUntil: r.leaseUntilIso,
          }),
        );
      }
      return leased;
    },

    recordResult: async (eventId, leaseId, result) => {
      const d = statusOf(eventId);
      if (!find(eventId) || d.state !== "delivering" || d.leaseId !== leaseId) return false;
      invariant(result.outcome !== "retry" || result.nextAttemptAt !== null, "a retry needs its due time");
      const attempts = d.attempts + (result.attempted ? 1 : 0);
      const common = {
        attempts,
        leaseUntil: null,
        leaseId: null,
        lastStatusCode: result.attempted ? result.statusCode : d.lastStatusCode,
        lastError: result.error,
        lastAttemptAt: result.attempted ? result.atIso : d.lastAttemptAt,
      };
      if (result.outcome === "delivered") {
        move(eventId, {
          ...d,
          ...common,
          state: "delivered",
          nextAttemptAt: null,
          deliveredAt: result.atIso,
        });
      } else if (result.outcome === "retry") {
        move(eventId, { ...d, ...common, state: "pending", nextAttemptAt: result.nextAttemptAt });
      } else {
        move(eventId, { ...d, ...common, state: "failed", nextAttemptAt: null });
      }
      return true;
    },

    list: async (f) => {
      const limit = Math.min(Math.max(1, f.limit ?? deliveryListLimitDefault), deliveryListLimitMax);
      const rows: DeliverySummary[] = [];
      for (let i = s.outbox.length - 1; i >= 0 && rows.length < limit; i--) {
        const e = s.outbox[i]!;
        if (f.tenantId !== undefined && e.tenantId !== f.tenantId) continue;
        if (f.status !== undefined && statusOf(e.id).state !== f.status) continue;
        rows.push(summary(e));
      }
      return rows;
    },

    get: async (eventId) => {
      const e = find(eventId);
      return e ? summary(e) : null;
    },

    requeue: async (eventId, nowIso) => {
      const e = find(eventId);
      if (!e) return { kind: "not_found" };
      const d = statusOf(eventId);
      if (d.state !== "failed") return { kind: "not_failed", delivery: summary(e) };
      move(eventId, {
        ...d,
        state: "pending",
        attempts: 0,
        nextAttemptAt: nowIso,
        leaseUntil: null,
        leaseId: null,
      });
      return { kind: "requeued", delivery: summary(e) };
    },
  };
}
