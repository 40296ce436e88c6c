import { freshSqliteStore } from "../support/fresh-stores.js";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("sqlite", async () => ({ kind: "sqlite", ...(await freshSqliteStore()) }));
