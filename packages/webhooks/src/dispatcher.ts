import { randomUUID } from "node:crypto";
import type { Clock, DeliveryResult, LeasedDelivery, Tenant, UnitOfWork } from "@wallet/ledger-core";
import { eventTypes } from "@wallet/ledger-core";
import { defaultRetryScheduleSeconds, planAttemptResult } from "./retry-policy.js";
import { signingSecretOf } from "./secrets.js";
import { signWebhook } from "./signature.js";
import type { TransportResult, WebhookTransport } from "./transport.js";
import { createFetchTransport } from "./transport.js";

/** Operator settings (config `webhooks`). */
export interface WebhookSettings {
  /** Entry n: seconds to wait before attempt n + 1; entry 0 must be 0; the length caps attempts. */
  retryScheduleSeconds: readonly number[];
  /** Per POST, connect to response headers. */
  timeoutMs: number;
  /** Deliveries in flight at once per tenant endpoint, across every dispatcher on the database. */
  maxInFlight: number;
}

export const defaultWebhookSettings: WebhookSettings = {
  retryScheduleSeconds: defaultRetryScheduleSeconds,
  timeoutMs: 10_000,
  maxInFlight: 4,
};

/** Structured log sink; fields never hold a secret, a URL or a body. `console` fits. */
export interface WebhookLogger {
  info?(message: string, fields?: Record<string, unknown>): void;
  warn?(message: string, fields?: Record<string, unknown>): void;
  error?(message: string, fields?: Record<string, unknown>): void;
}

export interface WebhookDispatcherOptions {
  uow: UnitOfWork;
  clock: Clock;
  settings: WebhookSettings;
  /** Defaults to global fetch. */
  transport?: WebhookTransport | undefined;
  /** The tenant's current webhook config, read at delivery time. Defaults to `tx.tenants.get`. */
  loadTenant?: ((tenantId: string) => Promise<Tenant | null>) | undefined;
  logger?: WebhookLogger | undefined;
  /** Most deliveries one lease takes, across tenants (default 100). */
  batchSize?: number | undefined;
  /** Lease length; must outlast `timeoutMs` with room to record the result (default timeoutMs + 60 s). */
  leaseMs?: number | undefined;
  /**
   * Bounds one `drain()` called without `maxRounds` to this many batches' worth of deliveries
   * (default 10, so 1,000 at the default `batchSize`). The scheduler (`start`) is not bounded by
   * it: it leases whenever a slot frees, and polls when nothing is due.
   */
  maxRoundsPerTick?: number | undefined;
}

/**
 * What a `runOnce` or a `drain` did: `leased` deliveries, and how each one ended. `waiting`: not
 * sent because the tenant's webhook is disabled or has no URL or no signing secret; the event keeps
 * its place and is looked at again later (`holdUndeliverable`). `lost`: a result not recorded
 * because the lease was gone or the store failed (the event is sent again later).
 */
export interface DispatchCounts {
  leased: number;
  delivered: number;
  retried: number;
  waiting: number;
  failed: number;
  lost: number;
}

/**
 * Every delivery runs on its own: one is leased, POSTed outside any transaction and its result
 * recorded in its own short transaction, and no delivery waits for another, whatever its tenant
 * (one slow endpoint only ever holds its own `maxInFlight` slots). Leases are one short
 * transaction each, never two at once in one dispatcher.
 */
export interface WebhookDispatcher {
  /**
   * One lease (a batch, at most `maxInFlight` per tenant counting live leases), then waits for that
   * batch to be delivered and recorded. For tests and tools: the scheduler does not wait like this.
   */
  runOnce(): Promise<DispatchCounts>;
  /**
   * The job "deliver-webhooks": leases, and leases again as soon as any delivery it started
   * settles, without waiting for the others; returns once a lease found nothing more due (or it
   * has leased `maxRounds` batches' worth, `maxRounds * batchSize` deliveries; default
   * `maxRoundsPerTick`) and nothing it started is in flight.
   * A failed lease is thrown, once the deliveries in flight have settled.
   */
  drain(maxRounds?: number): Promise<DispatchCounts>;
  /**
   * Continuous delivery until `stop()`: leases as soon as a delivery settles (a slot is free), and
   * every `intervalMs` while nothing settles (new or retried events falling due). A failed lease is
   * logged and tried again after `intervalMs`. Its timers do not keep the process alive.
   */
  start(intervalMs: number): void;
  /**
   * Stops leasing, for `start` and for every `drain` under way (which then returns what it did),
   * and waits until the deliveries they have in flight are recorded.
   */
  stop(): Promise<void>;
}

