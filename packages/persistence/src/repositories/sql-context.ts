import { ConcurrentUpdateError } from "@wallet/ledger-core";
import type { Kysely } from "kysely";
import { type RawBuilder, sql } from "kysely";
import type { Database } from "../schema/database.js";
import type { SqlDialect } from "../shared/sql-dialect.js";

/** State a store keeps across transactions (bounded counters only, never data). */
export interface StoreHousekeeping {
  /** Calls of replayGuard.remember since the store opened; every Nth one purges expired rows. */
  replayGuardCalls: number;
  /** Calls of assertions.record; every Nth one purges expired uses. */
  assertionRecords: number;
  /** Calls of quotes.insert; every Nth one purges long-expired quotes. */
  quoteInserts: number;
}

export const newHousekeeping = (): StoreHousekeeping => ({
  replayGuardCalls: 0,
  assertionRecords: 0,
  quoteInserts: 0,
});

/** What every repository needs: the open transaction and the engine it runs on. */
export interface SqlContext {
  /**
   * The open transaction; for `uow.autocommit` on Postgres, the database itself (each statement
   * commits by itself: no savepoint may be taken there).
   */
  trx: Kysely<Database>;
  dialect: SqlDialect;
  housekeeping: StoreHousekeeping;
  /** Versions of mutable rows as this transaction last read or wrote them (see `RowVersions`). */
  versions: RowVersions;
}

/**
 * Optimistic concurrency for the rows a use case reads, decides on and writes back (operations,
 * mandates, suspense items): `update` only applies when the row still has the version this
 * transaction last saw, else it throws `Conflict`. Two racing requests that both read "processing"
 * can therefore not both move the same payout on Postgres, even without a row lock; the use cases'
 * own "lock the accounts, then re-read" keeps working, as the re-read refreshes the version.
 * Keys are `table:uid`; only rows read by key are tracked, so the map stays as small as the work.
 */
export class RowVersions {
  readonly #seen = new Map<string, RowVersion>();

  remember(table: string, uid: string, version: RowVersion): void {
    this.#seen.set(`${table}:${uid}`, version);
  }

  get(table: string, uid: string): RowVersion | undefined {
    return this.#seen.get(`${table}:${uid}`);
  }
}

/** Column values that identify a row's version, e.g. `{ state, updated_at }`. */
export type RowVersion = Readonly<Record<string, string | null>>;

/** Rows changed by an insert/update/delete, as a number. */
export const affected = (r: {
  numInsertedOrUpdatedRows?: bigint | undefined;
  numUpdatedRows?: bigint | undefined;
  numDeletedRows?: bigint | undefined;
}) => Number(r.numInsertedOrUpdatedRows ?? r.numUpdatedRows ?? r.numDeletedRows ?? 0n);

/**
 * Runs `statement` so that its failure leaves the transaction usable. Postgres aborts the whole
 * transaction on any error, so the statement runs inside a savepoint there; SQLite only undoes
 * the failed statement and needs none.
 */
export async function guarded<T>(
  { trx, dialect }: SqlContext,
  name: string,
  statement: () => Promise<T>,
): Promise<T> {
  if (dialect === "sqlite") return statement();
  await sql`savepoint ${sql.id(name)}`.execute(trx);
  try {
    const result = await statement();
    await sql`release savepoint ${sql.id(name)}`.execute(trx);
    return result;
  } catch (e) {
    await sql`rollback to savepoint ${sql.id(name)}`.execute(trx);
    throw e;
  }
}

/**
 * Where-clause terms requiring the row to still have `version` (nothing when the transaction
 * never read the row: such an update is not a read-decide-write and is applied as it comes).
 */
export function versionTerms(version: RowVersion | undefined): RawBuilder<boolean>[] {
  return Object.entries(version ?? {}).map(([column, value]) =>
    value === null ? sql<boolean>`${sql.ref(column)} is null` : sql<boolean>`${sql.ref(column)} = ${value}`,
  );
}

/**
 * After an update changed no row: a row that exists changed under us (`Conflict`, retryable);
 * a row that does not exist is a programming error, as in the memory store.
 */
export async function explainLostUpdate(exists: () => Promise<boolean>, what: string): Promise<never> {
  if (await exists()) {
    throw new ConcurrentUpdateError(what);
  }
  throw new Error(`Invariant violated: update of an unknown ${what}`);
}
