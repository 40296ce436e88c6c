import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { Kysely } from "kysely";
import type { GroupCommitOptions } from "../group-commit/group-commit.js";
import type { Database } from "../schema/database.js";
import { mapStoreError } from "../shared/store-errors.js";
import { createSqlStore, type Store } from "../store.js";
import { applyConnectionPragmas, type SqliteSynchronous } from "./connection-pragmas.js";
import { ImmediateSqliteDialect } from "./immediate-sqlite-dialect.js";
import { safeIntegerDatabase } from "./safe-integer-database.js";

export interface SqliteStoreOptions {
  /** Path of the database file (parent directories are created), or `:memory:`. */
  filename: string;
  /** How long a transaction waits for another process's write lock; default 5000. */
  busyTimeoutMs?: number | undefined;
  /**
   * Group commit (on by default): concurrent units of work share one transaction, each in its own
   * savepoint, so a burst of requests pays for one commit. `false` gives each its own transaction.
   */
  groupCommit?: GroupCommitOptions | false | undefined;
  /** When a commit reaches the disk (see `SqliteSynchronous`); default `full`. */
  synchronous?: SqliteSynchronous | undefined;
}

/**
 * The embedded store: one better-sqlite3 connection in WAL mode. In one process, Kysely's SQLite
 * driver runs one transaction at a time on that connection; across processes, `BEGIN IMMEDIATE`
 * and busy_timeout serialize writers.
 */
export function createSqliteStore({
  filename,
  busyTimeoutMs = 5000,
  groupCommit = {},
  synchronous = "full",
}: SqliteStoreOptions): Store {
  const inMemory = filename === ":memory:" || filename === "";
  let raw: BetterSqlite3.Database;
  try {
    if (!inMemory) {
      // A new database is its owner's alone (SQLite gives its -wal and -shm the file's mode): it
      // holds the tenants' webhook secrets and every stored answer. An existing one keeps its mode.
      mkdirSync(dirname(filename), { recursive: true, mode: 0o700 });
      try {
        closeSync(openSync(filename, "a", 0o600));
      } catch {
        // Not a file that can be opened (a directory, no permission): SQLite's open says so below.
      }
    }
    raw = new BetterSqlite3(filename);
    raw.defaultSafeIntegers(true);
    applyConnectionPragmas(raw, { inMemory, busyTimeoutMs, synchronous });
  } catch (e) {
    throw mapStoreError(e);
  }
  const db = new Kysely<Database>({
    dialect: new ImmediateSqliteDialect({ database: safeIntegerDatabase(raw) }),
  });
  return createSqlStore({ dialect: "sqlite", db, groupCommit });
}
