import type { GroupCommitOptions } from "./group-commit/group-commit.js";
import { createPostgresStore } from "./postgres/create-postgres-store.js";
import type { SqliteSynchronous } from "./sqlite/connection-pragmas.js";
import { createSqliteStore } from "./sqlite/create-sqlite-store.js";
import type { Store } from "./store.js";

/** Tuning that does not belong in a URL (the server reads it from its config file). */
export interface OpenStoreOptions {
  /** Group commit; absent: the engine's default (on for SQLite, off for Postgres). */
  groupCommit?: GroupCommitOptions | false | undefined;
  /** Postgres connections in the pool; default 10. Ignored by SQLite (one connection). */
  poolSize?: number | undefined;
  /** Postgres: run the hot statements as named prepared statements; default true. */
  preparedStatements?: boolean | undefined;
  /** SQLite: when a commit reaches the disk; default `full`. Ignored by Postgres. */
  sqliteSynchronous?: SqliteSynchronous | undefined;
}

/**
 * Opens the store a database URL names: `sqlite:<path>` (parent directories created, e.g.
 * `sqlite:./data/wallet.db`, `sqlite::memory:`) or `postgres://...` / `postgresql://...`.
 * Does not migrate; call `store.migrate()`.
 */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  const { groupCommit, poolSize, preparedStatements, sqliteSynchronous } = options;
  if (url.startsWith("sqlite:")) {
    const filename = url.slice("sqlite:".length);
    if (filename === "") throw new Error("sqlite: URL needs a file path, e.g. sqlite:./data/wallet.db");
    return createSqliteStore({
      filename,
      ...(groupCommit === undefined ? {} : { groupCommit }),
      ...(sqliteSynchronous === undefined ? {} : { synchronous: sqliteSynchronous }),
    });
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    return createPostgresStore({
      connectionString: url,
      ...(groupCommit === undefined ? {} : { groupCommit }),
      ...(poolSize === undefined ? {} : { poolSize }),
      ...(preparedStatements === undefined ? {} : { preparedStatements }),
    });
  }
  // Never echo the URL: it may carry a password.
  throw new Error("Unsupported database URL: expected sqlite:<path>, postgres://... or postgresql://...");
}