const settingsLimits = { attemptsMax: 32, timeoutMsMax: 120_000, maxInFlightMax: 64 } as const;

/** Throws on settings the dispatcher cannot honour; the server validates its config with it too. */
export function assertWebhookSettings(s: WebhookSettings): void {
  const schedule = s.retryScheduleSeconds;
  const bad = (what: string): never => {
    throw new Error(`Invalid webhook settings: ${what}`);
  };
  if (schedule.length < 1 || schedule.length > settingsLimits.attemptsMax) {
    bad(`retryScheduleSeconds needs 1-${settingsLimits.attemptsMax} entries`);
  }
  if (schedule[0] !== 0) bad("retryScheduleSeconds[0] must be 0 (the first attempt is immediate)");
  if (!schedule.every((x) => Number.isFinite(x) && x >= 0)) bad("retryScheduleSeconds must be >= 0");
  if (!Number.isInteger(s.timeoutMs) || s.timeoutMs < 1 || s.timeoutMs > settingsLimits.timeoutMsMax) {
    bad(`timeoutMs must be an integer in 1-${settingsLimits.timeoutMsMax}`);
  }
  if (
    !Number.isInteger(s.maxInFlight) ||
    s.maxInFlight < 1 ||
    s.maxInFlight > settingsLimits.maxInFlightMax
  ) {
    bad(`maxInFlight must be an integer in 1-${settingsLimits.maxInFlightMax}`);
  }
}

const zero = (): DispatchCounts => ({ leased: 0, delivered: 0, retried: 0, waiting: 0, failed: 0, lost: 0 });

/**
 * Why a leased row must not be sent, or null. A type outside the spec's list, or a body that does
 * not match its row, is a bug upstream: it is failed and logged, never sent.
 */
function envelopeProblem(d: LeasedDelivery): string | null {
  if (!(eventTypes as readonly string[]).includes(d.type)) return "event type not in the spec's list";
  let body: unknown;
  try {
    body = JSON.parse(d.body);
  } catch {
    return "body is not JSON";
  }
  const b = body as Record<string, unknown> | null;
  if (
    typeof b !== "object" ||
    b === null ||
    b.id !== d.eventId ||
    b.type !== d.type ||
    b.dedupKey !== d.dedupKey
  ) {
    return "body does not match its outbox row";
  }
  return null;
}

/**
 * The webhook dispatcher: delivers the transactional outbox at least once, signed, in order per
 * resource, with the spec's retry schedule. Safe to run in several processes on one database:
 * leases live in the store, and a result recorded under a lost lease is ignored.
 *
 * @example
 *   const dispatcher = createWebhookDispatcher({ uow, clock, settings: config.webhooks, logger });
 *   dispatcher.start(1_000);
 *   // ... on shutdown:
 *   await dispatcher.stop();
 */
