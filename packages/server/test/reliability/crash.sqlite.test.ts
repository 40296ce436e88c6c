import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runCrashScenario } from "./support/crash-scenario.js";
import { ensureServerBuilt, killStartedServers } from "./support/server-process.js";

/** kill -9 during a write load on SQLite (WAL), restart on the same file: see crash-scenario.ts. */
const dir = mkdtempSync(join(tmpdir(), "wallet-crash-sqlite-"));
afterAll(async () => {
  await killStartedServers();
  rmSync(dir, { recursive: true, force: true });
});
beforeAll(() => ensureServerBuilt(), 200_000);

describe("crash safety on SQLite", () => {
  it("loses no acknowledged write and delivers every event after kill -9", { timeout: 180_000 }, async () => {
    await runCrashScenario({
      databaseUrl: `sqlite:${join(dir, "wallet.db")}`,
      crashes: 3,
      workers: 6,
      drainTimeoutMs: 90_000,
    });
  });
});
