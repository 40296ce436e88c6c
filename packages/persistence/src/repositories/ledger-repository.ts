import { assertBalanced, type Journal, type LedgerRepository, netByAccount } from "@wallet/ledger-core";
import { sql } from "kysely";
import { affected, type SqlContext } from "./sql-context.js";

export function sqlLedgerRepository({ trx, dialect }: SqlContext): LedgerRepository {
  const distinctSorted = (keys: string[]) => [...new Set(keys)].sort();

  /** Creates the accounts that do not exist yet, at zero. Keys sorted: one insertion order for all. */
  const ensureAccounts = async (currency: string, keys: string[]) => {
    await trx
      .insertInto("accounts")
      .values(keys.map((k) => ({ account_key: k, currency, balance_minor: 0, updated_at: null })))
      .onConflict((oc) => oc.columns(["account_key", "currency"]).doNothing())
      .execute();
  };

  /** Balances keyed in the caller's order; rows read (and locked) in key order. */
  const readBalances = async (currency: string, requested: string[], lock: boolean) => {
    const balances = new Map<string, number>(requested.map((k) => [k, 0]));
    const keys = distinctSorted(requested);
    if (keys.length === 0) return balances;
    let q = trx
      .selectFrom("accounts")
      .select(["account_key", "balance_minor"])
      .where("currency", "=", currency)
      .where("account_key", "in", keys)
      .orderBy("account_key");
    // SQLite has no row locks: BEGIN IMMEDIATE already holds the one writer lock.
    if (lock && dialect === "postgres") q = q.forUpdate();
    for (const row of await q.execute()) balances.set(row.account_key, row.balance_minor);
    return balances;
  };

  return {
    async lockAccounts(currency, keys) {
      const sorted = distinctSorted(keys);
      if (sorted.length === 0) return new Map();
      await ensureAccounts(currency, sorted);
      return readBalances(currency, keys, true);
    },

    async balances(currency, keys) {
      return readBalances(currency, keys, false);
    },

    async post(journal: Journal) {
      assertBalanced(journal);
      await trx
        .insertInto("journals")
        .values({
          uid: journal.uid,
          tenant_id: journal.tenantId,
          operation_uid: journal.operationUid,
          currency: journal.currency,
          kind: journal.kind,
          created_at: journal.createdAt,
        })
        .execute();
      await trx
        .insertInto("journal_entries")
        .values(
          journal.entries.map((e, lineNo) => ({
            journal_uid: journal.uid,
            line_no: lineNo,
            account_key: e.accountKey,
            currency: journal.currency,
            amount_minor: e.amountMinor,
            label: e.label,
          })),
        )
        .execute();
      // Net per account, in key order: intermediate lines of one journal never trip the CHECK,
      // and concurrent posters touch rows in the same order.
      const net = [...netByAccount(journal.entries)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [key, delta] of net) {
        const apply = () =>
          trx
            .updateTable("accounts")
            .set((eb) => ({ balance_minor: eb("balance_minor", "+", delta), updated_at: journal.createdAt }))
            .where("account_key", "=", key)
            .where("currency", "=", journal.currency)
            .executeTakeFirst();
        // Not an upsert: Postgres checks the CHECK constraint on the proposed insert row (the bare
        // delta) before it looks for a conflict, which would refuse every ordinary debit.
        if (affected(await apply()) === 0) {
          await ensureAccounts(journal.currency, [key]);
          await apply();
        }
      }
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
      const rows = await trx
        .selectFrom("journal_entries")
        .select([
          "currency",
          sql<number>`sum(case when amount_minor < 0 then -amount_minor else 0 end)`.as("debits"),
          sql<number>`sum(case when amount_minor > 0 then amount_minor else 0 end)`.as("credits"),
        ])
        .groupBy("currency")
        .orderBy("currency")
        .execute();
      return rows.map((r) => ({ currency: r.currency, debitsMinor: r.debits, creditsMinor: r.credits }));
    },
  };
}
