import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { GroupCommitOptions } from "../group-commit/group-commit.js";
import type { Database } from "../schema/database.js";
import { createSqlStore, type Store } from "../store.js";
import { exactIntegerTypes } from "./exact-integer-types.js";
import { prepareTemplates } from "./prepared-templates.js";
import { explicitSslMode } from "./ssl-mode.js";

export interface PostgresStoreOptions {
  connectionString: string;
  /** Connections in the pool; default 10. */
  poolSize?: number | undefined;
  /** Longest a statement (lock waits included) may run; default 30 s. */
  statementTimeoutMs?: number | undefined;
  /** Longest a caller waits for a pooled connection; default 10 s. */
  connectTimeoutMs?: number | undefined;
  /**
   * Longest the client waits for the answer to a statement it sent; default the statement timeout
   * plus 5 s. The server's statement timeout answers first while the server can be reached; this
   * one bounds a silent network (a dropped route, a frozen host), where nothing ever answers: the
   * connection is then destroyed, so the caller and everything queued on it fail (503) instead of
   * waiting for TCP to give up. node-postgres starts the clock when a statement is queued on its
   * connection, not when it is sent: statements a unit of work runs at once (`Promise.all`) share
   * the budget, which is why it sits well above the statement timeout.
   */
  readTimeoutMs?: number | undefined;
  /**
   * Group commit (off by default): concurrent units of work share one transaction, each in its
   * own savepoint. Row locks are taken per savepoint inside that transaction, so two units of
   * work of one batch touching the same wallet simply run one after the other.
   */
  groupCommit?: GroupCommitOptions | false | undefined;
  /**
   * Run the hot statements as named prepared statements, parsed and planned once per connection
   * (default true). Turn off behind a pooler that does not keep prepared statements per client
   * (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements?: boolean | undefined;
}

/**
 * The shared store for several server processes. READ COMMITTED; balances are serialized by
 * `SELECT ... FOR UPDATE` on the account rows, taken in key order.
 */
export function createPostgresStore({
  connectionString: given,
  poolSize = 10,
  statementTimeoutMs = 30_000,
  connectTimeoutMs = 10_000,
  readTimeoutMs = statementTimeoutMs + 5_000,
  groupCommit = false,
  preparedStatements = true,
}: PostgresStoreOptions): Store {
  const connectionString = explicitSslMode(given);
  const pool = new pg.Pool({
    connectionString,
    max: poolSize,
    types: exactIntegerTypes,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    // A transaction left open by a crashed caller must not hold row locks for ever.
    idle_in_transaction_session_timeout: 60_000,
    idleTimeoutMillis: 30_000,
    query_timeout: readTimeoutMs,
    // Idle connections to a vanished peer are found by TCP probes rather than by the next caller.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A client losing its connection (server restart, admin shutdown) emits "error", idle or checked
  // out; unheard, that event would crash the process. The failure still reaches the caller as the
  // rejection of its query (a StoreUnavailableError), and the pool replaces the dead client.
  pool.on("error", () => {});
  pool.on("connect", (client) => {
    client.on("error", () => {});
    destroyOnReadTimeout(client);
    if (preparedStatements) prepareTemplates(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // Migrations (a backfill over every operation, say) may outrun the timeouts meant for requests.
  const openMigrationDb = () => {
    const one = new pg.Pool({
      connectionString,
      max: 1,
      types: exactIntegerTypes,
      connectionTimeoutMillis: connectTimeoutMs,
      keepAlive: true,
    });
    one.on("error", () => {});
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool: one }) });
  };
  return createSqlStore({
    dialect: "postgres",
    db,
    isolation: "read committed",
    groupCommit,
    openMigrationDb,
  });
}

/**
 * node-postgres answers a statement past `query_timeout` with "Query read timeout" but keeps the
 * connection, its statement still in flight: the next caller's statements would queue behind it
 * and wait just as long, and the pool would hand the connection out again. The client is ended
 * instead (its socket destroyed), so every statement on it fails at once (503) and the pool
 * replaces it.
 */
function destroyOnReadTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      return result.catch((e: unknown) => {
        // end() marks the client ending at once (the pool drops it when it is released) and,
        // with a statement still in flight, destroys the socket rather than waiting for it.
        if (e instanceof Error && e.message === "Query read timeout") client.end().catch(() => {});
        throw e;
      });
    }
    return result;
  };
}
