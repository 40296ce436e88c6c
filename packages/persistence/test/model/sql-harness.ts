import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import type { HarnessFactory, LedgerSnapshot } from "../../../ledger-core/test/model/world.js";
import { createFreshPostgresDatabase, createPostgresStore, createSqliteStore } from "../../src/index.js";

/** Exact integers from either driver (bigint, or the string pg returns for int8). */
function exact(v: unknown): number {
  const n = typeof v === "bigint" ? Number(v) : Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`not a safe integer: ${String(v)}`);
  return n;
}

interface Rows {
  journals: { uid: string; currency: string }[];
  entries: { journal_uid: string; account_key: string; amount_minor: unknown }[];
  accounts: { account_key: string; currency: string; balance_minor: unknown }[];
  operations: { uid: string; type: string; state: string }[];
}

/** Reads the ledger tables directly (not through the repositories the invariants check). */
const QUERIES = {
  journals: "select uid, currency from journals order by ordinal",
  entries: "select journal_uid, account_key, amount_minor from journal_entries order by journal_uid, line_no",
  accounts: "select account_key, currency, balance_minor from accounts",
  operations: "select uid, type, state from operations",
} as const;

function toSnapshot(rows: Rows): LedgerSnapshot {
  const byJournal = new Map<string, { accountKey: string; amountMinor: number }[]>();
  for (const e of rows.entries) {
    const list = byJournal.get(e.journal_uid) ?? [];
    list.push({ accountKey: e.account_key, amountMinor: exact(e.amount_minor) });
    byJournal.set(e.journal_uid, list);
  }
  return {
    journals: rows.journals.map((j) => ({
      uid: j.uid,
      currency: j.currency,
      entries: byJournal.get(j.uid) ?? [],
    })),
    accounts: rows.accounts.map((a) => ({
      accountKey: a.account_key,
      currency: a.currency,
      balanceMinor: exact(a.balance_minor),
    })),
    operations: rows.operations.map((o) => ({ uid: o.uid, type: o.type, state: o.state })),
  };
}

/**
 * SQLite: one migrated template file, copied for each run (a run starts from an empty ledger in
 * about a millisecond), read back through a second, read-only connection.
 */
export async function sqliteHarnessFactory(): Promise<{ factory: HarnessFactory; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "wallet-model-"));
  const template = join(dir, "template.db");
  const seed = createSqliteStore({ filename: template });
  await seed.migrate();
  await seed.close();
  let n = 0;
  const factory: HarnessFactory = async () => {
    const filename = join(dir, `run-${++n}.db`);
    copyFileSync(template, filename);
    const store = createSqliteStore({ filename });
    const reader = new BetterSqlite3(filename, { readonly: true });
    reader.defaultSafeIntegers(true);
    const all = <T>(sql: string) => reader.prepare(sql).all() as T[];
    return {
      name: "sqlite",
      uow: store.uow,
      snapshot: async () =>
        toSnapshot({
          journals: all(QUERIES.journals),
          entries: all(QUERIES.entries),
          accounts: all(QUERIES.accounts),
          operations: all(QUERIES.operations),
        }),
      close: async () => {
        reader.close();
        await store.close();
        rmSync(filename, { force: true });
        rmSync(`${filename}-wal`, { force: true });
        rmSync(`${filename}-shm`, { force: true });
      },
    };
  };
  return { factory, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Postgres: one migrated database for every run, emptied (TRUNCATE of every table) before each
 * run, and read back through a separate pg client. Cloning a database per run costs a checkpoint
 * (about a second); a truncate costs a few milliseconds.
 */
export async function postgresHarnessFactory(
  baseUrl: string,
): Promise<{ factory: HarnessFactory; dispose(): Promise<void> }> {
  const fresh = await createFreshPostgresDatabase(baseUrl);
  const store = createPostgresStore({ connectionString: fresh.url, poolSize: 4 });
  await store.migrate();
  const reader = new pg.Client({ connectionString: fresh.url, connectionTimeoutMillis: 10_000 });
  await reader.connect();
  const tables = (
    await reader.query<{ name: string }>(
      "select quote_ident(table_name) as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'",
    )
  ).rows.map((r) => r.name);
  const all = async <T>(sql: string) => (await reader.query(sql)).rows as T[];
  const factory: HarnessFactory = async () => {
    await reader.query(`truncate table ${tables.join(", ")} restart identity cascade`);
    return {
      name: "postgres",
      uow: store.uow,
      snapshot: async () =>
        toSnapshot({
          journals: await all(QUERIES.journals),
          entries: await all(QUERIES.entries),
          accounts: await all(QUERIES.accounts),
          operations: await all(QUERIES.operations),
        }),
      close: async () => {},
    };
  };
  return {
    factory,
    dispose: async () => {
      await reader.end();
      await store.close();
      await fresh.drop();
    },
  };
}
