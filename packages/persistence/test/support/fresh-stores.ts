import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  createSqliteStore,
  type PostgresStoreOptions,
  type SqliteStoreOptions,
  type Store,
} from "../../src/index.js";

/** A migrated store of its own, and how to close it and remove what it was kept in. */
export interface FreshStore {
  store: Store;
  uow: Store["uow"];
  close(): Promise<void>;
}

/** A migrated SQLite store in a directory of its own, removed on close. */
export async function freshSqliteStore(
  options: Omit<SqliteStoreOptions, "filename"> = {},
): Promise<FreshStore> {
  const dir = mkdtempSync(join(tmpdir(), "wallet-sqlite-"));
  const store = createSqliteStore({ ...options, filename: join(dir, "wallet.db") });
  await store.migrate();
  return {
    store,
    uow: store.uow,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated Postgres store on a fresh database of `baseUrl`'s server, dropped on close. */
export async function freshPostgresStore(
  baseUrl: string,
  options: Omit<PostgresStoreOptions, "connectionString"> = {},
): Promise<FreshStore> {
  const fresh = await createFreshPostgresDatabase(baseUrl);
  const store = createPostgresStore({ ...options, connectionString: fresh.url });
  await store.migrate();
  return {
    store,
    uow: store.uow,
    close: async () => {
      await store.close();
      await fresh.drop();
    },
  };
}
