import { StoreUnavailableError, type UnitOfWork } from "@wallet/ledger-core";
import { CompiledQuery, type Kysely, type MigrationResultSet, Migrator, sql, type Transaction } from "kysely";
import { type GroupCommitOptions, groupCommitUnitOfWork } from "./group-commit/group-commit.js";
import { inCodeMigrationProvider } from "./migrations/migration-provider.js";
import { newHousekeeping, RowVersions } from "./repositories/sql-context.js";
import { createSqlTx } from "./repositories/sql-tx.js";
import type { Database } from "./schema/database.js";
import type { SqlDialect } from "./shared/sql-dialect.js";
import { mapStoreError } from "./shared/store-errors.js";

/**
 * A database behind the ledger's unit of work.
 *
 * @example
 *   const store = await openStore("sqlite:./data/wallet.db");
 *   await store.migrate();
 *   const op = await store.uow.run((tx) => creditWallet(deps, ctx, tx, input));
 *   await store.close();
 */
export interface Store {
  dialect: SqlDialect;
  uow: UnitOfWork;
  /** Brings the schema to the latest migration; safe to run from several processes at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query; throws StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What differs between the engines once a Kysely instance exists. */
export interface SqlStoreOptions {
  dialect: SqlDialect;
  db: Kysely<Database>;
  /** Postgres runs READ COMMITTED explicitly; SQLite transactions are serializable by nature. */
  isolation?: "read committed" | undefined;
  /**
   * Coalesce concurrent units of work into one transaction, each in its own savepoint (see
   * `groupCommitUnitOfWork`). Absent or false: one transaction per `uow.run`.
   */
  groupCommit?: GroupCommitOptions | false | undefined;
  /**
   * A connection of its own for `migrate`, closed afterwards (Postgres: without the pool's
   * statement and read timeouts, as a backfill over a large table may take minutes). Absent:
   * migrations run on `db`.
   */
  openMigrationDb?: (() => Kysely<Database>) | undefined;
}

/** The one savepoint name: units of work in a batch run one after another, never nested. */
const savepoint = CompiledQuery.raw("savepoint wallet_unit_of_work");
const releaseSavepoint = CompiledQuery.raw("release savepoint wallet_unit_of_work");
const rollbackToSavepoint = CompiledQuery.raw("rollback to savepoint wallet_unit_of_work");
// Postgres takes several statements in one simple query (no parameters): one round trip. The
// units after a kept one hold its locks and must not wait for a lock (see groupCommitUnitOfWork):
// lock_timeout is set outside their savepoints, so it lasts to the end of the transaction.
const releaseAndSavepoint = CompiledQuery.raw(
  "release savepoint wallet_unit_of_work; set local lock_timeout = 1; savepoint wallet_unit_of_work",
);
/** lock_not_available: a statement gave up on a lock (lock_timeout). */
/** Postgres' serialization failure: a snapshot read met a row changed since it began. */
const isSerializationFailure = (e: unknown) =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "40001";
const SNAPSHOT_ATTEMPTS = 3;

const gaveUpOnLock = (e: unknown) =>
  typeof e === "object" && e !== null && (e as { code?: unknown }).code === "55P03";
const rollbackAndRelease = CompiledQuery.raw(
  "rollback to savepoint wallet_unit_of_work; release savepoint wallet_unit_of_work",
);

export function createSqlStore({
  dialect,
  db,
  isolation,
  groupCommit = false,
  openMigrationDb,
}: SqlStoreOptions): Store {
  const housekeeping = newHousekeeping();
  const mapped = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw mapStoreError(e);
    }
  };
  const transaction = () => (isolation ? db.transaction().setIsolationLevel(isolation) : db.transaction());
  const txOf = (trx: Kysely<Database>) =>
    createSqlTx({ trx, dialect, housekeeping, versions: new RowVersions() });

  const grouped =
    groupCommit === false
      ? null
      : groupCommitUnitOfWork<Transaction<Database>>(
          {
            transaction: (body) => transaction().execute(body),
            savepoint: async (trx) => {
              await trx.executeQuery(savepoint);
            },
            release: async (trx) => {
              await trx.executeQuery(releaseSavepoint);
            },
            rollback: async (trx) => {
              if (dialect === "postgres") {
                await trx.executeQuery(rollbackAndRelease);
                return;
              }
              await trx.executeQuery(rollbackToSavepoint);
              await trx.executeQuery(releaseSavepoint);
            },
            ...(dialect === "postgres"
              ? {
                  releaseAndSavepoint: async (trx: Transaction<Database>) => {
                    await trx.executeQuery(releaseAndSavepoint);
                  },
                  gaveUpOnLock,
                }
              : {}),
            tx: txOf,
            mapError: mapStoreError,
          },
          groupCommit,
        );

  /**
   * Units of work running now: `close` waits for them before the connections go away (on
   * Postgres, a unit still running met "driver has already been destroyed"); a unit started
   * after `close` began is refused as the store being unavailable.
   */
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;
  const tracked = <T>(start: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new StoreUnavailableError("The store is closed"));
    const unit = start();
    inFlight.add(unit);
    const forget = () => inFlight.delete(unit);
    unit.then(forget, forget);
    return unit;
  };
  // Kysely commits when `work` resolves and rolls back on any throw, then re-throws it.
  const untrackedRun: UnitOfWork["run"] = grouped
    ? (work) => grouped.run(work)
    : (work) => mapped(() => transaction().execute((trx) => work(txOf(trx))));
  const run: UnitOfWork["run"] = (work) => tracked(() => untrackedRun(work));
  const uow: UnitOfWork = {
    run,
    // Postgres: each statement on a pooled connection, committed by itself, without the round
    // trips of BEGIN and COMMIT. SQLite's one connection runs it as a unit of work like any other
    // (in a batch when group commit is on), so it never lands inside another's transaction.
    autocommit: dialect === "postgres" ? (work) => tracked(() => mapped(() => work(txOf(db)))) : run,
    // Postgres: READ COMMITTED gives each statement its own snapshot, so a list's rows and its
    // count could see two states; REPEATABLE READ gives the whole unit one. Outside group commit:
    // a batch's writers must not share it. SQLite's one connection already serializes.
    // A read that meets a row changed since its snapshot (a lock, a read-modify-write) fails
    // with a serialization failure; it holds nothing yet, so it runs again on a new snapshot.
    ...(dialect === "postgres"
      ? {
          snapshot: <T>(work: (tx: ReturnType<typeof txOf>) => Promise<T>): Promise<T> =>
            tracked(async () => {
              for (let attempt = 1; ; attempt++) {
                try {
                  return await db
                    .transaction()
                    .setIsolationLevel("repeatable read")
                    .execute((trx) => work(txOf(trx)));
                } catch (e) {
                  if (!(isSerializationFailure(e) && attempt < SNAPSHOT_ATTEMPTS)) throw mapStoreError(e);
                }
              }
            }),
        }
      : {}),
  };

  return {
    dialect,
    uow,
    migrate: () =>
      mapped(async () => {
        const migrationDb = openMigrationDb?.() ?? db;
        const toLatest = () =>
          new Migrator({ db: migrationDb, provider: inCodeMigrationProvider(dialect) }).migrateToLatest();
        const { error, results } = await (dialect === "sqlite"
          ? holdingWriteLock(migrationDb, toLatest)
          : toLatest()
        ).finally(() => (migrationDb === db ? undefined : migrationDb.destroy()));
        if (error !== undefined) {
          const failed = results?.find((r) => r.status === "Error")?.migrationName;
          if (error instanceof Error && failed)
            error.message = `Migration ${failed} failed: ${error.message}`;
          throw error;
        }
      }),
    ping: () =>
      mapped(async () => {
        await sql`select 1`.execute(db);
      }),
    close: async () => {
      closed = true;
      // Units of work already running or queued get their answer before the connections go away.
      await grouped?.drain();
      await Promise.allSettled([...inFlight]);
      await db.destroy();
    },
  };
}

/**
 * Runs SQLite's migrations in one transaction that holds the file's write lock from its start
 * (BEGIN IMMEDIATE). Kysely takes no migration lock on SQLite, so two processes opening one new
 * file at once both created its tables, and one failed ("table tenants already exists"); now the
 * second waits (busy_timeout), then finds nothing to do. A failed migration rolls back whole.
 */
async function holdingWriteLock(
  db: Kysely<Database>,
  migrate: () => Promise<MigrationResultSet>,
): Promise<MigrationResultSet> {
  await sql`begin immediate`.execute(db);
  let outcome: MigrationResultSet;
  try {
    outcome = await migrate();
  } catch (e) {
    await rollback(db);
    throw e;
  }
  if (outcome.error === undefined) await sql`commit`.execute(db);
  else await rollback(db);
  return outcome;
}

/** Ends the transaction; SQLite may have rolled it back already (an I/O error), which is no news. */
async function rollback(db: Kysely<Database>): Promise<void> {
  await sql`rollback`.execute(db).catch(() => {});
}
