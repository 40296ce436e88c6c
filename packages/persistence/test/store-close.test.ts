import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreUnavailableError } from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { createFreshPostgresDatabase, openStore, postgresTestUrl, type Store } from "../src/index.js";
import { tenantFixture, unique } from "./contract/fixtures.js";

const baseUrl = postgresTestUrl();

const kinds: {
  name: string;
  skip: boolean;
  database: () => Promise<{ url: string; drop: () => Promise<void> }>;
}[] = [
  {
    name: "sqlite",
    skip: false,
    database: async () => ({
      url: `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-close-")), "wallet.db")}`,
      drop: async () => {},
    }),
  },
  {
    name: "postgres",
    skip: baseUrl === null,
    database: () => createFreshPostgresDatabase(baseUrl ?? ""),
  },
];

describe.each(kinds)("closing the $name store", ({ skip, database }) => {
  // On Postgres, close destroyed the pool under units still running: they failed with "driver has
  // already been destroyed", a plain Error (embedding audit). Each one commits now.
  it.skipIf(skip)(
    "lets the units of work in flight finish, then refuses new ones as unavailable",
    async () => {
      const { url, drop } = await database();
      const store: Store = await openStore(url);
      try {
        await store.migrate();
        const tenants = [1, 2, 3, 4, 5].map(() => tenantFixture(unique("tn")));
        const running = tenants.map((t) =>
          store.uow.run(async (tx) => {
            await new Promise((resolve) => setTimeout(resolve, 50));
            await tx.tenants.upsert(t);
            return t.id;
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, 10));
        await store.close();
        expect(await Promise.all(running)).toEqual(tenants.map((t) => t.id));
        const late = await store.uow.run((tx) => tx.tenants.list()).catch((e: unknown) => e);
        expect(late).toBeInstanceOf(StoreUnavailableError);

        const reopened = await openStore(url);
        const stored = await reopened.uow.run((tx) => tx.tenants.list());
        await reopened.close();
        expect(stored.map((t) => t.id).sort()).toEqual(tenants.map((t) => t.id).sort());
      } finally {
        await drop();
      }
    },
  );
});
