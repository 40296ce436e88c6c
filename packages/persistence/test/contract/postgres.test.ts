import { describe, it } from "vitest";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  postgresTestUrl,
  requirePostgres,
} from "../../src/index.js";
import { describeStoreContract } from "./store-contract.js";

const baseUrl = postgresTestUrl();

if (baseUrl) {
  describeStoreContract("postgres", async () => {
    const fresh = await createFreshPostgresDatabase(baseUrl);
    const store = createPostgresStore({ connectionString: fresh.url, poolSize: 10 });
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
  describe("store contract: postgres", () => {
    it("needs WALLET_TEST_POSTGRES_URL", () => {
      throw new Error("WALLET_TEST_REQUIRE_POSTGRES=1 but WALLET_TEST_POSTGRES_URL is not set");
    });
  });
} else {
  console.log("Postgres suite skipped: set WALLET_TEST_POSTGRES_URL to run it");
  describe.skip("store contract: postgres", () => {
    it("runs against a fresh Postgres database", () => {});
  });
}
