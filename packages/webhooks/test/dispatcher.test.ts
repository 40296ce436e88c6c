import type { OutboxEvent, Tenant, Tx, UnitOfWork } from "@wallet/ledger-core";
import { type DomainError, listWebhookDeliveries, retryWebhookEvent } from "@wallet/ledger-core";
import { createFixedClock, createMemoryStore, type MemoryStore } from "@wallet/ledger-core/memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createWebhookDispatcher,
  defaultRetryScheduleSeconds,
  signWebhook,
  verifyWebhook,
  type WebhookDispatcherOptions,
  type WebhookSettings,
} from "../src/index.js";
import { emit, eventDeps, secretV1, tenantFixture } from "./support/fixtures.js";
import {
  closedPortUrl,
  type ReceivedRequest,
  startReceiver,
  type TestReceiver,
} from "./support/receiver-server.js";

const start = "2026-11-22T10:00:00.000Z";
const settings: WebhookSettings = {
  retryScheduleSeconds: defaultRetryScheduleSeconds,
  timeoutMs: 2_000,
  maxInFlight: 4,
};

let store: MemoryStore;
let clock: ReturnType<typeof createFixedClock>;
let receiver: TestReceiver;
const deps = () => eventDeps(clock);
const run = <T>(work: (tx: Tx) => Promise<T>) => store.uow.run(work);
const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);
const status = (eventId: string) => run((tx) => tx.deliveries.get(eventId));
const header = (r: ReceivedRequest, name: string) => r.headers[name] as string;
const idsOf = (rs: ReceivedRequest[]) => rs.map((r) => header(r, "x-webhook-id"));

function dispatcher(over: Partial<WebhookDispatcherOptions> = {}) {
  return createWebhookDispatcher({ uow: store.uow, clock, settings, ...over });
}

async function putTenant(t: Tenant) {
  await run((tx) => tx.tenants.upsert(t));
}

beforeEach(async () => {
  store = createMemoryStore();
  clock = createFixedClock(start);
  receiver = await startReceiver();
  await putTenant(tenantFixture("acme", receiver.url));
});

afterEach(async () => {
  await receiver.close();
});

