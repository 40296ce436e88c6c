import type { Operation, OperationState, Tx } from "@wallet/ledger-core";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { at, operationFixture, unique } from "./fixtures.js";

export type SumDirection = "inbound" | "outbound" | "both";
const directions = ["inbound", "outbound", "both"] as const;

/**
 * `sumForWallet` by its definition, over every operation written: amounts of operations that
 * moved funds at or after `since` and did not fail, into (destination), out of (source)
 * or through (either, once) the wallet.
 */
export function bruteForceSum(
  ops: Iterable<Operation>,
  wallet: string,
  since: string,
  direction: SumDirection,
): number {
  let total = 0;
  for (const o of ops) {
    const touches =
      (direction !== "outbound" && o.destinationWalletUid === wallet) ||
      (direction !== "inbound" && o.sourceWalletUid === wallet);
    if (touches && o.state !== "failed" && o.fundsMovedAt !== null && o.fundsMovedAt >= since)
      total += o.amountMinor;
  }
  return total;
}

const DAY = 86_400_000;
/** Instants around the turn of a month: day 0 is 2026-03-31, day 1 is 2026-04-01. */
const t = (ms: number) => at(ms, "2026-03-31T00:00:00.000Z");

type Run = <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;

/**
 * The sums behind the daily and monthly limits, as operations are written and then change:
 * funds moved later, a failure after the move, a reversal, a wallet paying itself, UTC day and
 * month boundaries, and a property over random histories against `bruteForceSum`.
 */
