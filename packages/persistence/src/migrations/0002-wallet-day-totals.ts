import { type Kysely, type Migration, sql } from "kysely";
import type { SqlDialect } from "../shared/sql-dialect.js";

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

      for (const statement of dialect === "sqlite" ? sqliteTriggers() : postgresTriggers()) {
        await sql.raw(statement).execute(db);
      }
      // Operations written before this migration, in one pass.
      await sql
        .raw(
          `insert into wallet_day_totals (wallet_uid, day, inbound_minor, outbound_minor, both_minor)
           select wallet_uid, day, sum(inbound_minor), sum(outbound_minor), sum(both_minor)
           from (${sides("operations", "+", `from operations where ${counts("operations")}`)}) as sides
           group by wallet_uid, day`,
        )
        .execute(db);
    },

    // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
    async down(db: Kysely<any>): Promise<void> {
      for (const t of triggers) {
        await sql
          .raw(`drop trigger if exists ${t.name}${dialect === "postgres" ? " on operations" : ""}`)
          .execute(db);
      }
      if (dialect === "postgres") {
        for (const f of Object.values(postgresFunctions)) {
          await sql.raw(`drop function if exists ${f}()`).execute(db);
        }
      }
      await db.schema.dropTable("wallet_day_totals").ifExists().execute();
    },
  };
}

/** Whether the operation row `r` counts toward its wallets' totals. */
const counts = (r: string) => `(${r}.state <> 'failed' and ${r}.funds_moved_at is not null)`;

/** Whether rows `old` and `new` would contribute the same amounts to the same rows. */
const sameContribution = ["amount_minor", "source_wallet_uid", "destination_wallet_uid"]
  .map((c) => `old.${c} is not distinct from new.${c}`)
  .concat("substr(old.created_at, 1, 10) = substr(new.created_at, 1, 10)")
  .join(" and ");

/**
 * The totals rows the operation `r` contributes to, with its amount signed by `sign`: one for the
 * destination wallet, one for a distinct source wallet. `from` (with a `where` condition) makes it
 * a query over a table; without it, `r` is a trigger's `new` or `old` row.
 */
function sides(r: string, sign: "+" | "-", from = "where true"): string {
  const amount = `${sign === "-" ? "-" : ""}${r}.amount_minor`;
  const day = `substr(${r}.created_at, 1, 10)`;
  return `select ${r}.destination_wallet_uid as wallet_uid, ${day} as day, ${amount} as inbound_minor,
      case when ${r}.source_wallet_uid = ${r}.destination_wallet_uid then ${amount} else 0 end as outbound_minor,
      ${amount} as both_minor
    ${from} and ${r}.destination_wallet_uid is not null
    union all
    select ${r}.source_wallet_uid, ${day}, 0, ${amount}, ${amount}
    ${from} and ${r}.source_wallet_uid is not null
      and (${r}.destination_wallet_uid is null or ${r}.destination_wallet_uid <> ${r}.source_wallet_uid)`;
}

/**
 * Adds what `r` contributes to the totals. Rows are taken in wallet order, so two transactions
 * moving money between the same two wallets lock their rows in the same order on Postgres (they
 * already serialize on the wallets' account rows, locked in key order before any operation write).
 */
const apply = (r: "new" | "old", sign: "+" | "-") =>
  `insert into wallet_day_totals (wallet_uid, day, inbound_minor, outbound_minor, both_minor)
   ${sides(r, sign)}
   order by 1
   on conflict (wallet_uid, day) do update set
     inbound_minor = wallet_day_totals.inbound_minor + excluded.inbound_minor,
     outbound_minor = wallet_day_totals.outbound_minor + excluded.outbound_minor,
     both_minor = wallet_day_totals.both_minor + excluded.both_minor`;

/** Each trigger: the event, when it fires, and what it does to the totals. */
const triggers = [
  { name: "operations_totals_insert", event: "insert", when: counts("new"), action: "add" },
  {
    name: "operations_totals_update_old",
    event: "update",
    when: `${counts("old")} and not (${counts("new")} and ${sameContribution})`,
    action: "remove",
  },
  {
    name: "operations_totals_update_new",
    event: "update",
    when: `${counts("new")} and not (${counts("old")} and ${sameContribution})`,
    action: "add",
  },
  { name: "operations_totals_delete", event: "delete", when: counts("old"), action: "remove" },
] as const;

const postgresFunctions = { add: "wallet_day_totals_add_new", remove: "wallet_day_totals_remove_old" };
const actions = { add: apply("new", "+"), remove: apply("old", "-") };

function sqliteTriggers(): string[] {
  return triggers.map(
    (t) => `create trigger ${t.name} after ${t.event} on operations for each row when ${t.when}
      begin ${actions[t.action]}; end`,
  );
}

function postgresTriggers(): string[] {
  const functions = (["add", "remove"] as const).map(
    (a) => `create function ${postgresFunctions[a]}() returns trigger language plpgsql as $$
      begin ${actions[a]}; return null; end $$`,
  );
  return functions.concat(
    triggers.map(
      (t) => `create trigger ${t.name} after ${t.event} on operations for each row when (${t.when})
        execute function ${postgresFunctions[t.action]}()`,
    ),
  );
}
