import type { Tx } from "@wallet/ledger-core";
import { createFixedClock, createMemoryStore, type MemoryStore } from "@wallet/ledger-core/memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createFetchTransport,
  createWebhookDispatcher,
  defaultRetryScheduleSeconds,
  type TransportResult,
  type WebhookDispatcher,
  type WebhookSettings,
  type WebhookTransport,
} from "../src/index.js";
import { emit, eventDeps, tenantFixture } from "./support/fixtures.js";
import { type ReceivedRequest, startReceiver, type TestReceiver } from "./support/receiver-server.js";

// No timing thresholds: the slow receiver's answers are held by hand, and the fixed clock never
// lets a lease run out, so every step below is decided by what the dispatcher does, not by speed.

const settings: WebhookSettings = {
  retryScheduleSeconds: defaultRetryScheduleSeconds,
  timeoutMs: 2_000,
  maxInFlight: 4,
};

let store: MemoryStore;
let clock: ReturnType<typeof createFixedClock>;
let receivers: TestReceiver[];
let dispatchers: WebhookDispatcher[];
let releases: Array<() => void> = [];

const run = <T>(work: (tx: Tx) => Promise<T>) => store.uow.run(work);
const idsOf = (rs: ReceivedRequest[]) => rs.map((r) => r.headers["x-webhook-id"] as string);

/**
 * The real fetch transport, except that for URLs under `held` the receiver's answer is not handed
 * back to the dispatcher until `release()`: the request reaches the receiver, the reply does not.
 */
function holdingTransport(held: (url: string) => boolean) {
  const real = createFetchTransport();
  const waiting: Array<() => void> = [];
  let open = false;
  let inFlight = 0;
  let peak = 0;
  const transport: WebhookTransport = {
    async post(url, headers, body, timeoutMs): Promise<TransportResult> {
      if (!held(url)) return real.post(url, headers, body, timeoutMs);
      inFlight++;
      peak = Math.max(peak, inFlight);
      try {
        const r = await real.post(url, headers, body, timeoutMs);
        if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
        return r;
      } finally {
        inFlight--;
      }
    },
  };
  const release = () => {
    open = true;
    for (const resolve of waiting.splice(0)) resolve();
  };
  releases.push(release);
  return {
    transport,
    /** Answers not yet handed back. */
    waiting: () => waiting.length,
    /** Most held POSTs pending at once. */
    peak: () => peak,
    release,
  };
}

