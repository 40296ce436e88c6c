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
  transport?: WebhookTransport;
  /** The tenant's current webhook config, read at delivery time. Defaults to `tx.tenants.get`. */
  loadTenant?: (tenantId: string) => Promise<Tenant | null>;
  logger?: WebhookLogger;
  /** Deliveries leased per round (default 100). */
  batchSize?: number;
  /** Lease length; must outlast `timeoutMs` with room to record the result (default timeoutMs + 60 s). */
  leaseMs?: number;
  /** Rounds per scheduler tick and per `drain()` (default 10). */
  maxRoundsPerTick?: number;
}

/** What a round (or several) did. `lost`: a result not recorded because the lease was gone or the store failed. */
export interface DispatchCounts {
  leased: number;
  delivered: number;
  retried: number;
  failed: number;
  lost: number;
}

export interface WebhookDispatcher {
  /**
   * One bounded round: lease a batch in one short transaction, POST it (at most `maxInFlight` per
   * tenant at once) outside any transaction, record each result in its own short transaction.
   */
  runOnce(): Promise<DispatchCounts>;
  /** Rounds until one leases nothing or `maxRounds` ran: the job "deliver-webhooks". */
  drain(maxRounds?: number): Promise<DispatchCounts>;
  /** Runs `drain` every `intervalMs`, never two at once. The timer does not keep the process alive. */
  start(intervalMs: number): void;
  /** Stops the timer and waits for the round in progress. */
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

const zero = (): DispatchCounts => ({ leased: 0, delivered: 0, retried: 0, failed: 0, lost: 0 });
const add = (a: DispatchCounts, b: DispatchCounts): DispatchCounts => ({
  leased: a.leased + b.leased,
  delivered: a.delivered + b.delivered,
  retried: a.retried + b.retried,
  failed: a.failed + b.failed,
  lost: a.lost + b.lost,
});

/** Runs `fn` over `items` with at most `width` calls pending at once. */
async function inPool<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

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

  type Outcome = "delivered" | "retried" | "failed" | "lost";

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

  async function deliverOne(d: LeasedDelivery, tenant: Tenant | null): Promise<Outcome> {
    const problem = envelopeProblem(d);
    if (problem) {
      log.error?.("webhook event refused", { eventId: d.eventId, type: d.type, problem });
      return abandon(d, problem);
    }
    // The config at delivery time decides where and how: a webhook disabled or emptied since the
    // event was written fails the event (the operator may re-queue it once it is back).
    if (!tenant) return abandon(d, "tenant unknown");
    const { webhook } = tenant;
    if (!webhook.enabled || webhook.url === null) return abandon(d, "webhook disabled");
    const secret = signingSecretOf(webhook, clock.now());
    if (!secret) return abandon(d, "no signing secret");

    const timestamp = Math.floor(clock.now().getTime() / 1000);
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

  async function runOnce(): Promise<DispatchCounts> {
    const now = clock.now();
    const batch = await uow.run((tx) =>
      tx.deliveries.leaseDue({
        nowIso: now.toISOString(),
        leaseUntilIso: new Date(now.getTime() + leaseMs).toISOString(),
        leaseId: randomUUID(),
        limit: batchSize,
        maxInFlightPerTenant: settings.maxInFlight,
      }),
    );
    const counts = zero();
    counts.leased = batch.length;
    const byTenant = new Map<string, LeasedDelivery[]>();
    for (const d of batch) byTenant.set(d.tenantId, [...(byTenant.get(d.tenantId) ?? []), d]);

    await Promise.all(
      [...byTenant].map(async ([tenantId, items]) => {
        let tenant: Tenant | null;
        try {
          tenant = await loadTenant(tenantId);
        } catch (e) {
          // Leave the leases to run out: the events are due again then.
          log.error?.("webhook tenant not loaded", { tenantId, error: (e as Error).name });
          counts.lost += items.length;
          return;
        }
        // The store caps leases per tenant; the pool caps them again here, in case several rounds
        // of this process overlap with a store that cannot count (defence in depth).
        await inPool(items, settings.maxInFlight, async (d) => {
          counts[await deliverOne(d, tenant)]++;
        });
      }),
    );
    return counts;
  }

  let stopped = true;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<unknown> | null = null;

  async function drain(maxRounds = maxRoundsPerTick, keepGoing = () => true): Promise<DispatchCounts> {
    let total = zero();
    for (let round = 0; round < maxRounds && keepGoing(); round++) {
      const counts = await runOnce();
      total = add(total, counts);
      if (counts.leased === 0) break;
    }
    return total;
  }

  return {
    runOnce,
    drain: (maxRounds) => drain(maxRounds),
    start(intervalMs) {
      if (!stopped) return;
      if (!(intervalMs >= 10)) throw new Error("intervalMs must be at least 10");
      stopped = false;
      const tick = async () => {
        running = drain(maxRoundsPerTick, () => !stopped).catch((e: Error) =>
          log.error?.("webhook round failed", { error: e.name }),
        );
        await running;
        running = null;
        if (stopped) return;
        timer = setTimeout(tick, intervalMs);
        timer.unref?.();
      };
      timer = setTimeout(tick, 0);
      timer.unref?.();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
