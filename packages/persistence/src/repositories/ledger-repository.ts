import {
  AccountNotCoveredError,
  assertBalanced,
  inLockOrder,
  type Journal,
  type LedgerRepository,
  mustStayNonNegative,
  netByAccount,
  refuseBalanceOutOfRange,
} from "@wallet/ledger-core";
import { type QueryCreator, type Selectable, sql } from "kysely";
import type { Database, JournalEntriesTable, JournalsTable } from "../schema/database.js";
import { queryTemplate } from "../shared/query-template.js";
import type { SqlContext } from "./sql-context.js";

/**
 * Creates the missing accounts at zero and locks the others, one row after the other in the
 * order given, in one statement: an upsert whose update changes nothing takes the row lock the
 * balance update will take (Postgres; SQLite already holds the writer lock) and returns the
 * balance as last committed.
 */
const upsertAccounts = queryTemplate((db, p: { currency: string; ordered: string[] }) =>
  db
    .insertInto("accounts")
    .values(
      p.ordered.map((k) => ({ account_key: k, currency: p.currency, balance_minor: 0, updated_at: null })),
    )
    .onConflict((oc) =>
      oc
        .columns(["account_key", "currency"])
        .doUpdateSet((eb) => ({ balance_minor: eb.ref("accounts.balance_minor") })),
    )
    .returning(["account_key", "balance_minor"]),
);

/**
 * Each account's net change of a journal in lock order, with the lowest balance it may reach
 * (0 for a protected account, `mustStayNonNegative`; no floor otherwise), and when it was posted.
 */
interface NetMoves {
  currency: string;
  moves: [key: string, delta: number, floor: number][];
  at: string;
}

/** The floor of an account that may go below zero: no safe-integer balance is under it. */
const NO_FLOOR = Number.MIN_SAFE_INTEGER;

/** The highest balance any account may reach: the largest exact amount (2^53 - 1). */
const CEILING = Number.MAX_SAFE_INTEGER;

/**
 * Adds each account's net change in one statement, returning the keys of the rows it changed: an
 * account never locked nor moved before has no row yet, and an account the change would take
 * below its floor (zero for a protected one) or above 2^53 - 1 is left alone (checked against the
 * row as locked, so concurrent postings cannot both pass).
 */
const applyNetOn = (db: QueryCreator<Database>, { currency, moves, at }: NetMoves) => {
  const perKey = (pick: (m: NetMoves["moves"][number]) => number) =>
    sql<number>`case ${sql.join(
      moves.map((m) => sql`when account_key = ${m[0]} then cast(${pick(m)} as bigint)`),
      sql` `,
    )} end`;
  const delta = perKey((m) => m[1]);
  return db
    .updateTable("accounts")
    .set((eb) => ({ balance_minor: eb("balance_minor", "+", delta), updated_at: at }))
    .where("currency", "=", currency)
    .where(
      "account_key",
      "in",
      moves.map(([key]) => key),
    )
    .where(sql<boolean>`balance_minor + ${delta} between ${perKey((m) => m[2])} and ${sql.lit(CEILING)}`)
    .returning("account_key");
};

const applyNet = queryTemplate((db, net: NetMoves) => applyNetOn(db, net));

type JournalRow = Omit<Selectable<JournalsTable>, "ordinal">;
type EntryRow = Selectable<JournalEntriesTable>;

const insertJournal = queryTemplate((db, row: JournalRow) => db.insertInto("journals").values(row));

const insertEntries = queryTemplate((db, p: { rows: EntryRow[] }) =>
  db.insertInto("journal_entries").values(p.rows),
);

/** Postgres: the journal, its entries and the balances in one statement (one round trip). */
const postAndApplyNet = queryTemplate(
  (db, { journal, entries, ...net }: NetMoves & { journal: JournalRow; entries: EntryRow[] }) =>
    applyNetOn(
      db
        .with("journal", (d) => d.insertInto("journals").values(journal))
        .with("entries", (d) => d.insertInto("journal_entries").values(entries)),
      net,
    ),
);

const movedKeys = (rows: { account_key: string }[]) => new Set(rows.map((r) => r.account_key));

