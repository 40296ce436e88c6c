import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  createSqliteStore,
  postgresTestUrl,
  type SqlDialect,
  type Store,
} from "../../src/index.js";
import { exactIntegerTypes } from "../../src/postgres/exact-integer-types.js";
import type { Database } from "../../src/schema/database.js";
import { safeIntegerDatabase } from "../../src/sqlite/safe-integer-database.js";

/** A database to migrate by hand (a bare Kysely on it) and then open as a store. */
export interface Engine {
  /** A new Kysely on the database (destroy it when done). */
  kysely(): Kysely<Database>;
  /** The store on the same database. */
  openStore(): Store;
  drop(): Promise<void>;
}

export async function sqliteEngine(): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), "wallet-migration-"));
  const file = join(dir, "wallet.db");
  return {
    kysely: () => {
      const raw = new BetterSqlite3(file);
      raw.defaultSafeIntegers(true);
      return new Kysely<Database>({ dialect: new SqliteDialect({ database: safeIntegerDatabase(raw) }) });
    },
    openStore: () => createSqliteStore({ filename: file }),
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function postgresEngine(baseUrl: string): Promise<Engine> {
  const fresh = await createFreshPostgresDatabase(baseUrl);
  return {
    kysely: () =>
      new Kysely<Database>({
        dialect: new PostgresDialect({
          pool: new pg.Pool({ connectionString: fresh.url, max: 1, types: exactIntegerTypes }),
        }),
      }),
    openStore: () => createPostgresStore({ connectionString: fresh.url, poolSize: 2 }),
    drop: () => fresh.drop(),
  };
}

/** SQLite, and Postgres when WALLET_TEST_POSTGRES_URL is set. */
export function migrationEngines(): [SqlDialect, () => Promise<Engine>][] {
  const pgUrl = postgresTestUrl();
  return [
    ["sqlite", sqliteEngine],
    ...(pgUrl ? [["postgres", () => postgresEngine(pgUrl)] as [SqlDialect, () => Promise<Engine>]] : []),
  ];
}
