import { createFreshPostgresDatabase, postgresUrlFor } from "@wallet/persistence";
import { afterAll, beforeAll, describe, it } from "vitest";
import { runCrashScenario } from "./support/crash-scenario.js";
import { ensureServerBuilt, killStartedServers } from "./support/server-process.js";

/** kill -9 during a write load on Postgres, restart on the same database: see crash-scenario.ts. */
const pgUrl = postgresUrlFor("crash test");

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
