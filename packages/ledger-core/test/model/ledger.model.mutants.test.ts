import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Tx, UnitOfWork } from "../../src/index.js";
import { commandArbitraries, seedCustomers } from "./commands.js";
import { memoryHarness } from "./memory-harness.js";
import { initialModel } from "./oracle.js";
import { createReal } from "./world.js";

/**
 * The model must be able to fail: each mutant below breaks one guarantee behind the ports (the
 * product code is untouched), and the same commands, oracle and invariants must catch it.
 */
const mutants: Record<string, (tx: Tx) => Tx> = {
  // Exactly-once: every request runs again, as if no key had ever been stored.
  "idempotency keys forgotten": (tx) => ({
    ...tx,
    idempotency: {
      ...tx.idempotency,
      claim: async (record) => {
        await tx.idempotency.claim(record);
        return { kind: "claimed" };
      },
    },
  }),
  // Conservation of the customer's money: a failed payout keeps its refundable charges.
  "failed payout keeps the refundable charges": (tx) => ({
    ...tx,
    ledger: {
      ...tx.ledger,
      post: (j) =>
        tx.ledger.post(
          j.kind === "payout_release" ? { ...j, entries: j.entries.filter((e) => e.label === "amount") } : j,
        ),
    },
  }),
  // A held intent's payment applied as its match: the charges it quoted are taken.
  "held intent applied without its charges": (tx) => ({
    ...tx,
    ledger: {
      ...tx.ledger,
      post: (j) =>
        tx.ledger.post(
          j.kind === "suspense_apply" ? { ...j, entries: j.entries.filter((e) => e.label === "amount") } : j,
        ),
    },
  }),
  // A reversed top-up applied from suspense reopens its item (the money is back on suspense).
  "suspense item not reopened by a reversal": (tx) => ({
    ...tx,
    suspense: {
      ...tx.suspense,
      update: async (item) => (item.status === "open" ? undefined : tx.suspense.update(item)),
    },
  }),
  // No overdraft: debits see 50 000 more than the wallet holds (the stores' own CHECK still stops
  // the worst; the model sees the answer differ first).
  "wallet balance over-reported to the debit checks": (tx) => ({
    ...tx,
    ledger: {
      ...tx.ledger,
      lockAccounts: async (currency, keys) => {
        const balances = await tx.ledger.lockAccounts(currency, keys);
        for (const k of keys) if (/^wallet:[^:]+$/.test(k)) balances.set(k, (balances.get(k) ?? 0) + 50_000);
        return balances;
      },
    },
  }),
};

describe("ledger model catches a broken ledger", () => {
  for (const [name, mutate] of Object.entries(mutants)) {
    it(name, { timeout: 60_000 }, async () => {
      const result = await fc.check(
        fc.asyncProperty(fc.commands(commandArbitraries, { maxCommands: 40, size: "max" }), async (cmds) => {
          const harness = await memoryHarness();
          const uow: UnitOfWork = {
            run: (work) => harness.uow.run((tx) => work(mutate(tx))),
            autocommit: (work) => harness.uow.autocommit((tx) => work(mutate(tx))),
          };
          const real = await createReal({ ...harness, uow });
          const model = initialModel();
          await seedCustomers(model, real);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
        }),
        { numRuns: 300, seed: 8 },
      );
      expect(result.failed, `the model did not notice: ${name}`).toBe(true);
    });
  }
});
