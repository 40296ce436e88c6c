import { afterAll, describe, expect, it } from "vitest";
import { modelTimeoutMs, runLedgerModel } from "../../../ledger-core/test/model/run-ledger-model.js";
import { sqliteHarnessFactory } from "./sql-harness.js";

/**
 * The ledger model of packages/ledger-core/test/model, run unchanged on SQLite: the same random
 * command sequences, the same oracle, and the invariants read back from the tables through a
 * second connection after every command.
 */
const disposals: (() => void)[] = [];
afterAll(() => {
  for (const dispose of disposals) dispose();
});

/** Runs by default; `FC_NUM_RUNS` overrides it (and the timeout grows with it). */
const RUNS = 200;

describe("ledger model (SQLite)", () => {
  it("keeps every invariant over random command sequences", { timeout: modelTimeoutMs(RUNS) }, async () => {
    const sqlite = await sqliteHarnessFactory();
    disposals.push(sqlite.dispose);
    const started = Date.now();
    const runs = await runLedgerModel(sqlite.factory, { numRuns: RUNS, maxCommands: 30 });
    console.info(`ledger model (sqlite): ${runs} runs in ${Date.now() - started} ms`);
    expect(runs).toBeGreaterThan(0);
  });
});
