import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeDeliveryRepositoryContract } from "../../../webhooks/test/delivery-repository-contract.js";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  createSqliteStore,
  postgresTestUrl,
} from "../../src/index.js";

// The webhook dispatcher's DeliveryRepository contract (written with the dispatcher, run there on
// the memory store) on the SQL stores. Without WALLET_TEST_POSTGRES_URL the Postgres half is not
// registered; postgres.test.ts reports the skip (or fails when Postgres is required).

describeDeliveryRepositoryContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wallet-deliveries-"));
  const store = createSqliteStore({ filename: join(dir, "wallet.db") });
  await store.migrate();
  return {
    uow: store.uow,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const baseUrl = postgresTestUrl();
if (baseUrl) {
  describeDeliveryRepositoryContract("postgres", async () => {
    const fresh = await createFreshPostgresDatabase(baseUrl);
    const store = createPostgresStore({ connectionString: fresh.url, poolSize: 4 });
    await store.migrate();
    return {
      uow: store.uow,
      close: async () => {
        await store.close();
        await fresh.drop();
      },
    };
  });
}
