import type { UnitOfWork } from "@wallet/ledger-core";
import { createMemoryStore } from "@wallet/ledger-core/memory";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  createSqliteStore,
  postgresTestUrl,
  requirePostgres,
} from "@wallet/persistence";

export interface OpenedStore {
  uow: UnitOfWork;
  close(): Promise<void>;
}

export interface StoreKind {
  name: "memory" | "sqlite" | "postgres";
  open(): Promise<OpenedStore>;
}

const memory: StoreKind = {
  name: "memory",
  open: async () => ({ uow: createMemoryStore().uow, close: async () => {} }),
};

const sqlite: StoreKind = {
  name: "sqlite",
  async open() {
    const store = createSqliteStore({ filename: ":memory:" });
    await store.migrate();
    return { uow: store.uow, close: () => store.close() };
  },
};

const postgres = (baseUrl: string): StoreKind => ({
  name: "postgres",
  async open() {
    const fresh = await createFreshPostgresDatabase(baseUrl);
    const store = createPostgresStore({ connectionString: fresh.url });
    await store.migrate();
    return {
      uow: store.uow,
      async close() {
        await store.close();
        await fresh.drop();
      },
    };
  },
});

/**
 * The stores a shared suite runs on: memory and SQLite always, Postgres when
 * WALLET_TEST_POSTGRES_URL is set. With WALLET_TEST_REQUIRE_POSTGRES=1 and no URL, Postgres is
 * still listed and its `open` fails, so the suite fails instead of silently skipping.
 */
export function storeKinds(): StoreKind[] {
  const url = postgresTestUrl();
  if (url !== null) return [memory, sqlite, postgres(url)];
  if (requirePostgres()) {
    return [
      memory,
      sqlite,
      {
        name: "postgres",
        open: () =>
          Promise.reject(new Error("WALLET_TEST_REQUIRE_POSTGRES=1 but WALLET_TEST_POSTGRES_URL is not set")),
      },
    ];
  }
  console.info("Postgres HTTP tests skipped: WALLET_TEST_POSTGRES_URL is not set");
  return [memory, sqlite];
}

export const memoryStore = memory;
