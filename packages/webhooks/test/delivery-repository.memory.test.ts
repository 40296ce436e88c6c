import { createMemoryStore } from "@wallet/ledger-core/memory";
import { describeDeliveryRepositoryContract } from "./delivery-repository-contract.js";

describeDeliveryRepositoryContract("memory", async () => ({ uow: createMemoryStore().uow }));
