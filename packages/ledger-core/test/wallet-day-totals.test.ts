import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Operation, OperationState, Tx } from "../src/index.js";
import { createMemoryStore } from "../src/memory/index.js";
import { UndoLog } from "../src/memory/undo-log.js";
import { WalletDayTotals } from "../src/memory/wallet-day-totals.js";
import { operationFixture } from "./support/operation-fixture.js";

const MAX = Number.MAX_SAFE_INTEGER;
const directions = ["inbound", "outbound", "both"] as const;
type Direction = (typeof directions)[number];

let serial = 0;
const op = (o: Partial<Operation> = {}): Operation =>
  operationFixture({ uid: `op_${String(serial++).padStart(6, "0")}`, ...o });
/** Created and moved at `instant`. */
const at = (instant: string) => ({ createdAt: instant, fundsMovedAt: instant });

/** The port's definition, by brute force, in exact integers: null when the answer is not a safe integer. */
function bruteForce(ops: Iterable<Operation>, wallet: string, since: string, direction: Direction) {
  let total = 0n;
  for (const o of ops) {
    if (o.state === "failed" || o.fundsMovedAt === null || o.fundsMovedAt < since) continue;
    const inbound = o.destinationWalletUid === wallet;
    const outbound = o.sourceWalletUid === wallet;
    if ((direction !== "outbound" && inbound) || (direction !== "inbound" && outbound))
      total += BigInt(o.amountMinor);
  }
  return total <= BigInt(MAX) ? Number(total) : null;
}

