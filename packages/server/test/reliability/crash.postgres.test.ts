import { createFreshPostgresDatabase, postgresTestUrl, requirePostgres } from "@wallet/persistence";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runCrashScenario } from "./support/crash-scenario.js";
import { ensureServerBuilt, killStartedServers } from "./support/server-process.js";

/** kill -9 during a write load on Postgres, restart on the same database: see crash-scenario.ts. */
const pgUrl = postgresTestUrl();
if (pgUrl === null) {
  if (requirePostgres())
    throw new Error("WALLET_TEST_REQUIRE_POSTGRES=1 but WALLET_TEST_POSTGRES_URL is not set");
  console.info("crash test (postgres): WALLET_TEST_POSTGRES_URL is not set; skipped");
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await killStartedServers();
  for (const c of cleanups) await c();
});

describe.skipIf(pgUrl === null)("crash safety on Postgres", () => {
  beforeAll(() => ensureServerBuilt(), 200_000);

  it("loses no acknowledged write and delivers every event after kill -9", { timeout: 180_000 }, async () => {
    const fresh = await createFreshPostgresDatabase(pgUrl ?? "");
    cleanups.push(() => fresh.drop());
    await runCrashScenario({ databaseUrl: fresh.url, crashes: 3, workers: 6, drainTimeoutMs: 90_000 });
  });
});
