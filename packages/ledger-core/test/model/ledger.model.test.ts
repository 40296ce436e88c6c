import { describe, expect, it } from "vitest";
import { outcomeTally } from "./commands.js";
import { memoryHarness } from "./memory-harness.js";
import { modelTimeoutMs, runLedgerModel } from "./run-ledger-model.js";

/** Runs by default; `FC_NUM_RUNS` overrides it (and the timeout grows with it). */
const RUNS = 1500;

/**
 * Model-based test of the ledger's use cases on the in-memory adapters (the SQLite and Postgres
 * runs of the same model live in packages/persistence/test/model). Each run: random onboarding,
 * credits, debits (with assertion and under a mandate), payouts and their results, top-ups with
 * payments and expiry, held intents and suspense items the operator refunds, applies or reverses,
 * KYC changes, status changes, replays and reused keys; after every command
 * the invariants and the model's balances are checked (see invariants.ts).
 */
describe("ledger model (memory)", () => {
  it("keeps every invariant over random command sequences", { timeout: modelTimeoutMs(RUNS) }, async () => {
    const started = Date.now();
    const runs = await runLedgerModel(memoryHarness, { numRuns: RUNS, maxCommands: 40 });
    console.info(`ledger model (memory): ${runs} runs in ${Date.now() - started} ms`);
    // What the runs exercised (route:expected answer), so a generator that stops reaching a case shows.
    const covered = [...outcomeTally.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    console.info(covered.map(([what, n]) => `${what}=${n}`).join(" "));
    expect(runs).toBeGreaterThan(0);
  });
});
