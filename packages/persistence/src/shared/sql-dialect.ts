/** The two engines the store runs on. */
export const sqlDialects = ["sqlite", "postgres"] as const;
export type SqlDialect = (typeof sqlDialects)[number];

/**
 * `query` with the rows it reads locked until the transaction ends (`FOR UPDATE`) on Postgres; as
 * it is on SQLite, which has no row locks: its writer lock (BEGIN IMMEDIATE) already serializes
 * writers.
 */
export const lockedForUpdate = <Q extends { forUpdate(): Q }>(query: Q, dialect: SqlDialect): Q =>
  dialect === "postgres" ? query.forUpdate() : query;
