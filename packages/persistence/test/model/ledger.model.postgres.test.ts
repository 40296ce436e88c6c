import { afterAll, describe, expect, it } from "vitest";
import { modelTimeoutMs, runLedgerModel } from "../../../ledger-core/test/model/run-ledger-model.js";
import { postgresUrlFor } from "../../src/index.js";
import { postgresHarnessFactory } from "./sql-harness.js";

/**
 * The ledger model on Postgres: fewer runs than memory and SQLite (each command costs a few
 * round trips and commits), same commands, same oracle, same invariants.
 */
const pgUrl = postgresUrlFor("ledger model");

const disposals: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const dispose of disposals) await dispose();
});

/** Runs by default; `FC_NUM_RUNS` overrides it (and the timeout grows with it). */
const RUNS = 15;

describe("ledger model (Postgres)", () => {
  it.skipIf(pgUrl === null)(
    "keeps every invariant over random command sequences",
    { timeout: modelTimeoutMs(RUNS) },
    async () => {
      const postgres = await postgresHarnessFactory(pgUrl ?? "");
      disposals.push(postgres.dispose);
      const started = Date.now();
      const runs = await runLedgerModel(postgres.factory, { numRuns: RUNS, maxCommands: 25 });
      console.info(`ledger model (postgres): ${runs} runs in ${Date.now() - started} ms`);
      expect(runs).toBeGreaterThan(0);
    },
  );
});
