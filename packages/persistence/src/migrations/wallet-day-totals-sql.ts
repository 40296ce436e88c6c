import type { SqlDialect } from "../shared/sql-dialect.js";

/**
 * The SQL behind `wallet_day_totals`, shared by the migrations that create it (0002, by
 * `created_at`) and that move it to the day funds moved (0003, by `funds_moved_at`). Migrations
 * are frozen in time: what these functions generate for a given day column must never change.
 */

/** The timestamp whose UTC day an operation's amounts count toward. */
export type DayColumn = "created_at" | "funds_moved_at";

/** Whether the operation row `r` counts toward its wallets' totals. */
const counts = (r: string) => `(${r}.state <> 'failed' and ${r}.funds_moved_at is not null)`;

/** Whether rows `old` and `new` would contribute the same amounts to the same rows. */
const sameContribution = (day: DayColumn) =>
  ["amount_minor", "source_wallet_uid", "destination_wallet_uid"]
    .map((c) => `old.${c} is not distinct from new.${c}`)
    .concat(`substr(old.${day}, 1, 10) = substr(new.${day}, 1, 10)`)
    .join(" and ");

/**
 * The totals rows the operation `r` contributes to, with its amount signed by `sign`: one for the
 * destination wallet, one for a distinct source wallet. `from` (with a `where` condition) makes it
 * a query over a table; without it, `r` is a trigger's `new` or `old` row.
 */
function sides(dayColumn: DayColumn, r: string, sign: "+" | "-", from = "where true"): string {
  const amount = `${sign === "-" ? "-" : ""}${r}.amount_minor`;
  const day = `substr(${r}.${dayColumn}, 1, 10)`;
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
const apply = (day: DayColumn, r: "new" | "old", sign: "+" | "-") =>
  `insert into wallet_day_totals (wallet_uid, day, inbound_minor, outbound_minor, both_minor)
   ${sides(day, r, sign)}
   order by 1
   on conflict (wallet_uid, day) do update set
     inbound_minor = wallet_day_totals.inbound_minor + excluded.inbound_minor,
     outbound_minor = wallet_day_totals.outbound_minor + excluded.outbound_minor,
     both_minor = wallet_day_totals.both_minor + excluded.both_minor`;

/** Each trigger: the event, when it fires, and what it does to the totals. */
const triggers = (day: DayColumn) =>
  [
    { name: "operations_totals_insert", event: "insert", when: counts("new"), action: "add" },
    {
      name: "operations_totals_update_old",
      event: "update",
      when: `${counts("old")} and not (${counts("new")} and ${sameContribution(day)})`,
      action: "remove",
    },
    {
      name: "operations_totals_update_new",
      event: "update",
      when: `${counts("new")} and not (${counts("old")} and ${sameContribution(day)})`,
      action: "add",
    },
    { name: "operations_totals_delete", event: "delete", when: counts("old"), action: "remove" },
  ] as const;

const triggerNames = triggers("created_at").map((t) => t.name);
const postgresFunctions = { add: "wallet_day_totals_add_new", remove: "wallet_day_totals_remove_old" };

/**
 * The triggers that keep `wallet_day_totals` by the UTC day of `day` (and, on Postgres, the
 * functions they run; `replace` for a later migration swapping the day column, as 0002 created
 * them with a plain `create function`).
 */
export function totalsTriggers(dialect: SqlDialect, day: DayColumn, { replace = false } = {}): string[] {
  const actions = { add: apply(day, "new", "+"), remove: apply(day, "old", "-") };
  if (dialect === "sqlite") {
    return triggers(day).map(
      (t) => `create trigger ${t.name} after ${t.event} on operations for each row when ${t.when}
      begin ${actions[t.action]}; end`,
    );
  }
  const create = replace ? "create or replace function" : "create function";
  const functions = (["add", "remove"] as const).map(
    (a) => `${create} ${postgresFunctions[a]}() returns trigger language plpgsql as $$
      begin ${actions[a]}; return null; end $$`,
  );
  return functions.concat(
    triggers(day).map(
      (t) => `create trigger ${t.name} after ${t.event} on operations for each row when (${t.when})
        execute function ${postgresFunctions[t.action]}()`,
    ),
  );
}

/** Drops the triggers (the Postgres functions with them when `functions`). */
export function dropTotalsTriggers(dialect: SqlDialect, { functions }: { functions: boolean }): string[] {
  const drops = triggerNames.map(
    (name) => `drop trigger if exists ${name}${dialect === "postgres" ? " on operations" : ""}`,
  );
  if (dialect === "postgres" && functions) {
    drops.push(...Object.values(postgresFunctions).map((f) => `drop function if exists ${f}()`));
  }
  return drops;
}

/** Fills the (empty) totals from every operation, in one pass. */
export const backfillTotals = (day: DayColumn) =>
  `insert into wallet_day_totals (wallet_uid, day, inbound_minor, outbound_minor, both_minor)
   select wallet_uid, day, sum(inbound_minor), sum(outbound_minor), sum(both_minor)
   from (${sides(day, "operations", "+", `from operations where ${counts("operations")}`)}) as sides
   group by wallet_uid, day`;
