export {
  type BatchEngine,
  defaultGroupCommit,
  type GroupCommitOptions,
  type GroupCommitUnitOfWork,
  groupCommitUnitOfWork,
} from "./group-commit/group-commit.js";
export { migrationsFor } from "./migrations/migration-provider.js";
export { type OpenStoreOptions, openStore } from "./open-store.js";
export { createPostgresStore, type PostgresStoreOptions } from "./postgres/create-postgres-store.js";
export type { Database } from "./schema/database.js";
export type { SqlDialect } from "./shared/sql-dialect.js";
export type { SqliteSynchronous } from "./sqlite/connection-pragmas.js";
export { createSqliteStore, type SqliteStoreOptions } from "./sqlite/create-sqlite-store.js";
export type { Store } from "./store.js";
export {
  createFreshPostgresDatabase,
  type FreshPostgresDatabase,
  postgresTestUrl,
  postgresUrlFor,
  requirePostgres,
} from "./testing.js";
