import { DomainError, invariant } from "../shared/errors.js";
import { listWindow } from "../shared/list-window.js";
import type { Tx } from "../store/unit-of-work.js";
import type { EventType } from "./model.js";

/**
 * Delivery states of an outbox event. The outbox row IS the delivery:
 * - `pending`: waiting for its next attempt (`nextAttemptAt`; a new event is due at once), or for
 *   its webhook to be usable again (enabled, with a URL and a signing secret);
 * - `delivering`: leased by a dispatcher until `leaseUntil`; a lease that runs out makes the event
 *   due again, so a dispatcher that dies mid-POST costs a duplicate, never a loss (at least once);
 * - `delivered`: the receiver answered 2xx (final);
 * - `failed`: not retried (a 4xx other than 408/429, attempts exhausted, or the webhook unusable
 *   for as long as the retry schedule lasts); final until the operator re-queues it.
 */
export const deliveryStates = ["pending", "delivering", "delivered", "failed"] as const;
export type DeliveryState = (typeof deliveryStates)[number];

/** States in which an event still holds back later events of the same resource. */
export const blockingDeliveryStates: readonly DeliveryState[] = ["pending", "delivering"];

/** Allowed moves; `failed -> pending` is the operator's re-queue. */
export const deliveryTransitions = {
  pending: ["delivering"],
  delivering: ["pending", "delivered", "failed", "delivering"],
  delivered: [],
  failed: ["pending"],
} as const satisfies Record<DeliveryState, readonly DeliveryState[]>;

export function assertDeliveryTransition(from: DeliveryState, to: DeliveryState): void {
  invariant(
    (deliveryTransitions[from] as readonly DeliveryState[]).includes(to),
    `delivery cannot move from ${from} to ${to}`,
  );
}

/** The delivery bookkeeping of one outbox event. */
export interface DeliveryStatus {
  state: DeliveryState;
  /** POSTs made so far (a lease lost to a crash is not counted: nothing was recorded). */
  attempts: number;
  /** When a `pending` event is due; null = due at once (a new event). */
  nextAttemptAt: string | null;
  /** End of the current lease while `delivering`. */
  leaseUntil: string | null;
  /** Fencing token of the current lease: a result recorded under an older lease is ignored. */
  leaseId: string | null;
  lastStatusCode: number | null;
  /** Short reason of the last failed attempt ("timeout", "connection", "HTTP 503", ...); never a secret. */
  lastError: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
}

/** An event leased for delivery: everything needed to POST it. `body` is sent byte for byte. */
export interface LeasedDelivery {
  eventId: string;
  tenantId: string;
  type: EventType;
  resourceUid: string;
  seq: number;
  dedupKey: string;
  occurredAt: string;
  body: string;
  /** POSTs made before this one; this attempt is number `attempts + 1`. */
  attempts: number;
  leaseId: string;
  leaseUntil: string;
}

