import type { DeliveryResult, LeaseRequest, OutboxEvent, Tx, UnitOfWork } from "@wallet/ledger-core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tenantFixture } from "./support/fixtures.js";

/** A fresh, empty store per test: leasing is global, so tests must not see each other's events. */
export interface DeliveryStoreSubject {
  uow: UnitOfWork;
  close?: () => Promise<void>;
}

const t0 = "2026-11-22T10:00:00.000Z";
const plus = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString();

let counter = 0;
function event(tenantId: string, resourceUid: string, seq: number): OutboxEvent {
  counter++;
  const id = `evt_${String(counter).padStart(6, "0")}`;
  const type = "wallet_credit.completed" as const;
  const dedupKey = `${resourceUid}:${type}:${seq}`;
  const body = JSON.stringify({
    id,
    type,
    occurredAt: t0,
    dedupKey,
    data: { operation: { uid: resourceUid } },
    apiVersion: "v1",
  });
  return { id, tenantId, type, resourceUid, seq, dedupKey, occurredAt: t0, body };
}

const lease = (over: Partial<LeaseRequest> = {}): LeaseRequest => ({
  nowIso: t0,
  leaseUntilIso: plus(t0, 70),
  leaseId: `lease_${++counter}`,
  limit: 100,
  maxInFlightPerTenant: 4,
  ...over,
});

const result = (outcome: DeliveryResult["outcome"], over: Partial<DeliveryResult> = {}): DeliveryResult => ({
  outcome,
  attempted: true,
  statusCode: outcome === "delivered" ? 200 : 500,
  error: outcome === "delivered" ? null : "HTTP 500",
  atIso: t0,
  nextAttemptAt: outcome === "retry" ? plus(t0, 60) : null,
  ...over,
});

/**
 * The DeliveryRepository contract, written once for every store (memory here; SQLite and Postgres
 * in persistence's `test/contract/delivery-repository.test.ts`). Each test opens a fresh store.
 */