describe("memory store: sumForWallet on running totals", () => {
  const day = "2026-03-10T00:00:00.000Z";
  const sums = (store: ReturnType<typeof createMemoryStore>, wallet: string, since = day) =>
    store.uow.run(async (tx) => {
      const out: Record<Direction, number> = { inbound: 0, outbound: 0, both: 0 };
      for (const d of directions) out[d] = await tx.operations.sumForWallet(wallet, since, d);
      return out;
    });

  it("counts moved, non-failed operations once each way, and a self-transfer once in both", async () => {
    const store = createMemoryStore();
    await store.uow.run(async (tx) => {
      await tx.operations.insert(op({ destinationWalletUid: "wal_a", amountMinor: 100 }));
      await tx.operations.insert(
        op({ sourceWalletUid: "wal_a", destinationWalletUid: null, amountMinor: 30 }),
      );
      await tx.operations.insert(
        op({ sourceWalletUid: "wal_a", destinationWalletUid: "wal_a", amountMinor: 5 }),
      );
      await tx.operations.insert(op({ amountMinor: 1_000, fundsMovedAt: null })); // an intent: not yet
      await tx.operations.insert(op({ amountMinor: 2_000, state: "failed" }));
      await tx.operations.insert(op({ amountMinor: 4_000, ...at("2026-03-09T23:59:59.999Z") }));
    });
    expect(await sums(store, "wal_a")).toEqual({ inbound: 105, outbound: 35, both: 135 });
    expect(await sums(store, "wal_a", "2026-03-09T00:00:00.000Z")).toEqual({
      inbound: 4_105,
      outbound: 35,
      both: 4_135,
    });
    expect(await sums(store, "wal_a", "2026-03-11T00:00:00.000Z")).toEqual({
      inbound: 0,
      outbound: 0,
      both: 0,
    });
    expect(await sums(store, "wal_nobody")).toEqual({ inbound: 0, outbound: 0, both: 0 });
  });

  it("follows updates: funds moving, failing, reversing (still counted), and another amount or wallet", async () => {
    const store = createMemoryStore();
    const intent = op({ state: "created", fundsMovedAt: null, amountMinor: 700 });
    const payout = op({ sourceWalletUid: "wal_a", destinationWalletUid: null, amountMinor: 50 });
    await store.uow.run(async (tx) => {
      await tx.operations.insert(intent);
      await tx.operations.insert(payout);
    });
    expect((await sums(store, "wal_a")).both).toBe(50);
    await store.uow.run((tx) =>
      tx.operations.update({ ...intent, fundsMovedAt: "2026-03-10T13:00:00.000Z" }),
    );
    expect(await sums(store, "wal_a")).toEqual({ inbound: 700, outbound: 50, both: 750 });
    await store.uow.run((tx) => tx.operations.update({ ...payout, state: "failed" }));
    expect(await sums(store, "wal_a")).toEqual({ inbound: 700, outbound: 0, both: 700 });
    await store.uow.run((tx) =>
      tx.operations.update({ ...intent, state: "reversed", fundsMovedAt: "2026-03-10T13:00:00.000Z" }),
    );
    expect((await sums(store, "wal_a")).both).toBe(700);
    await store.uow.run((tx) =>
      tx.operations.update({
        ...intent,
        state: "completed",
        destinationWalletUid: "wal_b",
        amountMinor: 90,
        fundsMovedAt: "2026-03-10T13:00:00.000Z",
      }),
    );
    expect(await sums(store, "wal_a")).toEqual({ inbound: 0, outbound: 0, both: 0 });
    expect(await sums(store, "wal_b")).toEqual({ inbound: 90, outbound: 0, both: 90 });
  });

  it("a rolled-back unit of work leaves the totals as they were", async () => {
    const store = createMemoryStore();
    const credit = op({ amountMinor: 100 });
    await store.uow.run((tx) => tx.operations.insert(credit));
    const refusal = new Error("refused");
    await expect(
      store.uow.run(async (tx) => {
        await tx.operations.insert(op({ amountMinor: 40 }));
        await tx.operations.insert(op({ amountMinor: 60, destinationWalletUid: "wal_new" }));
        await tx.operations.update({ ...credit, state: "failed" });
        expect(await tx.operations.sumForWallet("wal_a", day, "both")).toBe(40);
        throw refusal;
      }),
    ).rejects.toBe(refusal);
    expect(await sums(store, "wal_a")).toEqual({ inbound: 100, outbound: 0, both: 100 });
    expect(await sums(store, "wal_new")).toEqual({ inbound: 0, outbound: 0, both: 0 });
  });

  it("answers any instant, and timestamps in another format, like the scan", async () => {
    const store = createMemoryStore();
    await store.uow.run(async (tx) => {
      await tx.operations.insert(op({ amountMinor: 1, ...at("2026-03-10T08:00:00.000Z") }));
      await tx.operations.insert(op({ amountMinor: 2, ...at("2026-03-10T16:00:00.000Z") }));
      await tx.operations.insert(op({ amountMinor: 4, destinationWalletUid: "wal_b", ...at("2026-03-10") }));
    });
    expect((await sums(store, "wal_a", "2026-03-10T12:00:00.000Z")).both).toBe(2);
    expect((await sums(store, "wal_a", "2026-03-10T16:00:00.000Z")).both).toBe(2);
    expect((await sums(store, "wal_a", "2026-03-10T16:00:00.001Z")).both).toBe(0);
    // "2026-03-10" sorts before the day's midnight, so the scan (and so the store) leaves it out.
    expect((await sums(store, "wal_b")).both).toBe(0);
    expect((await sums(store, "wal_b", "2026-03-09T00:00:00.000Z")).both).toBe(4);
  });

  it("counts an operation on the day its funds moved, not the day it was created", async () => {
    const store = createMemoryStore();
    const intent = op({
      state: "pending_provider",
      fundsMovedAt: null,
      amountMinor: 700,
      createdAt: "2026-03-09T23:59:00.000Z",
    });
    await store.uow.run((tx) => tx.operations.insert(intent));
    await store.uow.run((tx) =>
      tx.operations.update({ ...intent, state: "completed", fundsMovedAt: "2026-03-10T00:01:00.000Z" }),
    );
    expect(await sums(store, "wal_a")).toEqual({ inbound: 700, outbound: 0, both: 700 });
    // Once, from the day before as well.
    expect((await sums(store, "wal_a", "2026-03-09T00:00:00.000Z")).both).toBe(700);
    expect((await sums(store, "wal_a", "2026-03-10T00:01:00.001Z")).both).toBe(0);
    expect((await sums(store, "wal_a", "2026-03-11T00:00:00.000Z")).both).toBe(0);
  });

  it("stays exact when a day's sum passes 2^53 - 1 on the way", async () => {
    const store = createMemoryStore();
    const big = op({ amountMinor: MAX - 5 });
    const over = op({ amountMinor: 11 }); // MAX - 5 + 11 is not a double: it rounds
    await store.uow.run(async (tx) => {
      await tx.operations.insert(big);
      await tx.operations.insert(over);
      await tx.operations.update({ ...over, state: "failed" });
      await tx.operations.insert(op({ amountMinor: 5 }));
    });
    expect((await sums(store, "wal_a")).both).toBe(MAX);
  });

  /** A unit of work of random writes; `commit` false throws at its end. */
  interface Batch {
    writes: Write[];
    commit: boolean;
  }
  type Write =
    | { kind: "insert"; op: Operation }
    | {
        kind: "update";
        pick: number;
        state: OperationState;
        moved: boolean;
        movedAt: string | null;
        amountMinor: number | null;
        wallets: [string | null, string | null] | null;
      };

  const wallets = ["wal_a", "wal_b", "wal_c"];
  const walletArb = fc.option(fc.constantFrom(...wallets), { nil: null, freq: 3 });
  const amountArb = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 1_000 }) },
    // Two of these pass 2^53 - 1, where doubles round: the store must not answer from such sums.
    { weight: 1, arbitrary: fc.integer({ min: 2 ** 52, max: MAX }) },
  );
  const stateArb = fc.constantFrom<OperationState>(
    "created",
    "completed",
    "failed",
    "reversed",
    "processing",
  );
  const instantArb = fc
    .record({ day: fc.integer({ min: 1, max: 4 }), ms: fc.integer({ min: 0, max: 86_399_999 }) })
    .map(({ day, ms }) => new Date(Date.UTC(2026, 2, day) + ms).toISOString());
  // Now and then a timestamp not in the core's format: the store must still answer like the scan.
  const createdAtArb = fc.oneof(
    { weight: 12, arbitrary: instantArb },
    { weight: 1, arbitrary: instantArb.map((i) => i.slice(0, 10)) },
    { weight: 1, arbitrary: instantArb.map((i) => i.replace(/\.\d{3}Z$/, "Z")) },
  );
  const insertArb = fc
    .record({
      source: walletArb,
      destination: walletArb,
      amountMinor: amountArb,
      state: stateArb,
      moved: fc.boolean(),
      createdAt: createdAtArb,
      // When funds moved: with the creation, or on another day (a top-up paid later).
      movedAt: fc.option(createdAtArb, { nil: null, freq: 2 }),
    })
    .map(
      (r): Write => ({
        kind: "insert",
        op: op({
          sourceWalletUid: r.source,
          destinationWalletUid: r.destination,
          amountMinor: r.amountMinor,
          state: r.state,
          createdAt: r.createdAt,
          fundsMovedAt: r.moved ? (r.movedAt ?? r.createdAt) : null,
        }),
      }),
    );
  const updateArb = fc.record({
    kind: fc.constant("update" as const),
    pick: fc.nat(),
    state: stateArb,
    moved: fc.boolean(),
    movedAt: fc.option(createdAtArb, { nil: null, freq: 2 }),
    amountMinor: fc.option(amountArb, { nil: null, freq: 3 }),
    wallets: fc.option(fc.tuple(walletArb, walletArb), { nil: null, freq: 3 }),
  });
  const batchArb: fc.Arbitrary<Batch> = fc.record({
    writes: fc.array(fc.oneof(insertArb, updateArb), { maxLength: 6 }),
    commit: fc.boolean(),
  });
  const sinceArb = fc.oneof(
    fc.integer({ min: 0, max: 5 }).map((d) => new Date(Date.UTC(2026, 2, d)).toISOString()),
    instantArb,
  );

  it("equals a brute-force scan over any history of inserts, updates and rollbacks (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(batchArb, { maxLength: 12 }),
        fc.array(sinceArb, { minLength: 1, maxLength: 4 }),
        async (batches, sinces) => {
          const store = createMemoryStore();
          let committed = new Map<string, Operation>();
          for (const batch of batches) {
            const model = new Map(committed);
            const apply = async (tx: Tx) => {
              for (const w of batch.writes) {
                if (w.kind === "insert") {
                  await tx.operations.insert(w.op);
                  model.set(w.op.uid, w.op);
                  continue;
                }
                const all = [...model.values()];
                if (all.length === 0) continue;
                const cur = all[w.pick % all.length]!;
                const next: Operation = {
                  ...cur,
                  state: w.state,
                  fundsMovedAt: w.moved ? (cur.fundsMovedAt ?? w.movedAt ?? cur.createdAt) : null,
                  amountMinor: w.amountMinor ?? cur.amountMinor,
                  sourceWalletUid: w.wallets ? w.wallets[0] : cur.sourceWalletUid,
                  destinationWalletUid: w.wallets ? w.wallets[1] : cur.destinationWalletUid,
                };
                await tx.operations.update(next);
                model.set(next.uid, next);
              }
              if (!batch.commit) throw new Error("rolled back");
            };
            if (
              await store.uow.run(apply).then(
                () => true,
                () => false,
              )
            )
              committed = model;
            for (const wallet of wallets) {
              for (const since of sinces) {
                for (const d of directions) {
                  const expected = bruteForce(committed.values(), wallet, since, d);
                  if (expected === null) continue; // past 2^53 - 1 no answer is exact
                  expect(await store.uow.run((tx) => tx.operations.sumForWallet(wallet, since, d))).toBe(
                    expected,
                  );
                }
              }
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("the totals answer a UTC midnight themselves for core timestamps (no scan), and roll back", () => {
    fc.assert(
      fc.property(fc.array(insertArb, { maxLength: 20 }), fc.boolean(), (writes, commit) => {
        const log = new UndoLog();
        const totals = new WalletDayTotals(log);
        const ops = writes.flatMap((w) =>
          w.kind === "insert" && /\.\d{3}Z$/.test(w.op.fundsMovedAt ?? "")
            ? [{ ...w.op, amountMinor: w.op.amountMinor % 1_000 }]
            : [],
        );
        const kept = commit ? ops : [];
        log.begin();
        for (const o of ops) totals.insert(o);
        if (commit) log.commit();
        else log.rollback();
        for (const wallet of wallets) {
          for (let d = 0; d <= 5; d++) {
            const since = new Date(Date.UTC(2026, 2, d)).toISOString();
            for (const dir of directions)
              expect(totals.sum(wallet, since, dir)).toBe(bruteForce(kept, wallet, since, dir));
          }
        }
      }),
    );
  });
});
