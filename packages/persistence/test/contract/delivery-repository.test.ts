import { describeDeliveryRepositoryContract } from "../../../webhooks/test/delivery-repository-contract.js";
import { postgresTestUrl } from "../../src/index.js";
import { freshPostgresStore, freshSqliteStore } from "../support/fresh-stores.js";

// The webhook dispatcher's DeliveryRepository contract (written with the dispatcher, run there on
// the memory store) on the SQL stores. Without WALLET_TEST_POSTGRES_URL the Postgres half is not
// registered; postgres.test.ts reports the skip (or fails when Postgres is required).

describeDeliveryRepositoryContract("sqlite", () => freshSqliteStore());

const baseUrl = postgresTestUrl();
if (baseUrl)
  describeDeliveryRepositoryContract("postgres", () => freshPostgresStore(baseUrl, { poolSize: 4 }));
