import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore } from "../../src/index.js";
import { describeStoreContract } from "./store-contract.js";

// SQLite commits in groups by default (sqlite.test.ts); this runs the contract with group commit
// off, one transaction per unit of work, as `groupCommit: false` configures it.
describeStoreContract("sqlite, one transaction per unit of work", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wallet-contract-"));
  const store = createSqliteStore({ filename: join(dir, "wallet.db"), groupCommit: false });
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
