import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@wallet/persistence";
import { beforeAll, describe, expect, it } from "vitest";
import { cliPath, ensureServerBuilt } from "./support/server-process.js";

/** `wallet migrate --db <url>` in a process of its own: its exit code and what it printed. */
function migrateProcess(databaseUrl: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, "migrate", "--db", databaseUrl], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      output += d.toString();
    });
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("processes opening one new SQLite file at once", () => {
  beforeAll(() => ensureServerBuilt(), 200_000);

  // Kysely takes no migration lock on SQLite: two processes both created the tables and one
  // failed ("table tenants already exists"), most rounds. The migrations hold the write lock now.
  it("all migrate it: one creates the schema, the others wait and find nothing to do", async () => {
    for (let round = 0; round < 3; round++) {
      const file = join(mkdtempSync(join(tmpdir(), "wallet-first-start-")), "wallet.db");
      const runs = await Promise.all([1, 2, 3].map(() => migrateProcess(`sqlite:${file}`)));
      expect(runs.map((r) => [r.code, r.output.trim().split("\n")[0]])).toEqual(
        runs.map(() => [0, `migrated sqlite:${file}`]),
      );
      // The schema is whole: the store reads it, and another migration finds nothing to do.
      const store = await openStore(`sqlite:${file}`);
      try {
        expect(await store.uow.run((tx) => tx.tenants.list())).toEqual([]);
        await store.migrate();
      } finally {
        await store.close();
      }
    }
  }, 120_000);
});
