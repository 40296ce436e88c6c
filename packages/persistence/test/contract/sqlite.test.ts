import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "../../src/index.js";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wallet-contract-"));
  const store = createSqliteStore({ filename: join(dir, "nested", "wallet.db") });
  await store.migrate();
  return {
    kind: "sqlite",
    uow: store.uow,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
