import { createMemoryStore } from "@wallet/ledger-core/memory";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("memory", async () => ({
  kind: "memory",
  uow: createMemoryStore().uow,
  close: async () => {},
}));
