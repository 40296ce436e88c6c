import { describe, it } from "vitest";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  postgresTestUrl,
  requirePostgres,
} from "../../src/index.js";
import { describeStoreContract } from "./store-contract.js";

const baseUrl = postgresTestUrl();

// The contract with group commit on (off by default on Postgres): two writers, so batches also
// run beside each other and meet on row locks, as several server processes' batches would.
if (baseUrl) {
  describeStoreContract("postgres, group commit", async () => {
    const fresh = await createFreshPostgresDatabase(baseUrl);
    const store = createPostgresStore({
      connectionString: fresh.url,
      poolSize: 10,
      groupCommit: { maxBatch: 32, maxWaitMs: 0, writers: 2 },
    });
    await store.migrate();
    return {
      kind: "postgres",
      uow: store.uow,
      close: async () => {
        await store.close();
        await fresh.drop();
      },
    };
  });
} else if (requirePostgres()) {
  describe("store contract: postgres, group commit", () => {
    it("needs WALLET_TEST_POSTGRES_URL", () => {
      throw new Error("WALLET_TEST_REQUIRE_POSTGRES=1 but WALLET_TEST_POSTGRES_URL is not set");
    });
  });
} else {
  console.log("Postgres group-commit suite skipped: set WALLET_TEST_POSTGRES_URL to run it");
  describe.skip("store contract: postgres, group commit", () => {
    it("runs against a fresh Postgres database", () => {});
  });
}
