import type { Operation, OperationState } from "@wallet/ledger-core";
import { type Kysely, Migrator } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../src/index.js";
import { inCodeMigrationProvider } from "../src/migrations/migration-provider.js";
import { newHousekeeping, RowVersions } from "../src/repositories/sql-context.js";
import { createSqlTx } from "../src/repositories/sql-tx.js";
import type { Database } from "../src/schema/database.js";
import { at, operationFixture, tenantFixture } from "./contract/fixtures.js";
import { bruteForceSum } from "./contract/wallet-sums-contract.js";
import { type Engine, migrationEngines } from "./support/migration-engines.js";

const DAY = 86_400_000;
const WALLETS = ["wal_a", "wal_b", "wal_c", "wal_d"];
const STATES: OperationState[] = ["created", "processing", "completed", "failed", "reversed"];
/** Forty days around the turn of a month, starting at a midnight. */
const t = (ms: number) => at(ms, "2026-03-10T00:00:00.000Z");

/** A deterministic history: wallets paying each other, themselves, or the outside, in every state. */
function history(count: number): Operation[] {
  let seed = 42;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed % n;
  };
  const party = () => (next(5) === 0 ? null : WALLETS[next(WALLETS.length)]!);
  return Array.from({ length: count }, (_, i) => {
    // Every tenth operation sits on a midnight or the millisecond before one.
    const day = next(40) * DAY;
    const createdAt = t(i % 10 === 0 ? day - (i % 20 === 0 ? 1 : 0) : day + next(DAY));
    return operationFixture("acme", {
      uid: `op_${String(i).padStart(5, "0")}`,
      type: "wallet_transfer",
      state: STATES[next(STATES.length)]!,
      sourceWalletUid: party(),
      destinationWalletUid: party(),
      amountMinor: next(1_000_000),
      createdAt,
      // Not moved, moved when created, or moved later (a top-up paid the next day or two).
      fundsMovedAt: next(3) === 0 ? null : i % 4 === 1 ? at(next(2 * DAY), createdAt) : createdAt,
      updatedAt: createdAt,
    });
  });
}

describe.each(migrationEngines())(
  "migrations 0002-wallet-day-totals and 0003 (by funds moved) on %s",
  (dialect, open) => {
    let engine: Engine;
    let store: Store;
    const existing = history(600);
    /** Every operation as the database holds it now. */
    let current = existing;
    const migrator = (db: Kysely<Database>) =>
      new Migrator({ db, provider: inCodeMigrationProvider(dialect) });

    beforeAll(async () => {
      engine = await open();
      const db = engine.kysely();
      const { error } = await migrator(db).migrateTo("0001-initial");
      if (error) throw error;
      await db.transaction().execute(async (trx) => {
        // The repositories of today write rows the 0001 schema already had.
        const tx = createSqlTx({
          trx,
          dialect,
          housekeeping: newHousekeeping(),
          versions: new RowVersions(),
        });
        await tx.tenants.upsert(tenantFixture("acme"));
        for (const op of existing) await tx.operations.insert(op);
      });
      await db.destroy();
      store = engine.openStore();
      await store.migrate();
    }, 60_000);

    afterAll(async () => {
      await store?.close();
      await engine?.drop();
    });

    const midnights = Array.from({ length: 42 }, (_, d) => t((d - 1) * DAY));
    const expectSumsToMatch = async (ops: Operation[]) => {
      for (const wallet of WALLETS) {
        for (const since of [...midnights, t(13 * DAY + 1), t(20 * DAY - 1), t(31 * DAY + 43_210)]) {
          const got = await store.uow.run(async (tx) => ({
            inbound: await tx.operations.sumForWallet(wallet, since, "inbound"),
            outbound: await tx.operations.sumForWallet(wallet, since, "outbound"),
            both: await tx.operations.sumForWallet(wallet, since, "both"),
          }));
          expect({ wallet, since, ...got }).toEqual({
            wallet,
            since,
            inbound: bruteForceSum(ops, wallet, since, "inbound"),
            outbound: bruteForceSum(ops, wallet, since, "outbound"),
            both: bruteForceSum(ops, wallet, since, "both"),
          });
        }
      }
    };

    it("backfills the totals of the operations written before it", async () => {
      expect(existing.filter((o) => o.fundsMovedAt !== null && o.state !== "failed").length).toBeGreaterThan(
        300,
      );
      expect(
        existing.some((o) => o.sourceWalletUid !== null && o.sourceWalletUid === o.destinationWalletUid),
      ).toBe(true);
      await expectSumsToMatch(existing);
    });

    it("keeps the backfilled totals exact as those operations change and new ones arrive", async () => {
      const changed = existing.map((o, i) =>
        i % 7 === 0
          ? { ...o, state: "failed" as const }
          : i % 11 === 0
            ? { ...o, fundsMovedAt: o.createdAt }
            : o,
      );
      const added = history(650).slice(600);
      await store.uow.run(async (tx) => {
        for (const [i, op] of changed.entries()) if (op !== existing[i]) await tx.operations.update(op);
        for (const op of added) await tx.operations.insert(op);
      });
      current = [...changed, ...added];
      await expectSumsToMatch(current);
    });

    /**
     * Migrates down to `target`, writes `late` with the repositories of today (under that schema's
     * triggers, or none), then up to the latest: the sums must count them as the latest does.
     */
    const downWriteUp = async (
      target: string,
      late: Operation[],
      atTarget?: (db: Kysely<Database>) => Promise<void>,
    ) => {
      const db = engine.kysely();
      try {
        expect((await migrator(db).migrateTo(target)).error).toBeUndefined();
        await atTarget?.(db);
        await db.transaction().execute(async (trx) => {
          const tx = createSqlTx({
            trx,
            dialect,
            housekeeping: newHousekeeping(),
            versions: new RowVersions(),
          });
          for (const op of late) await tx.operations.insert(op);
        });
        current = [...current, ...late];
        expect((await migrator(db).migrateToLatest()).error).toBeUndefined();
      } finally {
        await db.destroy();
      }
      await expectSumsToMatch(current);
    };

    it("migrates down to 0001 and up again, to the same totals", async () => {
      // Without the triggers, operations are written as before 0002; the way up counts them too.
      await downWriteUp("0001-initial", history(660).slice(650), async (db) => {
        await expect(db.selectFrom("wallet_day_totals").selectAll().execute()).rejects.toThrow();
      });
    });

    it("migrates down to 0002 (totals by creation day) and up again, to the same totals", async () => {
      // Written while 0002 counts by the creation day; the way up recounts by the day funds moved.
      await downWriteUp("0002-wallet-day-totals", history(670).slice(660));
    });
  },
);
