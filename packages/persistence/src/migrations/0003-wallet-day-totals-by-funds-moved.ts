import { type Kysely, type Migration, sql } from "kysely";
import type { SqlDialect } from "../shared/sql-dialect.js";
import {
  backfillTotals,
  type DayColumn,
  dropTotalsTriggers,
  totalsTriggers,
} from "./wallet-day-totals-sql.js";

/**
 * `wallet_day_totals` by the UTC day each operation moved funds (`funds_moved_at`) instead of the
 * day it was created. The limits count accepted movements of a day, and a movement is accepted
 * when its funds move: a top-up intent created at 23:59 and paid at 00:01 moved its funds the next
 * day. Counted by its creation day, it was checked against the next day's limit once, when paid,
 * then booked to the day before, so the rest of that day's movements never saw it. For every
 * operation that moves funds when it is created (credits, debits, payouts) the two days are the
 * same. Frozen in time like every migration.
 *
 * The triggers are replaced (on Postgres their functions too) and the totals rebuilt from the
 * operations in one transaction (Kysely runs Postgres migrations in one; on SQLite a savepoint
 * here makes it one, as Kysely does not wrap DDL there); down does the reverse. Running it twice gives the same result.
 */
export function walletDayTotalsByFundsMovedMigration(dialect: SqlDialect): Migration {
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  const rebuild = async (db: Kysely<any>, day: DayColumn) => {
    for (const statement of dropTotalsTriggers(dialect, { functions: false })) {
      await sql.raw(statement).execute(db);
    }
    await sql.raw("delete from wallet_day_totals").execute(db);
    for (const statement of totalsTriggers(dialect, day, { replace: true })) {
      await sql.raw(statement).execute(db);
    }
    await sql.raw(backfillTotals(day)).execute(db);
  };
  // A savepoint on SQLite, not a transaction: `store.migrate` runs SQLite's migrations inside one
  // (holding the file's write lock), and outside one a savepoint opens its own.
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const atomically = async (db: Kysely<any>, day: DayColumn) => {
    if (dialect !== "sqlite") return rebuild(db, day);
    await sql.raw("savepoint migration_0003").execute(db);
    try {
      await rebuild(db, day);
    } catch (e) {
      await sql.raw("rollback to migration_0003").execute(db);
      await sql.raw("release migration_0003").execute(db);
      throw e;
    }
    await sql.raw("release migration_0003").execute(db);
  };
  return {
    up: (db) => atomically(db, "funds_moved_at"),
    down: (db) => atomically(db, "created_at"),
  };
}
