import { type Kysely, type Migration, sql } from "kysely";
import type { SqlDialect } from "../shared/sql-dialect.js";
import { backfillTotals, dropTotalsTriggers, totalsTriggers } from "./wallet-day-totals-sql.js";

/**
 * Running totals of the amounts that count toward a wallet's limits, per wallet and UTC day of
 * `created_at`, so that the daily and monthly limit checks read one row per day instead of every
 * operation of the period (`sumForWallet`). Frozen in time like every migration.
 *
 * An operation counts while it moved funds and did not fail (`funds_moved_at is not null and
 * state <> 'failed'`); it adds its amount to `inbound_minor` of its destination wallet, to
 * `outbound_minor` of its source wallet, and to `both_minor` of each once (a wallet paying itself
 * counts once). Triggers on `operations` keep the rows exact whatever writes the operations (the
 * repository, a seeding script, a manual fix): an insert adds, an update that changes what the row
 * contributes takes the old contribution out and puts the new one in, a delete takes it out. Rows
 * are never removed; a day whose operations all failed keeps its row, at zero.
 *
 * `day` is `substr(created_at, 1, 10)`: for the ISO timestamps the store keeps, the UTC date.
 * Migration 0003 moves it to `funds_moved_at`. The SQL lives in `wallet-day-totals-sql.ts`.
 */
export function walletDayTotalsMigration(dialect: SqlDialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
    async up(db: Kysely<any>): Promise<void> {
      // Beyond 2^63-1 SQLite's `+` turns integers into floating point; the CHECK fails that write
      // instead, as Postgres does on bigint overflow.
      const integer = (column: string) => sql.raw(`typeof(${column}) = 'integer'`);
      let table = db.schema
        .createTable("wallet_day_totals")
        .addColumn("wallet_uid", "text", (c) => c.notNull())
        .addColumn("day", "text", (c) => c.notNull());
      for (const column of ["inbound_minor", "outbound_minor", "both_minor"]) {
        table = table.addColumn(column, "bigint", (c) =>
          dialect === "sqlite" ? c.notNull().check(integer(column)) : c.notNull(),
        );
      }
      table = table.addPrimaryKeyConstraint("wallet_day_totals_pk", ["wallet_uid", "day"]);
      // SQLite: the rows live in the primary key's b-tree, one lookup per upsert.
      await (dialect === "sqlite" ? table.modifyEnd(sql`without rowid`) : table).execute();

      for (const statement of totalsTriggers(dialect, "created_at")) {
        await sql.raw(statement).execute(db);
      }
      // Operations written before this migration, in one pass.
      await sql.raw(backfillTotals("created_at")).execute(db);
    },

    // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
    async down(db: Kysely<any>): Promise<void> {
      for (const statement of dropTotalsTriggers(dialect, { functions: true })) {
        await sql.raw(statement).execute(db);
      }
      await db.schema.dropTable("wallet_day_totals").ifExists().execute();
    },
  };
}