async function until(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  // A guard against hanging forever, not a speed requirement: the awaited state never comes at all
  // when one in-flight delivery holds the others back.
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const statuses = () => run((tx) => tx.deliveries.list({ limit: 1000 }));
const allDelivered = async () => (await statuses()).every((d) => d.status === "delivered");
const deliveredOf = async (tenantId: string) =>
  (await statuses()).filter((d) => d.tenantId === tenantId && d.status === "delivered").length;

/** Each event exactly once, and per resource in `seq` order. */
function expectOncePerEventInResourceOrder(requests: ReceivedRequest[], tenantId: string) {
  const events = store.state.outbox.filter((e) => e.tenantId === tenantId);
  const ids = idsOf(requests);
  expect([...ids].sort()).toEqual(events.map((e) => e.id).sort());
  const byId = new Map(events.map((e) => [e.id, e]));
  const seen = new Map<string, number[]>();
  for (const id of ids) {
    const e = byId.get(id)!;
    seen.set(e.resourceUid, [...(seen.get(e.resourceUid) ?? []), e.seq]);
  }
  for (const seqs of seen.values()) expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
}

beforeEach(() => {
  store = createMemoryStore();
  clock = createFixedClock("2026-11-22T10:00:00.000Z");
  receivers = [];
  dispatchers = [];
  releases = [];
});

afterEach(async () => {
  // A failed test may leave answers held: stop() would wait for them.
  for (const release of releases) release();
  for (const d of dispatchers) await d.stop().catch(() => {});
  for (const r of receivers) await r.close();
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

function started(transport: WebhookTransport) {
  const d = createWebhookDispatcher({ uow: store.uow, clock, settings, transport });
  dispatchers.push(d);
  d.start(10);
  return d;
}

describe("webhook dispatcher: one slow endpoint does not hold the others back", () => {
  it("delivers a fast tenant's events while a slow tenant's first maxInFlight are unanswered", async () => {
    const slowRx = await receiver();
    const fastRx = await receiver();
    await run((tx) => tx.tenants.upsert(tenantFixture("slow", slowRx.url)));
    await run((tx) => tx.tenants.upsert(tenantFixture("fast", fastRx.url)));
    const deps = eventDeps(clock);
    // Slow: 6 events on 5 resources (more than it may have in flight). Fast: 12 events, 3 per
    // resource on 4 resources, interleaved with the slow ones in write order.
    const slowResources = ["s0", "s1", "s2", "s3", "s4", "s0"];
    for (let i = 0; i < 12; i++) {
      if (i < slowResources.length) {
        await emit(store.uow, deps, "slow", "wallet_credit.completed", slowResources[i]!);
      }
      await emit(store.uow, deps, "fast", "wallet_credit.completed", `f${i % 4}`);
    }
    const hold = holdingTransport((url) => url.startsWith(slowRx.url));
    const d = started(hold.transport);

    // The slow tenant's first maxInFlight POSTs reach its receiver, whose answers are held; the fast
    // tenant's 12 events are all delivered meanwhile.
    await until(
      "the fast tenant has every event delivered while the slow one waits",
      async () => hold.waiting() === settings.maxInFlight && (await deliveredOf("fast")) === 12,
    );
    expect(fastRx.requests).toHaveLength(12);
    // No slow POST was answered, and the slow tenant got no more than maxInFlight.
    expect(slowRx.requests).toHaveLength(settings.maxInFlight);
    expect(await deliveredOf("slow")).toBe(0);

    hold.release();
    await until("every event is delivered", allDelivered);
    await d.stop();

    expect(hold.peak()).toBe(settings.maxInFlight);
    expect(fastRx.maxConcurrent()).toBeLessThanOrEqual(settings.maxInFlight);
    expectOncePerEventInResourceOrder(slowRx.requests, "slow");
    expectOncePerEventInResourceOrder(fastRx.requests, "fast");
    for (const s of await statuses()) expect(s).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("inside one tenant, an unanswered delivery holds back only its own resource", async () => {
    const rx = await receiver();
    await run((tx) => tx.tenants.upsert(tenantFixture("acme", rx.url)));
    const deps = eventDeps(clock);
    const stuck = await emit(store.uow, deps, "acme", "payout.uncertain", "op_stuck");
    const behind = await emit(store.uow, deps, "acme", "payout.confirmed", "op_stuck");
    for (let i = 0; i < 12; i++) await emit(store.uow, deps, "acme", "wallet_credit.completed", `op_${i}`);
    // Only the stuck resource's head is held; every other POST goes straight through.
    const hold = holdingTransport(() => true);
    const real = createFetchTransport();
    let inFlight = 0;
    let peak = 0;
    const split: WebhookTransport = {
      async post(url, headers, body, timeoutMs) {
        peak = Math.max(peak, ++inFlight);
        try {
          return headers["X-Webhook-Id"] === stuck
            ? await hold.transport.post(url, headers, body, timeoutMs)
            : await real.post(url, headers, body, timeoutMs);
        } finally {
          inFlight--;
        }
      },
    };
    const d = started(split);

    await until(
      "every other resource is delivered while the stuck one waits",
      async () =>
        hold.waiting() === 1 && (await statuses()).filter((s) => s.status === "delivered").length === 12,
    );
    expect(idsOf(rx.requests)).not.toContain(behind);
    expect(peak).toBeLessThanOrEqual(settings.maxInFlight);

    hold.release();
    await until("every event is delivered", allDelivered);
    await d.stop();
    expect(peak).toBeLessThanOrEqual(settings.maxInFlight);
    expect(rx.requests).toHaveLength(14);
    expectOncePerEventInResourceOrder(rx.requests, "acme");
  });

  it("drain (the operator job) delivers the others meanwhile and returns once nothing is in flight", async () => {
    const slowRx = await receiver();
    const fastRx = await receiver();
    await run((tx) => tx.tenants.upsert(tenantFixture("slow", slowRx.url)));
    await run((tx) => tx.tenants.upsert(tenantFixture("fast", fastRx.url)));
    const deps = eventDeps(clock);
    for (let i = 0; i < 6; i++) await emit(store.uow, deps, "slow", "wallet_credit.completed", `s${i}`);
    for (let i = 0; i < 12; i++) await emit(store.uow, deps, "fast", "wallet_credit.completed", `f${i % 4}`);
    const hold = holdingTransport((url) => url.startsWith(slowRx.url));
    const d = createWebhookDispatcher({ uow: store.uow, clock, settings, transport: hold.transport });

    let result: unknown = null;
    const draining = d.drain(100).then((counts) => {
      result = counts;
      return counts;
    });
    await until(
      "the fast tenant has every event delivered while the slow one waits",
      async () => hold.waiting() === settings.maxInFlight && (await deliveredOf("fast")) === 12,
    );
    expect(result).toBeNull(); // what it started is still in flight
    hold.release();
    expect(await draining).toEqual({ leased: 18, delivered: 18, retried: 0, waiting: 0, failed: 0, lost: 0 });
    expect(await allDelivered()).toBe(true);
    expect(hold.peak()).toBe(settings.maxInFlight);
    expect(await d.drain()).toMatchObject({ leased: 0 });
  });

  it("stop() during an operator's drain: the drain leases nothing more, and what it sent is recorded first", async () => {
    const rx = await receiver();
    await run((tx) => tx.tenants.upsert(tenantFixture("acme", rx.url)));
    const deps = eventDeps(clock);
    for (let i = 0; i < 6; i++) await emit(store.uow, deps, "acme", "wallet_credit.completed", `op_${i}`);
    const hold = holdingTransport(() => true);
    const d = createWebhookDispatcher({ uow: store.uow, clock, settings, transport: hold.transport });
    const draining = d.drain();
    await until("maxInFlight POSTs are waiting", () => hold.waiting() === settings.maxInFlight);

    let stopped = false;
    const stopping = d.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped, "stop waits for the drain's POSTs").toBe(false);
    hold.release();
    await stopping;
    // Recorded by the time stop() resolves (the server closes the store right after).
    const after = await statuses();
    expect(after.filter((s) => s.status === "delivered")).toHaveLength(settings.maxInFlight);
    expect(after.filter((s) => s.status === "pending")).toHaveLength(2);
    expect(await draining).toMatchObject({ leased: settings.maxInFlight, delivered: settings.maxInFlight });
    expect(rx.requests).toHaveLength(settings.maxInFlight);
  });

  it("stop() waits for the deliveries in flight and leases nothing more", async () => {
    const rx = await receiver();
    await run((tx) => tx.tenants.upsert(tenantFixture("acme", rx.url)));
    const deps = eventDeps(clock);
    for (let i = 0; i < 6; i++) await emit(store.uow, deps, "acme", "wallet_credit.completed", `op_${i}`);
    const hold = holdingTransport(() => true);
    const d = started(hold.transport);
    await until("maxInFlight POSTs are waiting", () => hold.waiting() === settings.maxInFlight);

    let stopped = false;
    const stopping = d.stop().then(() => {
      stopped = true;
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    hold.release();
    await stopping;
    const after = await statuses();
    expect(after.filter((s) => s.status === "delivered")).toHaveLength(settings.maxInFlight);
    expect(after.filter((s) => s.status === "pending")).toHaveLength(2);
    expect(rx.requests).toHaveLength(settings.maxInFlight);
  });
});