export function createWebhookDispatcher(opts: WebhookDispatcherOptions): WebhookDispatcher {
  const { uow, clock, settings } = opts;
  assertWebhookSettings(settings);
  const transport = opts.transport ?? createFetchTransport();
  const loadTenant = opts.loadTenant ?? ((id: string) => uow.run((tx) => tx.tenants.get(id)));
  const log = opts.logger ?? {};
  const batchSize = opts.batchSize ?? 100;
  const leaseMs = opts.leaseMs ?? settings.timeoutMs + 60_000;
  const maxRoundsPerTick = opts.maxRoundsPerTick ?? 10;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) throw new Error("batchSize: 1-1000");
  if (!(leaseMs > settings.timeoutMs)) throw new Error("leaseMs must be longer than timeoutMs");

  type Outcome = "delivered" | "retried" | "waiting" | "failed" | "lost";
  const schedule = settings.retryScheduleSeconds;
  // How long an event may wait for its webhook to come back: until its last attempt would have
  // been due had every attempt failed (about 38.5 h by default); it is looked at again after the
  // schedule's first retry wait (1 min by default).
  const waitMaxMs = schedule.reduce((sum, s) => sum + s, 0) * 1000;
  const recheckMs = (schedule[1] ?? 60) * 1000;

  async function record(d: LeasedDelivery, result: DeliveryResult): Promise<Outcome> {
    try {
      const kept = await uow.run((tx) => tx.deliveries.recordResult(d.eventId, d.leaseId, result));
      if (!kept) {
        log.warn?.("webhook lease lost before the result was recorded", { eventId: d.eventId });
        return "lost";
      }
    } catch (e) {
      // The lease runs out and the event is sent again: at least once, never lost.
      log.error?.("webhook result not recorded", { eventId: d.eventId, error: (e as Error).name });
      return "lost";
    }
    return result.outcome === "retry" ? "retried" : result.outcome;
  }

  const abandon = (d: LeasedDelivery, error: string) =>
    record(d, {
      outcome: "failed",
      attempted: false,
      statusCode: null,
      error,
      atIso: clock.now().toISOString(),
      nextAttemptAt: null,
    });

  /**
   * An event whose webhook cannot be sent to now (disabled, no URL, no signing secret) was owed
   * when it was written: it waits, with its attempts and its place in its resource's order, and is
   * looked at again after `recheckMs`. Once it has waited as long as the whole retry schedule
   * lasts, it fails with that reason (the operator may re-queue it).
   */
  async function holdUndeliverable(d: LeasedDelivery, reason: string): Promise<Outcome> {
    const now = clock.now().getTime();
    const until = Date.parse(d.occurredAt) + waitMaxMs;
    if (!(now < until)) return abandon(d, reason);
    const outcome = await record(d, {
      outcome: "retry",
      attempted: false,
      statusCode: null,
      error: reason,
      atIso: new Date(now).toISOString(),
      nextAttemptAt: new Date(Math.min(now + recheckMs, until)).toISOString(),
    });
    return outcome === "retried" ? "waiting" : outcome;
  }

  async function deliverOne(d: LeasedDelivery, tenant: Tenant | null): Promise<Outcome> {
    const problem = envelopeProblem(d);
    if (problem) {
      log.error?.("webhook event refused", { eventId: d.eventId, type: d.type, problem });
      return abandon(d, problem);
    }
    // The config at delivery time decides where and how.
    if (!tenant) return abandon(d, "tenant unknown");
    const { webhook } = tenant;
    if (!webhook.enabled || webhook.url === null) return holdUndeliverable(d, "webhook disabled");
    // One instant for the choice of the secret and the timestamp it signs.
    const signedAt = clock.now();
    const secret = signingSecretOf(webhook, signedAt);
    if (!secret) return holdUndeliverable(d, "no signing secret");

    const timestamp = Math.floor(signedAt.getTime() / 1000);
    const headers = {
      "Content-Type": "application/json",
      "User-Agent": "wallet-ledger-webhooks/1",
      "X-Webhook-Id": d.eventId,
      "X-Webhook-Timestamp": String(timestamp),
      "X-Webhook-Key-Id": secret.kid,
      "X-Webhook-Signature": signWebhook(secret.secret, timestamp, d.body),
    };
    const attemptNo = d.attempts + 1;
    let r: TransportResult;
    try {
      r = await transport.post(webhook.url, headers, d.body, settings.timeoutMs);
    } catch (e) {
      r = { error: "connection", detail: (e as Error).name };
    }
    const result = planAttemptResult(r, attemptNo, settings.retryScheduleSeconds, clock.now());
    log.info?.("webhook attempt", {
      eventId: d.eventId,
      tenantId: d.tenantId,
      type: d.type,
      attempt: attemptNo,
      outcome: result.outcome,
      statusCode: result.statusCode,
      error: result.error,
    });
    return record(d, result);
  }

  // The lease: one short transaction. A dispatcher never runs two at once (its scheduler, an
  // operator's drain and runOnce calls queue here); several dispatchers may, and the store keeps
  // the cap and the order between them.
  let leaseQueue: Promise<unknown> = Promise.resolve();
  function lease(limit: number): Promise<LeasedDelivery[]> {
    const leased = leaseQueue.then(() => {
      const now = clock.now();
      return uow.run((tx) =>
        tx.deliveries.leaseDue({
          nowIso: now.toISOString(),
          leaseUntilIso: new Date(now.getTime() + leaseMs).toISOString(),
          leaseId: randomUUID(),
          limit,
          maxInFlightPerTenant: settings.maxInFlight,
        }),
      );
    });
    leaseQueue = leased.catch(() => undefined);
    return leased;
  }

  // The store caps live leases per tenant; this caps the POSTs of this dispatcher per tenant again,
  // across all its batches (defence in depth, for a lease that ran out while its POST was still
  // pending). A delivery over the cap waits for a slot of its own tenant only.
  const busy = new Map<string, number>();
  const waiting = new Map<string, Array<() => void>>();
  async function inTenantSlot<T>(tenantId: string, fn: () => Promise<T>): Promise<T> {
    const n = busy.get(tenantId) ?? 0;
    if (n < settings.maxInFlight) busy.set(tenantId, n + 1);
    else {
      const queue = waiting.get(tenantId) ?? [];
      waiting.set(tenantId, queue);
      await new Promise<void>((resolve) => queue.push(resolve)); // the finishing one hands its slot over
    }
    try {
      return await fn();
    } finally {
      const queue = waiting.get(tenantId);
      const next = queue?.shift();
      if (queue?.length === 0) waiting.delete(tenantId);
      if (next) next();
      else if ((busy.get(tenantId) ?? 1) <= 1) busy.delete(tenantId);
      else busy.set(tenantId, busy.get(tenantId)! - 1);
    }
  }

  /**
   * Starts every delivery of a leased batch, each on its own: nothing here waits for another
   * tenant, nor for another delivery of the same tenant beyond its slot. `settled(d)` runs once
   * per delivery, when its result is recorded (or given up: its lease then runs out).
   */
  function dispatch(batch: readonly LeasedDelivery[], counts: DispatchCounts, settled: () => void): void {
    const byTenant = new Map<string, LeasedDelivery[]>();
    for (const d of batch) byTenant.set(d.tenantId, [...(byTenant.get(d.tenantId) ?? []), d]);
    for (const [tenantId, items] of byTenant) {
      void (async () => {
        let tenant: Tenant | null;
        try {
          tenant = await loadTenant(tenantId);
        } catch (e) {
          // Leave the leases to run out: the events are due again then.
          log.error?.("webhook tenant not loaded", { tenantId, error: (e as Error).name });
          counts.lost += items.length;
          for (let i = 0; i < items.length; i++) settled();
          return;
        }
        for (const d of items) {
          void inTenantSlot(tenantId, () => deliverOne(d, tenant))
            .catch((e: Error): Outcome => {
              // A bug, not the network (the transport reports that): the lease runs out and the
              // event is sent again.
              log.error?.("webhook delivery failed", { eventId: d.eventId, error: e.name });
              return "lost";
            })
            .then((outcome) => {
              counts[outcome]++;
              settled();
            });
        }
      })();
    }
  }

  /**
   * Continuous dispatch: lease, start the batch, and lease again as soon as any delivery settles
   * (a slot is free, or a resource's next event may be due), without waiting for the others. A
   * settle during a lease makes one more lease after it. At most `maxLeases` leases, and none once
   * `maxLeased` deliveries were leased.
   *
   * - `pollMs` null (drain): ends once a lease made after the last settle found nothing to do, or
   *   the leases are spent, and nothing it started is in flight. A failed lease stops the leasing
   *   and is thrown once the deliveries in flight have settled.
   * - `pollMs` set (the scheduler): when a lease found nothing more, leases again after `pollMs`
   *   or at the next settle, whichever comes first; a failed lease is logged and retried so. Ends
   *   once `keepGoing()` is false (after `wake()`) and nothing it started is in flight.
   */
  function session(maxLeases: number, maxLeased: number, keepGoing: () => boolean, pollMs: number | null) {
    const counts = zero();
    let leases = 0;
    let inFlight = 0;
    let due = true;
    let failure: { error: unknown } | null = null;
    let wakeUp: (() => void) | null = null;
    const wake = () => wakeUp?.();
    const settled = () => {
      inFlight--;
      due = true;
      wake();
    };
    const done = (async (): Promise<DispatchCounts> => {
      for (;;) {
        if (due && failure === null && leases < maxLeases && counts.leased < maxLeased && keepGoing()) {
          due = false;
          leases++;
          let batch: LeasedDelivery[] = [];
          try {
            // Never past the session's bound (drain: maxRounds * batchSize in all).
            batch = await lease(Math.min(batchSize, maxLeased - counts.leased));
          } catch (e) {
            if (pollMs === null) failure = { error: e };
            else log.error?.("webhook lease failed", { error: (e as Error).name });
          }
          counts.leased += batch.length;
          inFlight += batch.length;
          // A full batch may have left due events behind: lease again at once.
          if (batch.length === batchSize) due = true;
          dispatch(batch, counts, settled);
          continue;
        }
        const polling = pollMs !== null && keepGoing();
        if (inFlight === 0 && !polling) break;
        await new Promise<void>((resolve) => {
          const timer = polling
            ? setTimeout(() => {
                due = true;
                wake();
              }, pollMs)
            : null;
          timer?.unref?.();
          wakeUp = () => {
            wakeUp = null;
            if (timer) clearTimeout(timer);
            resolve();
          };
        });
      }
      if (failure) throw failure.error;
      return counts;
    })();
    return { done, wake };
  }

  const runOnce = () => session(1, batchSize, () => true, null).done;

  // The scheduler: a continuous session per start(); a stopped one finishes its in-flight work.
  let scheduler: { stopped: boolean; wake(): void } | null = null;
  let running: Promise<unknown> = Promise.resolve();
  // Drains under way (an operator's run-now): stop() ends their leasing and waits for what they
  // have in flight, so the results the receivers acknowledged are recorded before the store closes.
  const drains = new Set<{ stopped: boolean; wake(): void; done: Promise<unknown> }>();

  return {
    runOnce,
    drain(maxRounds = maxRoundsPerTick) {
      const state = { stopped: false, wake: () => {}, done: Promise.resolve() as Promise<unknown> };
      const s = session(Number.POSITIVE_INFINITY, maxRounds * batchSize, () => !state.stopped, null);
      state.wake = s.wake;
      state.done = s.done.catch(() => undefined);
      drains.add(state);
      void state.done.then(() => drains.delete(state));
      return s.done;
    },
    start(intervalMs) {
      if (scheduler && !scheduler.stopped) return;
      if (!(intervalMs >= 10)) throw new Error("intervalMs must be at least 10");
      const run = { stopped: false, wake: () => {} };
      scheduler = run;
      // An unref'd timer that stop() can cut short: it never keeps the process alive.
      const pause = (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => run.wake(), ms);
          timer.unref?.();
          run.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      const loop = async () => {
        await pause(0);
        while (!run.stopped) {
          const s = session(
            Number.POSITIVE_INFINITY,
            Number.POSITIVE_INFINITY,
            () => !run.stopped,
            intervalMs,
          );
          run.wake = s.wake;
          try {
            await s.done;
          } catch (e) {
            // Not a lease nor a POST (the session handles those): a bug. Start over after a pause.
            log.error?.("webhook dispatcher failed", { error: (e as Error).name });
            if (!run.stopped) await pause(intervalMs);
          }
        }
      };
      running = Promise.all([running, loop()]);
    },
    async stop() {
      if (scheduler) {
        scheduler.stopped = true;
        scheduler.wake();
      }
      for (const d of drains) {
        d.stopped = true;
        d.wake();
      }
      await Promise.all([running, ...[...drains].map((d) => d.done)]);
    },
  };
}
