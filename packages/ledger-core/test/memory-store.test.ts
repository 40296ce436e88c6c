import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Customer, Journal, Operation, OutboxEvent, TimelineEvent, Wallet } from "../src/index.js";
import { clone } from "../src/memory/clone.js";
import { createMemoryStore } from "../src/memory/index.js";
import {
  copyCustomer,
  copyJournal,
  copyOperation,
  copyOutboxEvent,
  copyTimelineEvent,
  copyWallet,
} from "../src/memory/record-copies.js";
import { UndoLog } from "../src/memory/undo-log.js";

const fullOperation = {
  uid: "op_1",
  tenantId: "t1",
  type: "wallet_credit",
  state: "created",
  amountMinor: 100,
  feeMinor: 10,
  taxMinor: 2,
  currency: "KES",
  clientReference: "ref-1",
  customerUid: "cus_1",
  sourceWalletUid: null,
  destinationWalletUid: "wal_1",
  counterpartyHint: null,
  feeBreakdown: [{ label: "Fee", amountMinor: 10 }],
  provider: {
    railCode: "mpesa",
    state: "pending",
    reference: null,
    lastUpdatedAt: "2026-03-10T12:00:00.000Z",
  },
  mandateUid: null,
  intentReference: null,
  expiresAt: null,
  details: { nested: { list: [1, { deep: "x" }] } },
  metadata: { note: "hello", tags: ["a"] },
  createdAt: "2026-03-10T12:00:00.000Z",
  completedAt: null,
  fundsMovedAt: null,
  updatedAt: "2026-03-10T12:00:00.000Z",
} satisfies Populated<Operation>;
const operation = (o: Partial<Operation> = {}): Operation => ({ ...structuredClone(fullOperation), ...o });

describe("memory store: values are isolated like a database's rows", () => {
  it("a caller mutating what it gave, or what it got, changes nothing stored", async () => {
    const store = createMemoryStore();
    const given = operation();
    const pristine = structuredClone(given);
    await store.uow.run((tx) => tx.operations.insert(given));
    given.state = "failed";
    given.feeBreakdown[0]!.amountMinor = 999;
    (given.metadata as { tags: string[] }).tags.push("b");
    given.provider!.state = "failed";
    const got = await store.uow.run((tx) => tx.operations.get("t1", "op_1"));
    expect(got).toEqual(pristine);
    got!.amountMinor = 1;
    ((got!.details as { nested: { list: unknown[] } }).nested.list[1] as { deep: string }).deep = "y";
    expect(await store.uow.run((tx) => tx.operations.get("t1", "op_1"))).toEqual(pristine);
    const [listed] = (await store.uow.run((tx) => tx.operations.list({ tenantId: "t1" }, pageOne))).data;
    listed!.metadata!.note = "changed";
    expect(await store.uow.run((tx) => tx.operations.getAny("op_1"))).toEqual(pristine);
  });

  it("journals, timelines and events are copied too", async () => {
    const store = createMemoryStore();
    const journal: Journal = {
      uid: "jrn_1",
      tenantId: "t1",
      operationUid: "op_1",
      currency: "KES",
      kind: "wallet_credit",
      createdAt: "2026-03-10T12:00:00.000Z",
      entries: [
        { accountKey: "tenant:t1:deposits", amountMinor: -5, label: "amount" },
        { accountKey: "wallet:wal_1", amountMinor: 5, label: "amount" },
      ],
    };
    const step = {
      operationUid: "op_1",
      sequenceNo: 0,
      fromState: null,
      toState: "created" as const,
      occurredAt: journal.createdAt,
      actorType: "system" as const,
    };
    await store.uow.run(async (tx) => {
      await tx.ledger.post(journal);
      await tx.operations.appendTimeline(step);
    });
    journal.entries[1]!.amountMinor = 500;
    step.sequenceNo = 7;
    const [stored] = await store.uow.run((tx) => tx.ledger.journalsOf("t1", "op_1"));
    expect(stored!.entries[1]!.amountMinor).toBe(5);
    stored!.entries.pop();
    const timeline = await store.uow.run((tx) => tx.operations.timeline("op_1"));
    expect(timeline).toEqual([{ ...step, sequenceNo: 0 }]);
    timeline.push({ ...step, sequenceNo: 1 });
    expect(await store.uow.run((tx) => tx.ledger.journalsOf("t1", "op_1"))).toHaveLength(1);
    expect((await store.uow.run((tx) => tx.ledger.journalsOf("t1", "op_1")))[0]!.entries).toHaveLength(2);
    expect(await store.uow.run((tx) => tx.operations.timeline("op_1"))).toHaveLength(1);
  });

  it("update keeps the operation's identity, as the databases do", async () => {
    const store = createMemoryStore();
    await store.uow.run((tx) => tx.operations.insert(operation()));
    await store.uow.run((tx) =>
      tx.operations.update(
        operation({
          state: "completed",
          type: "wallet_debit",
          currency: "USD",
          clientReference: "other",
          createdAt: "2030-01-01T00:00:00.000Z",
          updatedAt: "2026-03-10T13:00:00.000Z",
        }),
      ),
    );
    expect(await store.uow.run((tx) => tx.operations.get("t1", "op_1"))).toEqual(
      operation({ state: "completed", updatedAt: "2026-03-10T13:00:00.000Z" }),
    );
    expect(
      await store.uow.run((tx) => tx.operations.findByClientReference("t1", "wallet_credit", "ref-1")),
    ).not.toBeNull();
    expect(
      await store.uow.run((tx) => tx.operations.findByClientReference("t1", "wallet_debit", "other")),
    ).toBeNull();
  });
});