export function sqlLedgerRepository(ctx: SqlContext): LedgerRepository {
  const { trx, dialect } = ctx;
  const distinctSorted = (keys: string[]) => [...new Set(keys)].sort();

  return {
    async lockAccounts(currency, keys) {
      const balances = new Map<string, number>(keys.map((k) => [k, 0]));
      if (keys.length === 0) return balances;
      for (const row of await upsertAccounts.rows(ctx, { currency, ordered: inLockOrder(currency, keys) })) {
        balances.set(row.account_key, row.balance_minor);
      }
      return balances;
    },

    async balances(currency, keys) {
      const balances = new Map<string, number>(keys.map((k) => [k, 0]));
      const sorted = distinctSorted(keys);
      if (sorted.length === 0) return balances;
      const rows = await trx
        .selectFrom("accounts")
        .select(["account_key", "balance_minor"])
        .where("currency", "=", currency)
        .where("account_key", "in", sorted)
        .execute();
      for (const row of rows) balances.set(row.account_key, row.balance_minor);
      return balances;
    },

    async post(journal: Journal) {
      assertBalanced(journal);
      const { currency, createdAt } = journal;
      const journalRow: JournalRow = {
        uid: journal.uid,
        tenant_id: journal.tenantId,
        operation_uid: journal.operationUid,
        currency,
        kind: journal.kind,
        created_at: createdAt,
      };
      const entryRows = journal.entries.map(
        (e, lineNo): EntryRow => ({
          journal_uid: journal.uid,
          line_no: lineNo,
          account_key: e.accountKey,
          currency,
          amount_minor: e.amountMinor,
          label: e.label,
        }),
      );
      // Net per account: intermediate lines of one journal never trip the CHECK.
      const byKey = netByAccount(journal.entries);
      const ordered = inLockOrder(currency, byKey.keys());
      // An account whose lines cancel out keeps its balance and its asOf (updated_at): it only
      // needs its row, which a lock has made already unless it was never locked.
      const cancelled = ordered.filter((k) => byKey.get(k) === 0);
      const moves = ordered
        .filter((k) => byKey.get(k) !== 0)
        .map((k): NetMoves["moves"][number] => [k, byKey.get(k) ?? 0, mustStayNonNegative(k) ? 0 : NO_FLOOR]);
      const net = { currency, moves, at: createdAt };
      let moved: Set<string>;
      if (moves.length === 0) {
        await insertJournal.execute(ctx, journalRow);
        await insertEntries.execute(ctx, { rows: entryRows });
        moved = new Set();
      } else if (dialect === "postgres") {
        // One round trip, so the shared accounts locked right before stay locked for as little
        // as possible.
        moved = movedKeys(
          await postAndApplyNet.rows(ctx, { ...net, journal: journalRow, entries: entryRows }),
        );
      } else {
        await insertJournal.execute(ctx, journalRow);
        await insertEntries.execute(ctx, { rows: entryRows });
        moved = movedKeys(await applyNet.rows(ctx, net));
      }
      const unmoved = moves.filter(([key]) => !moved.has(key));
      // A protected account left alone: too low, or missing (zero) while the journal takes from it.
      const uncovered = unmoved.find(([, delta, floor]) => floor === 0 && delta < 0);
      if (uncovered) throw new AccountNotCoveredError(uncovered[0]);
      if (unmoved.length > 0) {
        // Accounts never locked nor moved before. Not an upsert of the delta: Postgres checks the
        // CHECK constraint on the proposed insert row (the bare delta) before it looks for a
        // conflict, which would refuse every ordinary debit.
        await upsertAccounts.execute(ctx, { currency, ordered: unmoved.map(([key]) => key) });
        const movedNow = movedKeys(await applyNet.rows(ctx, { ...net, moves: unmoved }));
        // Every row exists now: one still left alone would pass ±(2^53 - 1). The journal written
        // above goes with the refusal (the unit of work rolls back).
        if (unmoved.some(([key]) => !movedNow.has(key))) refuseBalanceOutOfRange();
      }
      if (cancelled.length > 0) await upsertAccounts.execute(ctx, { currency, ordered: cancelled });
    },

    async journalsOf(tenantId, operationUid) {
      const journals = await trx
        .selectFrom("journals")
        .selectAll()
        .where("operation_uid", "=", operationUid)
        .where("tenant_id", "=", tenantId)
        .orderBy("ordinal")
        .execute();
      if (journals.length === 0) return [];
      const entries = await trx
        .selectFrom("journal_entries")
        .select(["journal_uid", "account_key", "amount_minor", "label"])
        .where(
          "journal_uid",
          "in",
          journals.map((j) => j.uid),
        )
        .orderBy("journal_uid")
        .orderBy("line_no")
        .execute();
      return journals.map((j) => ({
        uid: j.uid,
        tenantId: j.tenant_id,
        operationUid: j.operation_uid,
        currency: j.currency,
        kind: j.kind,
        createdAt: j.created_at,
        entries: entries
          .filter((e) => e.journal_uid === j.uid)
          .map((e) => ({ accountKey: e.account_key, amountMinor: e.amount_minor, label: e.label })),
      }));
    },

    async lastMovedAt(currency, keys) {
      const sorted = distinctSorted(keys);
      if (sorted.length === 0) return null;
      const row = await trx
        .selectFrom("accounts")
        .select((eb) => eb.fn.max("updated_at").as("at"))
        .where("currency", "=", currency)
        .where("account_key", "in", sorted)
        .executeTakeFirst();
      return row?.at ?? null;
    },

    async trialBalance() {
      // As text, read into bigints: the sums of every entry ever posted outgrow the safe integers
      // (the exact-integer readers would refuse them). SQLite's sum() stops at 2^63 - 1.
      const rows = await trx
        .selectFrom("journal_entries")
        .select([
          "currency",
          sql<string>`cast(sum(case when amount_minor < 0 then -amount_minor else 0 end) as text)`.as(
            "debits",
          ),
          sql<string>`cast(sum(case when amount_minor > 0 then amount_minor else 0 end) as text)`.as(
            "credits",
          ),
        ])
        .groupBy("currency")
        .orderBy("currency")
        .execute();
      return rows.map((r) => ({
        currency: r.currency,
        debitsMinor: BigInt(r.debits),
        creditsMinor: BigInt(r.credits),
      }));
    },
  };
}
