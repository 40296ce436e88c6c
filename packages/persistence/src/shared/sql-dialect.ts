/** The two engines the store runs on. */
export const sqlDialects = ["sqlite", "postgres"] as const;
export type SqlDialect = (typeof sqlDialects)[number];

/**
 * `query` with the rows it reads locked for a change until the transaction ends on Postgres; as it
 * is on SQLite, which has no row locks: its writer lock (BEGIN IMMEDIATE) already serializes
 * writers. `FOR NO KEY UPDATE`, not `FOR UPDATE`: no change here touches a key column, and it
 * conflicts with what a change must wait for (movements' `FOR SHARE`, other changes) but not with
 * the `FOR KEY SHARE` a foreign key's check takes at COMMIT. With `FOR UPDATE`, a mandate holding
 * its wallet and checking its customer key at COMMIT deadlocked with a change holding the customer
 * and waiting for the wallet.
 */
export const lockedForUpdate = <Q extends { forNoKeyUpdate(): Q }>(query: Q, dialect: SqlDialect): Q =>
  dialect === "postgres" ? query.forNoKeyUpdate() : query;