const pageOne = { page: 1, limit: 10, sort: [{ field: "createdAt" as const, direction: "DESC" as const }] };

describe("memory store: units of work", () => {
  it("run one at a time, first come first served, a refusal freeing the store for the next", async () => {
    const store = createMemoryStore();
    const trace: string[] = [];
    const work = (name: string, fail = false) =>
      store.uow.run(async (tx) => {
        trace.push(`${name}:start`);
        await tx.tenants.get("t1");
        await new Promise((r) => setTimeout(r, 1));
        trace.push(`${name}:end`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([work("a"), work("b", true), work("c"), work("d")]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "refused"))).toEqual([
      "a",
      "refused",
      "c",
      "d",
    ]);
    expect(trace).toEqual(["a:start", "a:end", "b:start", "b:end", "c:start", "c:end", "d:start", "d:end"]);
    // Queued behind nothing, and after everything settled.
    expect(await work("e")).toBe("e");
  });

  it("a work that throws before its first await still rolls back and frees the store", async () => {
    const store = createMemoryStore();
    await expect(
      store.uow.run((tx) => {
        void tx.operations.insert(operation());
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    expect(await store.uow.run((tx) => tx.operations.getAny("op_1"))).toBeNull();
  });
});

describe("memory store: undo log", () => {
  it("refuses a change outside a unit of work and leaves the table untouched", () => {
    const log = new UndoLog();
    const m = new Map([["k", 1]]);
    expect(() => log.set(m, "k", 2)).toThrow(/outside a unit of work/);
    expect(() => log.push([] as number[], 1)).toThrow(/outside a unit of work/);
    expect(m.get("k")).toBe(1);
  });

  it("rolls back sets, deletes, pushes and patches in reverse order", () => {
    const log = new UndoLog();
    const m = new Map<string, { a: number; b?: number }>([["x", { a: 1 }]]);
    // A key holding undefined is still a key: rolled back, it is there again.
    const u = new Map<string, number | undefined>([["u", undefined]]);
    const list = [1];
    log.begin();
    log.set(m, "x", { a: 2 });
    log.set(m, "x", { a: 3 });
    log.set(m, "y", { a: 4 });
    log.patch(m, "x", { b: 5 });
    log.set(u, "u", 6);
    log.delete(u, "u");
    log.set(u, "v", undefined);
    log.push(list, 2);
    log.push(list, 3);
    log.rollback();
    expect([...m]).toEqual([["x", { a: 1 }]]);
    expect([...u]).toEqual([["u", undefined]]);
    expect(list).toEqual([1]);
  });

  it("rolls back adds and replaces (keys the caller read first) like sets", () => {
    const log = new UndoLog();
    const m = new Map<string, number>([
      ["a", 1],
      ["b", 2],
    ]);
    log.begin();
    log.add(m, "c", 3);
    log.replace(m, "a", 1, 10);
    log.replace(m, "c", 3, 30);
    expect([...m]).toEqual([
      ["a", 10],
      ["b", 2],
      ["c", 30],
    ]);
    log.rollback();
    expect([...m]).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect(() => log.add(m, "d", 4)).toThrow(/outside a unit of work/);
    expect(() => log.replace(m, "a", 1, 5)).toThrow(/outside a unit of work/);
    expect(m.get("a")).toBe(1);
    expect(m.has("d")).toBe(false);
  });
});

/** The record with every object-valued member present (not null): all a copy must not share. */
type Populated<T> = T & {
  [K in keyof T as NonNullable<T[K]> extends object ? K : never]-?: NonNullable<T[K]>;
};

/** Paths at which `copy` holds the very object `source` holds. */
function sharedObjects(copy: unknown, source: unknown, path = "$"): string[] {
  if (typeof copy !== "object" || copy === null) return [];
  const theirs = (source ?? {}) as Record<string, unknown>;
  return [
    ...(copy === source ? [path] : []),
    ...Object.entries(copy).flatMap(([k, v]) => sharedObjects(v, theirs[k], `${path}.${k}`)),
  ];
}

describe("memory store: record copies", () => {
  const at = "2026-03-10T12:00:00.000Z";
  const fixtures = {
    operation: fullOperation,
    journal: {
      uid: "jrn_1",
      tenantId: "t1",
      operationUid: "op_1",
      currency: "KES",
      kind: "wallet_credit",
      createdAt: at,
      entries: [{ accountKey: "wallet:wal_1", amountMinor: 5, label: "amount" }],
    } satisfies Populated<Journal>,
    customer: {
      uid: "cus_1",
      tenantId: "t1",
      status: "active",
      customerType: "person",
      displayName: "A",
      dateOfBirth: null,
      regionCode: null,
      preferredLocale: "en",
      clientReference: null,
      metadata: { nested: { x: [1] } },
      createdAt: at,
    } satisfies Populated<Customer>,
    wallet: {
      uid: "wal_1",
      tenantId: "t1",
      customerUid: "cus_1",
      purpose: "main",
      status: "active",
      currency: "KES",
      rulesProfileKey: "standard_kes",
      kycTierCode: "tier_1",
      createdAt: at,
    } satisfies Populated<Wallet>,
    timelineEvent: {
      operationUid: "op_1",
      sequenceNo: 0,
      fromState: null,
      toState: "created",
      occurredAt: at,
      actorType: "system",
    } satisfies Populated<TimelineEvent>,
    outboxEvent: {
      id: "evt_1",
      tenantId: "t1",
      type: "wallet_credit.completed",
      resourceUid: "op_1",
      seq: 1,
      dedupKey: "op_1:wallet_credit.completed:1",
      occurredAt: at,
      body: "{}",
    } satisfies Populated<OutboxEvent>,
  };
  const copies: [string, unknown, (v: never) => unknown][] = [
    ["operation", fixtures.operation, copyOperation],
    ["journal", fixtures.journal, copyJournal],
    ["customer", fixtures.customer, copyCustomer],
    ["wallet", fixtures.wallet, copyWallet],
    ["timeline event", fixtures.timelineEvent, copyTimelineEvent],
    ["outbox event", fixtures.outboxEvent, copyOutboxEvent],
  ];

  it.each(copies)("a copied %s equals its source and shares no object with it", (_, source, copy) => {
    const copied = copy(source as never);
    expect(copied).toStrictEqual(source);
    expect(sharedObjects(copied, source)).toEqual([]);
  });
});

describe("memory store: clone", () => {
  it("equals a JSON round trip for any JSON value, and shares nothing with its source (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const copy = clone(v);
        expect(copy).toStrictEqual(JSON.parse(JSON.stringify(v)));
        if (typeof v === "object" && v !== null) expect(copy).not.toBe(v);
      }),
    );
  });

  it("drops what JSON drops and turns other objects into their JSON", () => {
    const v = {
      a: undefined,
      f: () => 1,
      list: [undefined, () => 1, 2, -0, Number.NaN, Symbol("s")],
      zero: -0,
      far: Number.POSITIVE_INFINITY,
      sym: Symbol("s"),
      at: new Date("2026-03-10T12:00:00.000Z"),
      own: { toJSON: () => "own" },
      bare: Object.assign(Object.create(null), { x: 1 }),
    };
    expect(clone(v)).toStrictEqual(JSON.parse(JSON.stringify(v)));
    expect(clone(null)).toBeNull();
    expect(clone(undefined)).toBeUndefined();
  });
});
