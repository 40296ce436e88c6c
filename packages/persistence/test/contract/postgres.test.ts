import { describe, it } from "vitest";
import { postgresTestUrl, requirePostgres } from "../../src/index.js";
import { freshPostgresStore } from "../support/fresh-stores.js";
import { describeStoreContract } from "./store-contract.js";

const baseUrl = postgresTestUrl();

if (baseUrl) {
  describeStoreContract("postgres", async () => ({
    kind: "postgres",
    ...(await freshPostgresStore(baseUrl, { poolSize: 10 })),
  }));
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