/** One row of the operator's delivery log (no body). */
export interface DeliverySummary {
  eventId: string;
  tenantId: string;
  type: EventType;
  resourceUid: string;
  seq: number;
  dedupKey: string;
  occurredAt: string;
  status: DeliveryState;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface LeaseRequest {
  nowIso: string;
  /** Lease end; must be later than `nowIso` and outlast the POST timeout with margin. */
  leaseUntilIso: string;
  /** Unique per lease call; recorded results must quote it. */
  leaseId: string;
  /** Most deliveries leased by this call (across tenants). */
  limit: number;
  /** Cap of live leases per tenant (= per endpoint), counting leases held by other dispatchers. */
  maxInFlightPerTenant: number;
}

/** The result of one attempt, or of a delivery abandoned without a POST (`attempted: false`). */
export interface DeliveryResult {
  outcome: "delivered" | "retry" | "failed";
  /** False when no POST was made (webhook disabled, no secret): attempts stay as they were. */
  attempted: boolean;
  statusCode: number | null;
  error: string | null;
  atIso: string;
  /** When the next attempt is due; required for `retry`, ignored otherwise. */
  nextAttemptAt: string | null;
}

export type RequeueResult =
  | { kind: "requeued"; delivery: DeliverySummary }
  | { kind: "not_found" }
  | { kind: "not_failed"; delivery: DeliverySummary };

export interface DeliveryListFilter {
  tenantId?: string | undefined;
  status?: DeliveryState | undefined;
  /** Newest first; at most this many (default 100, at most 1000). */
  limit?: number | undefined;
}

export const deliveryListLimitDefault = 100;
export const deliveryListLimitMax = 1000;

/**
 * Delivery state of the outbox, for the webhook dispatcher and the operator's delivery log.
 * Each method runs inside the caller's transaction; the dispatcher keeps those transactions short
 * and never holds one across an HTTP request.
 *
 * @example
 *   const batch = await uow.run((tx) =>
 *     tx.deliveries.leaseDue({ nowIso, leaseUntilIso, leaseId, limit: 100, maxInFlightPerTenant: 4 }),
 *   );
 *   // ... POST each one, outside any transaction ...
 *   await uow.run((tx) => tx.deliveries.recordResult(d.eventId, d.leaseId, result));
 */
export interface DeliveryRepository {
  /**
   * Leases due events and marks them `delivering` until `leaseUntilIso`, oldest first. An event is
   * leasable when it is the head of its resource — no event of the same `resourceUid` with a lower
   * `seq` is `pending` or `delivering` (a `failed` one no longer holds the resource back) — and it
   * is either `pending` with `nextAttemptAt` null or not after `nowIso`, or `delivering` with an
   * expired lease. Tenants already holding `maxInFlightPerTenant` live leases get no more.
   */
  leaseDue(request: LeaseRequest): Promise<LeasedDelivery[]>;
  /**
   * Records an attempt's result if the event is still `delivering` under `leaseId`; returns false
   * (and changes nothing) when the lease was lost to another dispatcher.
   */
  recordResult(eventId: string, leaseId: string, result: DeliveryResult): Promise<boolean>;
  /** The delivery log, newest first. */
  list(filter: DeliveryListFilter): Promise<DeliverySummary[]>;
  get(eventId: string): Promise<DeliverySummary | null>;
  /**
   * The operator's "retry a failed event": a `failed` event becomes `pending`, due at `nowIso`,
   * with `attempts` reset to 0 so it gets the whole retry schedule again; last status and error
   * are kept for the log. Any other state is left alone (`not_failed`).
   */
  requeue(eventId: string, nowIso: string): Promise<RequeueResult>;
}

/** The bookkeeping of an event no dispatcher has touched yet: pending, due at once. */
export const newDeliveryStatus = (): DeliveryStatus => ({
  state: "pending",
  attempts: 0,
  nextAttemptAt: null,
  leaseUntil: null,
  leaseId: null,
  lastStatusCode: null,
  lastError: null,
  lastAttemptAt: null,
  deliveredAt: null,
});

/** True when the delivery may be leased at `nowIso` (ignoring the head-of-resource rule). */
export const isDeliveryDue = (d: DeliveryStatus, nowIso: string): boolean =>
  (d.state === "pending" && (d.nextAttemptAt === null || d.nextAttemptAt <= nowIso)) ||
  (d.state === "delivering" && d.leaseUntil !== null && d.leaseUntil <= nowIso);

/** True while the delivery holds a lease that has not run out. */
export const isLeaseLive = (d: DeliveryStatus, nowIso: string): boolean =>
  d.state === "delivering" && d.leaseUntil !== null && d.leaseUntil > nowIso;

/** One row of the operator API's `GET /admin/webhook-deliveries` (DESIGN, operator contract). */
export interface DeliveryLogRow {
  eventId: string;
  type: EventType;
  dedupKey: string;
  attempts: number;
  status: DeliveryState;
  lastStatusCode: number | null;
}

export const toDeliveryLogRow = (d: DeliverySummary): DeliveryLogRow => ({
  eventId: d.eventId,
  type: d.type,
  dedupKey: d.dedupKey,
  attempts: d.attempts,
  status: d.status,
  lastStatusCode: d.lastStatusCode,
});

/**
 * The operator's delivery log, newest first.
 *
 * @example
 *   const data = await uow.run((tx) => listWebhookDeliveries(tx, { tenantId: "acme" }));
 */
export async function listWebhookDeliveries(tx: Tx, filter: DeliveryListFilter): Promise<DeliveryLogRow[]> {
  // The stores take a whole limit in range: clamped here once, whatever an embedder passes.
  const { limit } = listWindow(filter, { fallback: deliveryListLimitDefault, max: deliveryListLimitMax });
  return (await tx.deliveries.list({ ...filter, limit })).map(toDeliveryLogRow);
}

/**
 * The operator's "retry a failed event" (`POST /admin/webhook-events/{eventId}/retry`): the event
 * is due again at once with the whole retry schedule. NotFound for an unknown event; Conflict when
 * it is not failed (pending and delivering ones are already on their way, delivered ones are done).
 */
export async function retryWebhookEvent(tx: Tx, eventId: string, nowIso: string): Promise<DeliveryLogRow> {
  const r = await tx.deliveries.requeue(eventId, nowIso);
  if (r.kind === "not_found") throw new DomainError("NotFound", "Webhook event not found");
  if (r.kind === "not_failed") {
    throw new DomainError(
      "Conflict",
      `webhook event is ${r.delivery.status}, only a failed event is re-queued`,
    );
  }
  return toDeliveryLogRow(r.delivery);
}