export function describeWalletSums(run: Run, newTenantId: () => Promise<string>): void {
  describe("sums for the limits", () => {
    let tenantId: string;
    beforeAll(async () => {
      tenantId = await newTenantId();
    });

    const sums = (wallet: string, since: string) =>
      run(async (tx) => {
        const out: Record<SumDirection, number> = { inbound: 0, outbound: 0, both: 0 };
        for (const d of directions) out[d] = await tx.operations.sumForWallet(wallet, since, d);
        return out;
      });
    const insert = (op: Operation) => run((tx) => tx.operations.insert(op));
    const update = (op: Operation) => run((tx) => tx.operations.update(op));

    it("counts an operation from the update that records its funds moved, not before", async () => {
      const w = unique("wal");
      const op = operationFixture(tenantId, {
        type: "payout_b2c",
        state: "processing",
        sourceWalletUid: w,
        amountMinor: 700,
        createdAt: t(DAY + 5_000),
        updatedAt: t(DAY + 5_000),
      });
      await insert(op);
      expect(await sums(w, t(DAY))).toEqual({ inbound: 0, outbound: 0, both: 0 });
      const moved = { ...op, fundsMovedAt: t(DAY + 6_000), updatedAt: t(DAY + 6_000) };
      await update(moved);
      expect(await sums(w, t(DAY))).toEqual({ inbound: 0, outbound: 700, both: 700 });
      // Later changes that leave the amount moved change nothing.
      await update({ ...moved, state: "completed", completedAt: t(DAY + 7_000), updatedAt: t(DAY + 7_000) });
      expect(await sums(w, t(DAY))).toEqual({ inbound: 0, outbound: 700, both: 700 });
    });

    it("counts an operation on the UTC day its funds moved, not the day it was created", async () => {
      const w = unique("wal");
      // A top-up intent issued a minute before midnight and paid two minutes later.
      const intent = operationFixture(tenantId, {
        type: "topup_c2b",
        state: "pending_provider",
        destinationWalletUid: w,
        amountMinor: 900,
        createdAt: t(DAY - 60_000),
        updatedAt: t(DAY - 60_000),
      });
      await insert(intent);
      const paid = { ...intent, state: "completed" as const, fundsMovedAt: t(DAY + 60_000) };
      await update({ ...paid, completedAt: t(DAY + 60_000), updatedAt: t(DAY + 60_000) });
      expect(await sums(w, t(DAY))).toEqual({ inbound: 900, outbound: 0, both: 900 });
      expect(await sums(w, t(DAY + 60_000))).toEqual({ inbound: 900, outbound: 0, both: 900 });
      expect(await sums(w, t(DAY + 60_001))).toEqual({ inbound: 0, outbound: 0, both: 0 });
      expect(await sums(w, t(0))).toEqual({ inbound: 900, outbound: 0, both: 900 });
      expect(await sums(w, t(2 * DAY))).toEqual({ inbound: 0, outbound: 0, both: 0 });
    });

    it("takes a moved amount back out when the operation fails afterwards; a reversed one still counts", async () => {
      const w = unique("wal");
      const payout = operationFixture(tenantId, {
        type: "payout_b2c",
        state: "processing",
        sourceWalletUid: w,
        amountMinor: 700,
        createdAt: t(DAY + 1_000),
        fundsMovedAt: t(DAY + 1_000),
      });
      const credit = operationFixture(tenantId, {
        destinationWalletUid: w,
        amountMinor: 50,
        createdAt: t(DAY + 2_000),
        fundsMovedAt: t(DAY + 2_000),
      });
      await run(async (tx) => {
        await tx.operations.insert(payout);
        await tx.operations.insert(credit);
      });
      expect(await sums(w, t(DAY))).toEqual({ inbound: 50, outbound: 700, both: 750 });
      await update({ ...payout, state: "failed", updatedAt: t(DAY + 9_000) });
      expect(await sums(w, t(DAY))).toEqual({ inbound: 50, outbound: 0, both: 50 });
      await update({ ...credit, state: "reversed", updatedAt: t(DAY + 9_000) });
      expect(await sums(w, t(DAY))).toEqual({ inbound: 50, outbound: 0, both: 50 });
    });

    it("counts a wallet paying itself once, in each direction and in both", async () => {
      const w = unique("wal");
      await insert(
        operationFixture(tenantId, {
          type: "wallet_transfer",
          sourceWalletUid: w,
          destinationWalletUid: w,
          amountMinor: 300,
          createdAt: t(DAY + 1),
          fundsMovedAt: t(DAY + 1),
        }),
      );
      expect(await sums(w, t(DAY))).toEqual({ inbound: 300, outbound: 300, both: 300 });
      expect(await sums(w, t(DAY + 2))).toEqual({ inbound: 0, outbound: 0, both: 0 });
    });

    it("splits days at UTC midnight, to the millisecond, from any instant", async () => {
      const w = unique("wal");
      const other = unique("wal");
      await run(async (tx) => {
        for (const [ms, amountMinor] of [
          [DAY - 1, 1],
          [DAY, 10],
          [2 * DAY - 1, 100],
          [2 * DAY, 1_000],
        ] as const) {
          await tx.operations.insert(
            operationFixture(tenantId, {
              type: "wallet_transfer",
              sourceWalletUid: other,
              destinationWalletUid: w,
              amountMinor,
              createdAt: t(ms),
              fundsMovedAt: t(ms),
            }),
          );
        }
      });
      const expected: [number, number][] = [
        [-DAY, 1_111],
        [0, 1_111],
        [DAY - 1, 1_111],
        [DAY, 1_110],
        [DAY + 1, 1_100],
        [2 * DAY - 1, 1_100],
        [2 * DAY, 1_000],
        [2 * DAY + 1, 0],
        [30 * DAY, 0],
      ];
      for (const [since, total] of expected) {
        expect(await sums(w, t(since))).toEqual({ inbound: total, outbound: 0, both: total });
        expect(await sums(other, t(since))).toEqual({ inbound: 0, outbound: total, both: total });
      }
    });

    it("sums a calendar month's outbound amounts from its first midnight", async () => {
      const w = unique("wal");
      const ops = [
        ["2026-03-31T12:00:00.000Z", 1, "outbound"],
        ["2026-04-01T00:00:00.000Z", 10, "outbound"],
        ["2026-04-15T08:30:00.000Z", 100, "outbound"],
        ["2026-04-20T08:30:00.000Z", 5_000, "inbound"],
        ["2026-04-30T23:59:59.999Z", 1_000, "outbound"],
        ["2026-05-01T00:00:00.000Z", 10_000, "outbound"],
      ] as const;
      await run(async (tx) => {
        for (const [createdAt, amountMinor, side] of ops) {
          await tx.operations.insert(
            operationFixture(tenantId, {
              type: side === "outbound" ? "payout_b2c" : "wallet_credit",
              ...(side === "outbound" ? { sourceWalletUid: w } : { destinationWalletUid: w }),
              amountMinor,
              createdAt,
              fundsMovedAt: createdAt,
            }),
          );
        }
      });
      const outbound = (since: string) => run((tx) => tx.operations.sumForWallet(w, since, "outbound"));
      expect(await outbound("2026-04-01T00:00:00.000Z")).toBe(11_110);
      expect(await outbound("2026-05-01T00:00:00.000Z")).toBe(10_000);
      expect(await outbound("2026-03-01T00:00:00.000Z")).toBe(11_111);
      expect(await run((tx) => tx.operations.sumForWallet(w, "2026-04-01T00:00:00.000Z", "both"))).toBe(
        16_110,
      );
    });

    it("stays exact under concurrent movements both ways between two wallets", async () => {
      const [w, other] = [unique("wal"), unique("wal")];
      const ops = Array.from({ length: 24 }, (_, i) =>
        operationFixture(tenantId, {
          type: "wallet_transfer",
          sourceWalletUid: i % 2 === 0 ? w : other,
          destinationWalletUid: i % 2 === 0 ? other : w,
          amountMinor: 1 + i,
          createdAt: t(DAY + i),
          fundsMovedAt: t(DAY + i),
        }),
      );
      // Concurrent units of work, each moving one amount; every third then fails its own.
      await Promise.all(
        ops.map((op, i) =>
          run(async (tx) => {
            await tx.operations.insert(op);
            if (i % 3 === 2) await tx.operations.update({ ...op, state: "failed" });
          }),
        ),
      );
      const written = ops.map((op, i) => (i % 3 === 2 ? { ...op, state: "failed" as const } : op));
      for (const wallet of [w, other]) {
        expect(await sums(wallet, t(DAY))).toEqual({
          inbound: bruteForceSum(written, wallet, t(DAY), "inbound"),
          outbound: bruteForceSum(written, wallet, t(DAY), "outbound"),
          both: bruteForceSum(written, wallet, t(DAY), "both"),
        });
      }
    });

    it("matches the definition over random histories of inserts and updates", async () => {
      const states: OperationState[] = [
        "created",
        "processing",
        "pending_provider",
        "completed",
        "failed",
        "reversed",
      ];
      // Around the turn of the month, with a bias for the edges of its days.
      const instant = fc
        .oneof(
          fc.integer({ min: -1, max: 3 }).chain((d) => fc.constantFrom(d * DAY - 1, d * DAY, d * DAY + 1)),
          fc.integer({ min: -DAY, max: 3 * DAY }),
        )
        .map(t);
      const roles = ["in", "out", "self", "between others", "none"] as const;
      const insertCommand = fc.record({
        kind: fc.constant("insert" as const),
        role: fc.constantFrom(...roles),
        createdAt: instant,
        // When funds moved: with the creation, or at another instant (a top-up paid later).
        movedAt: fc.option(instant, { nil: null, freq: 2 }),
        amountMinor: fc.integer({ min: 0, max: 1_000_000 }),
        state: fc.constantFrom(...states),
        moved: fc.boolean(),
      });
      const updateCommand = fc.record({
        kind: fc.constant("update" as const),
        pick: fc.nat(),
        state: fc.constantFrom(...states),
        moved: fc.boolean(),
        movedAt: instant,
      });
      const history = fc.array(fc.oneof(insertCommand, insertCommand, updateCommand), {
        minLength: 1,
        maxLength: 25,
      });
      const sinces = fc.array(instant, { maxLength: 4 });

      await fc.assert(
        fc.asyncProperty(history, sinces, async (commands, randomSinces) => {
          const [w, other] = [unique("wal"), unique("wal")];
          const written = new Map<string, Operation>();
          for (const c of commands) {
            if (c.kind === "insert") {
              const [source, destination] = (
                {
                  in: [other, w],
                  out: [w, other],
                  self: [w, w],
                  "between others": [other, unique("wal")],
                  none: [null, null],
                } as const
              )[c.role];
              const op = operationFixture(tenantId, {
                type: "wallet_transfer",
                state: c.state,
                sourceWalletUid: source,
                destinationWalletUid: destination,
                amountMinor: c.amountMinor,
                createdAt: c.createdAt,
                fundsMovedAt: c.moved ? (c.movedAt ?? c.createdAt) : null,
                updatedAt: c.createdAt,
              });
              await insert(op);
              written.set(op.uid, op);
            } else if (written.size > 0) {
              const before = [...written.values()][c.pick % written.size]!;
              const after = {
                ...before,
                state: c.state,
                fundsMovedAt: c.moved ? (before.fundsMovedAt ?? c.movedAt) : null,
              };
              await update(after);
              written.set(after.uid, after);
            }
          }
          const midnights = [-1, 0, 1, 2, 3].map((d) => t(d * DAY));
          for (const since of [...midnights, ...randomSinces]) {
            const want = (d: SumDirection) => bruteForceSum(written.values(), w, since, d);
            expect(await sums(w, since)).toEqual({
              inbound: want("inbound"),
              outbound: want("outbound"),
              both: want("both"),
            });
          }
        }),
        { numRuns: 40 },
      );
    });
  });
}
