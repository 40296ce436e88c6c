import { afterAll, describe, expect, it } from "vitest";
import { runLedgerModel } from "../../../ledger-core/test/model/run-ledger-model.js";
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

describe("ledger model (SQLite)", () => {
  it("keeps every invariant over random command sequences", { timeout: 120_000 }, async () => {
    const sqlite = await sqliteHarnessFactory();
    disposals.push(sqlite.dispose);
    const started = Date.now();
    const runs = await runLedgerModel(sqlite.factory, { numRuns: 200, maxCommands: 30 });
    console.info(`ledger model (sqlite): ${runs} runs in ${Date.now() - started} ms`);
    expect(runs).toBeGreaterThan(0);
  });
});