export function describeDeliveryRepositoryContract(name: string, open: () => Promise<DeliveryStoreSubject>) {
  describe(`delivery repository contract: ${name}`, () => {
    let uow: UnitOfWork;
    let close: (() => Promise<void>) | undefined;
    const run = <T>(work: (tx: Tx) => Promise<T>) => uow.run(work);
    const append = (...events: OutboxEvent[]) =>
      run(async (tx) => {
        for (const e of events) await tx.outbox.append(e);
      });
    const ids = (xs: { eventId: string }[]) => xs.map((x) => x.eventId);

    afterEach(async () => {
      await close?.();
    });

    beforeEach(async () => {
      ({ uow, close } = await open());
      await run(async (tx) => {
        await tx.tenants.upsert(tenantFixture("acme", "http://127.0.0.1:9/hooks"));
        await tx.tenants.upsert(tenantFixture("beta", "http://127.0.0.1:9/hooks"));
      });
    });

    it("a new event is pending and due at once; a leased one is not leased twice", async () => {
      const e = event("acme", "op_a", 1);
      await append(e);
      expect(await run((tx) => tx.deliveries.get(e.id))).toMatchObject({
        status: "pending",
        attempts: 0,
        lastStatusCode: null,
      });
      const first = await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L1" })));
      expect(first).toEqual([
        {
          eventId: e.id,
          tenantId: "acme",
          type: e.type,
          resourceUid: "op_a",
          seq: 1,
          dedupKey: e.dedupKey,
          occurredAt: t0,
          body: e.body,
          attempts: 0,
          leaseId: "L1",
          leaseUntil: plus(t0, 70),
        },
      ]);
      expect((await run((tx) => tx.deliveries.get(e.id)))?.status).toBe("delivering");
      expect(await run((tx) => tx.deliveries.leaseDue(lease({ nowIso: plus(t0, 69) })))).toEqual([]);
    });

    it("leases only the head of each resource, oldest first, within the limit", async () => {
      const a1 = event("acme", "op_a", 1);
      const a2 = event("acme", "op_a", 2);
      const b1 = event("acme", "op_b", 1);
      const c1 = event("acme", "op_c", 1);
      await append(a1, a2, b1, c1);
      const got = await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L1", limit: 2 })));
      expect(ids(got)).toEqual([a1.id, b1.id]);
      const more = await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L2" })));
      expect(ids(more)).toEqual([c1.id]); // a2 waits behind a1
      expect(await run((tx) => tx.deliveries.recordResult(a1.id, "L1", result("delivered")))).toBe(true);
      expect(ids(await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L3" }))))).toEqual([a2.id]);
    });

    it("a retrying event holds back its resource until it is due again; a failed one does not", async () => {
      const a1 = event("acme", "op_a", 1);
      const a2 = event("acme", "op_a", 2);
      await append(a1, a2);
      await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L1" })));
      await run((tx) => tx.deliveries.recordResult(a1.id, "L1", result("retry")));
      expect(await run((tx) => tx.deliveries.get(a1.id))).toMatchObject({
        status: "pending",
        attempts: 1,
        lastStatusCode: 500,
        lastError: "HTTP 500",
        nextAttemptAt: plus(t0, 60),
      });
      expect(await run((tx) => tx.deliveries.leaseDue(lease({ nowIso: plus(t0, 59) })))).toEqual([]);
      const again = await run((tx) =>
        tx.deliveries.leaseDue(lease({ leaseId: "L2", nowIso: plus(t0, 60), leaseUntilIso: plus(t0, 130) })),
      );
      expect(ids(again)).toEqual([a1.id]);
      expect(again[0]?.attempts).toBe(1);
      await run((tx) =>
        tx.deliveries.recordResult(a1.id, "L2", result("failed", { statusCode: 400, error: "HTTP 400" })),
      );
      const next = await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L3", nowIso: plus(t0, 61) })));
      expect(ids(next)).toEqual([a2.id]);
      expect(await run((tx) => tx.deliveries.get(a1.id))).toMatchObject({ status: "failed", attempts: 2 });
    });

    it("caps live leases per tenant, counting earlier leases, and frees them when they expire", async () => {
      const acme = Array.from({ length: 6 }, (_, i) => event("acme", `op_${i}`, 1));
      const beta = Array.from({ length: 2 }, (_, i) => event("beta", `op_b${i}`, 1));
      await append(...acme, ...beta);
      const first = await run((tx) => tx.deliveries.leaseDue(lease({ maxInFlightPerTenant: 4 })));
      expect(ids(first)).toEqual([...acme.slice(0, 4), ...beta].map((e) => e.id));
      expect(await run((tx) => tx.deliveries.leaseDue(lease({ nowIso: plus(t0, 1) })))).toEqual([]);
      // The leases run out (a crashed dispatcher): those events are due again, oldest first.
      const later = plus(t0, 70);
      const second = await run((tx) =>
        tx.deliveries.leaseDue(
          lease({ nowIso: later, leaseUntilIso: plus(later, 70), maxInFlightPerTenant: 4 }),
        ),
      );
      expect(ids(second)).toEqual([...acme.slice(0, 4), ...beta].map((e) => e.id));
    });

    it("ignores a result recorded under a lost lease", async () => {
      const e = event("acme", "op_a", 1);
      await append(e);
      await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "old" })));
      const later = plus(t0, 71);
      const re = await run((tx) =>
        tx.deliveries.leaseDue(lease({ leaseId: "new", nowIso: later, leaseUntilIso: plus(later, 70) })),
      );
      expect(ids(re)).toEqual([e.id]);
      expect(await run((tx) => tx.deliveries.recordResult(e.id, "old", result("failed")))).toBe(false);
      expect((await run((tx) => tx.deliveries.get(e.id)))?.status).toBe("delivering");
      expect(
        await run((tx) => tx.deliveries.recordResult(e.id, "new", result("delivered", { atIso: later }))),
      ).toBe(true);
      expect(await run((tx) => tx.deliveries.get(e.id))).toMatchObject({
        status: "delivered",
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        deliveredAt: later,
      });
      expect(await run((tx) => tx.deliveries.recordResult(e.id, "new", result("delivered")))).toBe(false);
      expect(await run((tx) => tx.deliveries.recordResult("evt_unknown", "new", result("delivered")))).toBe(
        false,
      );
    });

    it("a delivery abandoned without a POST keeps its attempt count", async () => {
      const e = event("acme", "op_a", 1);
      await append(e);
      // First it waits (the webhook is disabled): pending again, due later, nothing counted.
      await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L0" })));
      await run((tx) =>
        tx.deliveries.recordResult(
          e.id,
          "L0",
          result("retry", { attempted: false, statusCode: null, error: "webhook disabled" }),
        ),
      );
      expect(await run((tx) => tx.deliveries.get(e.id))).toMatchObject({
        status: "pending",
        attempts: 0,
        lastStatusCode: null,
        lastError: "webhook disabled",
        lastAttemptAt: null,
        nextAttemptAt: plus(t0, 60),
      });
      expect(await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "early" })))).toEqual([]);
      await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L1", nowIso: plus(t0, 60) })));
      await run((tx) =>
        tx.deliveries.recordResult(
          e.id,
          "L1",
          result("failed", { attempted: false, statusCode: null, error: "webhook disabled" }),
        ),
      );
      expect(await run((tx) => tx.deliveries.get(e.id))).toMatchObject({
        status: "failed",
        attempts: 0,
        lastStatusCode: null,
        lastError: "webhook disabled",
        lastAttemptAt: null,
      });
    });

    it("lists newest first, by tenant and status, within the limit", async () => {
      const a = event("acme", "op_a", 1);
      const b = event("beta", "op_b", 1);
      const c = event("acme", "op_c", 1);
      await append(a, b, c);
      await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L1", limit: 1 })));
      await run((tx) => tx.deliveries.recordResult(a.id, "L1", result("delivered")));
      expect(ids(await run((tx) => tx.deliveries.list({})))).toEqual([c.id, b.id, a.id]);
      expect(ids(await run((tx) => tx.deliveries.list({ tenantId: "acme" })))).toEqual([c.id, a.id]);
      expect(ids(await run((tx) => tx.deliveries.list({ tenantId: "acme", status: "delivered" })))).toEqual([
        a.id,
      ]);
      expect(ids(await run((tx) => tx.deliveries.list({ limit: 1 })))).toEqual([c.id]);
      const [row] = await run((tx) => tx.deliveries.list({ tenantId: "acme", status: "delivered" }));
      expect(row).toMatchObject({ type: a.type, dedupKey: a.dedupKey, attempts: 1, lastStatusCode: 200 });
      expect(row).not.toHaveProperty("body");
    });

    it("re-queues only a failed event, due at once with the whole schedule again", async () => {
      const e = event("acme", "op_a", 1);
      await append(e);
      expect(await run((tx) => tx.deliveries.requeue("evt_unknown", t0))).toEqual({ kind: "not_found" });
      expect((await run((tx) => tx.deliveries.requeue(e.id, t0))).kind).toBe("not_failed");
      await run((tx) => tx.deliveries.leaseDue(lease({ leaseId: "L1" })));
      expect((await run((tx) => tx.deliveries.requeue(e.id, t0))).kind).toBe("not_failed");
      await run((tx) => tx.deliveries.recordResult(e.id, "L1", result("failed", { statusCode: 400 })));
      const later = plus(t0, 3600);
      const r = await run((tx) => tx.deliveries.requeue(e.id, later));
      expect(r).toMatchObject({
        kind: "requeued",
        delivery: { status: "pending", attempts: 0, nextAttemptAt: later, lastStatusCode: 400 },
      });
      expect(
        await run((tx) =>
          tx.deliveries.leaseDue(lease({ nowIso: plus(later, -1), leaseUntilIso: plus(later, 69) })),
        ),
      ).toEqual([]);
      const got = await run((tx) =>
        tx.deliveries.leaseDue(lease({ nowIso: later, leaseUntilIso: plus(later, 70) })),
      );
      expect(ids(got)).toEqual([e.id]);
    });

    it("a lease taken in a unit of work that rolls back never happened", async () => {
      const e = event("acme", "op_a", 1);
      await append(e);
      await expect(
        run(async (tx) => {
          expect(await tx.deliveries.leaseDue(lease())).toHaveLength(1);
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect((await run((tx) => tx.deliveries.get(e.id)))?.status).toBe("pending");
      expect(ids(await run((tx) => tx.deliveries.leaseDue(lease())))).toEqual([e.id]);
    });
  });
}