describe("webhook dispatcher", () => {
  it("POSTs the stored body, signed, with headers the receiver helper verifies", async () => {
    const id = await emit(store.uow, deps(), "acme", "wallet_credit.completed", "op_1");
    const [stored] = store.state.outbox;
    expect(await dispatcher().runOnce()).toEqual({
      leased: 1,
      delivered: 1,
      retried: 0,
      waiting: 0,
      failed: 0,
      lost: 0,
    });

    expect(receiver.requests).toHaveLength(1);
    const got = receiver.requests[0]!;
    expect(got.method).toBe("POST");
    expect(got.path).toBe("/hooks");
    expect(got.rawBody).toBe(stored!.body);
    expect(header(got, "content-type")).toBe("application/json");
    expect(header(got, "x-webhook-id")).toBe(id);
    expect(header(got, "x-webhook-timestamp")).toBe(String(nowSeconds()));
    expect(header(got, "x-webhook-key-id")).toBe("wh1");
    expect(header(got, "x-webhook-signature")).toBe(signWebhook(secretV1, nowSeconds(), stored!.body));
    expect(header(got, "x-webhook-signature")).toMatch(/^[0-9a-f]{64}$/);

    const envelope = verifyWebhook(got.bytes, got.headers, [{ kid: "wh1", secret: secretV1 }], {
      nowSeconds: nowSeconds(),
    });
    expect(envelope).toMatchObject({
      id,
      type: "wallet_credit.completed",
      dedupKey: "op_1:wallet_credit.completed:1",
      apiVersion: "v1",
    });
    expect(envelope.data).toEqual({ operation: { uid: "op_1" } });

    expect(await status(id)).toMatchObject({
      status: "delivered",
      attempts: 1,
      lastStatusCode: 200,
      deliveredAt: start,
    });
    expect(await dispatcher().runOnce()).toMatchObject({ leased: 0 });
    expect(receiver.requests).toHaveLength(1);
  });

  it("retries 5xx, 408 and 429 on the schedule until 2xx: same body, fresh timestamp and signature", async () => {
    const answers = [503, 408, 429, 200];
    receiver.reply((_, i) => ({ status: answers[i] ?? 500 }));
    const id = await emit(store.uow, deps(), "acme", "payout.confirmed", "op_1");
    const d = dispatcher();

    expect(await d.runOnce()).toMatchObject({ retried: 1 });
    expect(await status(id)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastStatusCode: 503,
      lastError: "HTTP 503",
      nextAttemptAt: "2026-11-22T10:01:00.000Z",
    });
    clock.advanceMs(59_999);
    expect(await d.runOnce()).toMatchObject({ leased: 0 });
    clock.advanceMs(1);
    expect(await d.runOnce()).toMatchObject({ retried: 1 }); // 408
    expect((await status(id))?.nextAttemptAt).toBe("2026-11-22T10:06:00.000Z");
    clock.advanceMs(300_000);
    expect(await d.runOnce()).toMatchObject({ retried: 1 }); // 429
    expect((await status(id))?.nextAttemptAt).toBe("2026-11-22T10:36:00.000Z");
    clock.advanceMs(1_800_000);
    expect(await d.runOnce()).toMatchObject({ delivered: 1 });

    expect(receiver.requests).toHaveLength(4);
    const bodies = new Set(receiver.requests.map((r) => r.rawBody));
    expect(bodies.size).toBe(1);
    expect([...bodies][0]).toBe(store.state.outbox[0]!.body);
    const stamps = receiver.requests.map((r) => Number(header(r, "x-webhook-timestamp")));
    expect(stamps.map((s) => s - stamps[0]!)).toEqual([0, 60, 360, 2160]);
    expect(new Set(receiver.requests.map((r) => header(r, "x-webhook-signature"))).size).toBe(4);
    for (const r of receiver.requests) {
      const at = Number(header(r, "x-webhook-timestamp"));
      expect(verifyWebhook(r.rawBody, r.headers, { wh1: secretV1 }, { nowSeconds: at }).id).toBe(id);
    }
    expect(await status(id)).toMatchObject({ status: "delivered", attempts: 4, lastStatusCode: 200 });
  });

  it("does not retry a 400 or a redirect: failed at once", async () => {
    receiver.reply((r) => ({ status: r.rawBody.includes("op_redirect") ? 302 : 400 }));
    const bad = await emit(store.uow, deps(), "acme", "wallet_debit.completed", "op_bad");
    const moved = await emit(store.uow, deps(), "acme", "wallet_debit.completed", "op_redirect");
    expect(await dispatcher().runOnce()).toMatchObject({ leased: 2, failed: 2, retried: 0 });
    expect(await status(bad)).toMatchObject({
      status: "failed",
      attempts: 1,
      lastStatusCode: 400,
      lastError: "HTTP 400",
    });
    expect(await status(moved)).toMatchObject({ status: "failed", attempts: 1, lastStatusCode: 302 });
    clock.advanceMs(86_400_000);
    expect(await dispatcher().runOnce()).toMatchObject({ leased: 0 });
    expect(receiver.requests).toHaveLength(2); // the redirect was not followed
  });

  it("makes 8 attempts at the spec's offsets, then fails the event", async () => {
    receiver.reply(() => ({ status: 500 }));
    const id = await emit(store.uow, deps(), "acme", "topup.confirmed", "op_1");
    const d = dispatcher();
    for (let attempt = 1; attempt <= 8; attempt++) {
      clock.advanceMs(defaultRetryScheduleSeconds[attempt - 1]! * 1000);
      expect(await d.runOnce()).toMatchObject(attempt < 8 ? { retried: 1 } : { failed: 1 });
    }
    expect(await status(id)).toMatchObject({
      status: "failed",
      attempts: 8,
      lastStatusCode: 500,
      nextAttemptAt: null,
    });
    const stamps = receiver.requests.map((r) => Number(header(r, "x-webhook-timestamp")));
    expect(stamps.map((s) => s - stamps[0]!)).toEqual([0, 60, 360, 2160, 9360, 52560, 95760, 138960]);
    clock.advanceMs(7 * 86_400_000);
    expect(await d.runOnce()).toMatchObject({ leased: 0 });
    expect(receiver.requests).toHaveLength(8);
  });

  it("retries with a compressed schedule under the real scheduler until 2xx", async () => {
    receiver.reply((_, i) => ({ status: i < 2 ? 503 : 200 }));
    const real = { now: () => new Date() };
    await putTenant(
      tenantFixture("acme", receiver.url, {
        secrets: [{ kid: "wh1", secret: secretV1, createdAt: "2020-01-01T00:00:00.000Z" }],
      }),
    );
    const id = await emit(store.uow, eventDeps(real), "acme", "customer.created", "cus_1", "customer");
    const d = createWebhookDispatcher({
      uow: store.uow,
      clock: real,
      settings: { retryScheduleSeconds: [0, 0.05, 0.05, 0.05], timeoutMs: 1_000, maxInFlight: 4 },
    });
    d.start(20);
    const deadline = Date.now() + 5_000;
    while ((await status(id))?.status !== "delivered" && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await d.stop();
    expect(await status(id)).toMatchObject({ status: "delivered", attempts: 3 });
    expect(receiver.requests).toHaveLength(3);
    for (const r of receiver.requests)
      expect(verifyWebhook(r.rawBody, r.headers, { wh1: secretV1 }).id).toBe(id);
  });

  it("retries connection errors and timeouts", async () => {
    await putTenant(tenantFixture("acme", await closedPortUrl()));
    const refused = await emit(store.uow, deps(), "acme", "payout.failed", "op_1");
    expect(await dispatcher().runOnce()).toMatchObject({ retried: 1 });
    expect(await status(refused)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastError: "connection (ECONNREFUSED)",
      lastStatusCode: null,
    });

    // A receiver that never answers, with a short timeout.
    await putTenant(tenantFixture("acme", receiver.url));
    receiver.reply((_, i) => (i === 0 ? "hang" : { status: 200 }));
    clock.advanceMs(60_000);
    const started = Date.now();
    const d = dispatcher({ settings: { ...settings, timeoutMs: 200 } });
    expect(await d.runOnce()).toMatchObject({ retried: 1 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await status(refused)).toMatchObject({ status: "pending", attempts: 2, lastError: "timeout" });
    clock.advanceMs(300_000);
    expect(await d.runOnce()).toMatchObject({ delivered: 1 });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[0]!.rawBody).toBe(receiver.requests[1]!.rawBody);
  });

  it("holds later events of a resource behind a failing one while other resources flow", async () => {
    let failFirst = true;
    const first = await emit(store.uow, deps(), "acme", "payout.uncertain", "op_1");
    const second = await emit(store.uow, deps(), "acme", "payout.confirmed", "op_1");
    const other = await emit(store.uow, deps(), "acme", "wallet_credit.completed", "op_2");
    receiver.reply((r) => ({ status: failFirst && header(r, "x-webhook-id") === first ? 503 : 200 }));
    const d = dispatcher();

    expect(await d.runOnce()).toMatchObject({ leased: 2, delivered: 1, retried: 1 });
    expect(idsOf(receiver.requests).sort()).toEqual([first, other].sort());
    clock.advanceMs(60_000);
    expect(await d.runOnce()).toMatchObject({ leased: 1, retried: 1 });
    expect(idsOf(receiver.requests)).not.toContain(second);

    failFirst = false;
    clock.advanceMs(300_000);
    expect(await d.drain()).toMatchObject({ delivered: 2 });
    const forOp1 = idsOf(receiver.requests).filter((x) => x !== other);
    expect(forOp1).toEqual([first, first, first, second]);
    expect(await status(second)).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("a failed event no longer holds its resource back", async () => {
    const first = await emit(store.uow, deps(), "acme", "mandate.created", "man_1", "mandate");
    const second = await emit(store.uow, deps(), "acme", "mandate.revoked", "man_1", "mandate");
    receiver.reply((r) => ({ status: header(r, "x-webhook-id") === first ? 410 : 200 }));
    expect(await dispatcher().drain()).toMatchObject({ failed: 1, delivered: 1 });
    expect(idsOf(receiver.requests)).toEqual([first, second]);
  });

  it("keeps at most maxInFlight requests in flight per tenant, even with overlapping rounds", async () => {
    await putTenant(tenantFixture("beta", `${receiver.url}/beta`));
    receiver.reply(() => ({ status: 200, delayMs: 80 }));
    for (let i = 0; i < 10; i++) await emit(store.uow, deps(), "acme", "wallet_credit.completed", `op_a${i}`);
    for (let i = 0; i < 6; i++) await emit(store.uow, deps(), "beta", "wallet_credit.completed", `op_b${i}`);
    const d = dispatcher();
    // Two rounds at once, as two scheduler processes would run them.
    const [a, b] = await Promise.all([d.runOnce(), d.runOnce()]);
    expect(a.leased + b.leased).toBe(8);
    expect(receiver.maxConcurrent("/hooks")).toBe(4);
    expect(receiver.maxConcurrent("/hooks/beta")).toBe(4);
    expect(receiver.maxConcurrent()).toBe(8);
    const rest = await d.drain();
    expect(rest.delivered).toBe(8);
    expect(receiver.requests).toHaveLength(16);
    expect(receiver.maxConcurrent("/hooks")).toBe(4);
    expect(receiver.maxConcurrent("/hooks/beta")).toBe(4);
  });

  it("drain(maxRounds) leases at most maxRounds * batchSize deliveries, partial leases included", async () => {
    // A first lease comes back partial (3 due), then 20 more fall due: each later lease may ask
    // only for what the bound (2 * 5) leaves, so the drain stops at 10, not 3 + 5 + 5.
    for (let i = 0; i < 3; i++) await emit(store.uow, deps(), "acme", "wallet_credit.completed", `op_a${i}`);
    receiver.reply(() => ({ status: 200, delayMs: 100 }));
    const draining = dispatcher({ batchSize: 5, settings: { ...settings, maxInFlight: 64 } }).drain(2);
    while (receiver.requests.length < 3) await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 20; i++) await emit(store.uow, deps(), "acme", "wallet_credit.completed", `op_b${i}`);
    const counts = await draining;
    expect(counts.leased).toBe(10);
    expect(counts.delivered).toBe(10);
  });

  it("sends an event again when its lease runs out before the result was recorded (at least once)", async () => {
    const id = await emit(store.uow, deps(), "acme", "wallet_credit.completed", "op_1");
    // A dispatcher whose store fails when it records: it POSTed, then "crashed".
    let recordFails = true;
    const flaky: UnitOfWork = {
      run: (work) =>
        store.uow.run((tx) =>
          work({
            ...tx,
            deliveries: {
              ...tx.deliveries,
              recordResult: async (...args) => {
                if (recordFails) throw new Error("db gone");
                return tx.deliveries.recordResult(...args);
              },
            },
          }),
        ),
      autocommit: (work) => store.uow.autocommit(work),
    };
    expect(await dispatcher({ uow: flaky }).runOnce()).toMatchObject({ leased: 1, lost: 1 });
    expect(receiver.requests).toHaveLength(1);
    expect((await status(id))?.status).toBe("delivering");
    recordFails = false;

    const healthy = dispatcher();
    clock.advanceMs(settings.timeoutMs + 59_000);
    expect(await healthy.runOnce()).toMatchObject({ leased: 0 }); // the lease still holds
    clock.advanceMs(1_000);
    expect(await healthy.runOnce()).toMatchObject({ delivered: 1 });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[1]!.rawBody).toBe(receiver.requests[0]!.rawBody);
    expect(await status(id)).toMatchObject({ status: "delivered", attempts: 1 });
  });

  it("a lease taken by a dispatcher that died is delivered after it expires", async () => {
    const id = await emit(store.uow, deps(), "acme", "wallet_credit.completed", "op_1");
    const now = clock.now();
    await run((tx) =>
      tx.deliveries.leaseDue({
        nowIso: now.toISOString(),
        leaseUntilIso: new Date(now.getTime() + 30_000).toISOString(),
        leaseId: "dead",
        limit: 10,
        maxInFlightPerTenant: 4,
      }),
    );
    expect(await dispatcher().runOnce()).toMatchObject({ leased: 0 });
    clock.advanceMs(30_000);
    expect(await dispatcher().runOnce()).toMatchObject({ delivered: 1 });
    expect(idsOf(receiver.requests)).toEqual([id]);
    // The dead dispatcher's late result changes nothing.
    const late = await run((tx) =>
      tx.deliveries.recordResult(id, "dead", {
        outcome: "failed",
        attempted: true,
        statusCode: 500,
        error: "HTTP 500",
        atIso: clock.now().toISOString(),
        nextAttemptAt: null,
      }),
    );
    expect(late).toBe(false);
    expect((await status(id))?.status).toBe("delivered");
  });

  it("re-queues a failed event through the operator's retry, which then delivers it", async () => {
    receiver.reply((_, i) => ({ status: i === 0 ? 400 : 200 }));
    const id = await emit(store.uow, deps(), "acme", "wallet_debit.failed", "op_1");
    await dispatcher().runOnce();
    expect(await run((tx) => listWebhookDeliveries(tx, { tenantId: "acme" }))).toEqual([
      {
        eventId: id,
        type: "wallet_debit.failed",
        dedupKey: "op_1:wallet_debit.failed:1",
        attempts: 1,
        status: "failed",
        lastStatusCode: 400,
      },
    ]);
    clock.advanceMs(3_600_000);
    const row = await run((tx) => retryWebhookEvent(tx, id, clock.now().toISOString()));
    expect(row).toMatchObject({ eventId: id, status: "pending", attempts: 0, lastStatusCode: 400 });
    expect(await dispatcher().runOnce()).toMatchObject({ delivered: 1 });
    expect(await status(id)).toMatchObject({ status: "delivered", attempts: 1, lastStatusCode: 200 });
    expect(receiver.requests[1]!.rawBody).toBe(receiver.requests[0]!.rawBody);
    expect(
      Number(header(receiver.requests[1]!, "x-webhook-timestamp")) -
        Number(header(receiver.requests[0]!, "x-webhook-timestamp")),
    ).toBe(3600);

    const code = async (eventId: string) =>
      run((tx) => retryWebhookEvent(tx, eventId, clock.now().toISOString())).then(
        () => null,
        (e: DomainError) => e.code,
      );
    expect(await code(id)).toBe("Conflict");
    expect(await code("evt_unknown")).toBe("NotFound");
  });

  it("holds, without sending, an event whose webhook was disabled or emptied since it was written, and sends it once the webhook is back", async () => {
    const disabled = await emit(store.uow, deps(), "acme", "customer.status_changed", "cus_1", "customer");
    const later = await emit(store.uow, deps(), "acme", "customer.status_changed", "cus_1", "customer");
    await putTenant(tenantFixture("acme", receiver.url, { enabled: false }));
    expect(await dispatcher().runOnce()).toMatchObject({ leased: 1, waiting: 1, failed: 0 });
    expect(await status(disabled)).toMatchObject({
      status: "pending",
      attempts: 0,
      lastError: "webhook disabled",
      // Looked at again after the schedule's first retry wait.
      nextAttemptAt: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    expect((await status(later))?.status, "its resource's next event waits behind it").toBe("pending");
    clock.advanceMs(60_000);
    expect(await dispatcher().runOnce(), "still disabled").toMatchObject({ waiting: 1 });

    // Back after an hour: both are sent, in order, each on its first attempt.
    await putTenant(tenantFixture("acme", receiver.url));
    clock.advanceMs(3_600_000);
    await dispatcher().drain();
    expect(idsOf(receiver.requests)).toEqual([disabled, later]);
    expect(await status(disabled)).toMatchObject({ status: "delivered", attempts: 1 });

    // No URL, no signing secret: the same wait.
    const noUrl = await emit(store.uow, deps(), "acme", "wallet.status_changed", "wal_1", "wallet");
    await putTenant(tenantFixture("acme", null));
    expect(await dispatcher().runOnce()).toMatchObject({ waiting: 1 });
    expect(await status(noUrl)).toMatchObject({ status: "pending", lastError: "webhook disabled" });
    await putTenant(tenantFixture("acme", receiver.url));
    const noSecret = await emit(store.uow, deps(), "acme", "mandate.expired", "man_1", "mandate");
    await putTenant(tenantFixture("acme", receiver.url, { secrets: [] }));
    clock.advanceMs(60_000);
    expect(await dispatcher().drain()).toMatchObject({ waiting: 2 });
    expect(await status(noSecret)).toMatchObject({ status: "pending", lastError: "no signing secret" });
    expect(await status(noUrl)).toMatchObject({ status: "pending", lastError: "no signing secret" });
    expect(receiver.requests).toHaveLength(2);
  });

  it("fails an event whose webhook stays unusable for as long as the retry schedule lasts (about 38.5 h)", async () => {
    const id = await emit(store.uow, deps(), "acme", "customer.status_changed", "cus_1", "customer");
    const span = defaultRetryScheduleSeconds.reduce((a, b) => a + b, 0) * 1000;
    await putTenant(tenantFixture("acme", receiver.url, { enabled: false }));
    clock.advanceMs(span - 30_000);
    expect(await dispatcher().runOnce()).toMatchObject({ waiting: 1 });
    // Its last look is at the end of the span, not a minute past it.
    expect((await status(id))?.nextAttemptAt).toBe(new Date(Date.parse(start) + span).toISOString());
    clock.advanceMs(30_000);
    expect(await dispatcher().runOnce()).toMatchObject({ failed: 1 });
    expect(await status(id)).toMatchObject({ status: "failed", attempts: 0, lastError: "webhook disabled" });
    expect(receiver.requests).toHaveLength(0);
  });

  it("never sends a type outside the spec's list, nor a body that does not match its row", async () => {
    const rogue = (id: string, type: string, bodyType = type): OutboxEvent => ({
      id,
      tenantId: "acme",
      type: type as OutboxEvent["type"],
      resourceUid: `res_${id}`,
      seq: 1,
      dedupKey: `res_${id}:${type}:1`,
      occurredAt: start,
      body: JSON.stringify({
        id,
        type: bodyType,
        occurredAt: start,
        dedupKey: `res_${id}:${type}:1`,
        data: {},
        apiVersion: "v1",
      }),
    });
    await run(async (tx) => {
      await tx.outbox.append(rogue("evt_x1", "customer.deleted"));
      await tx.outbox.append(rogue("evt_x2", "wallet_credit.completed", "wallet_credit.reversed"));
    });
    const errors: unknown[] = [];
    const d = dispatcher({ logger: { error: (message, fields) => errors.push({ message, fields }) } });
    expect(await d.runOnce()).toMatchObject({ leased: 2, failed: 2 });
    expect(await status("evt_x1")).toMatchObject({
      status: "failed",
      attempts: 0,
      lastError: "event type not in the spec's list",
    });
    expect(await status("evt_x2")).toMatchObject({
      status: "failed",
      lastError: "body does not match its outbox row",
    });
    expect(errors).toHaveLength(2);
    expect(receiver.requests).toHaveLength(0);
  });

  it("signs with the previous secret during a rotation's 24 h overlap, then the newest, under its kid", async () => {
    const second = "whsec_second_0123456789abcdef";
    await putTenant(
      tenantFixture("acme", receiver.url, {
        secrets: [
          { kid: "wh1", secret: secretV1, createdAt: "2026-01-01T00:00:00.000Z" },
          { kid: "wh2", secret: second, createdAt: "2026-11-22T09:00:00.000Z" },
          { kid: "wh3", secret: "whsec_future_0123456789abcdef", createdAt: "2026-11-22T11:00:00.000Z" },
        ],
      }),
    );
    await emit(store.uow, deps(), "acme", "wallet_credit.completed", "op_1");
    await dispatcher().runOnce();
    clock.advanceMs(86_400_000); // wh2's overlap has ended, wh3's has not
    await emit(store.uow, deps(), "acme", "wallet_credit.completed", "op_2");
    await dispatcher().runOnce();
    const [during, after] = receiver.requests;
    expect(header(during!, "x-webhook-key-id")).toBe("wh1");
    expect(header(after!, "x-webhook-key-id")).toBe("wh2");
    expect(header(after!, "x-webhook-signature")).toBe(signWebhook(second, nowSeconds(), after!.rawBody));
  });

  it("refuses settings it cannot honour", () => {
    const make = (s: Partial<WebhookSettings>) => () => dispatcher({ settings: { ...settings, ...s } });
    expect(make({ retryScheduleSeconds: [] })).toThrow(/retryScheduleSeconds/);
    expect(make({ retryScheduleSeconds: [5, 60] })).toThrow(/must be 0/);
    expect(make({ retryScheduleSeconds: [0, -1] })).toThrow(/>= 0/);
    expect(make({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(make({ maxInFlight: 0 })).toThrow(/maxInFlight/);
    expect(() => dispatcher({ leaseMs: 1_000 })).toThrow(/leaseMs/);
  });
});
