import fc from "fast-check";
import { commandArbitraries, seedCustomers } from "./commands.js";
import { checkInvariants } from "./invariants.js";
import { initialModel } from "./oracle.js";
import { createReal, type HarnessFactory } from "./world.js";

export interface ModelRunOptions {
  numRuns: number;
  maxCommands: number;
}

/**
 * A failing run prints `seed` and `path` (fast-check does). Reproduce it with
 * `FC_SEED=<seed> FC_PATH=<path> pnpm vitest run --project <package> <file>`; `FC_NUM_RUNS`
 * overrides the run count (e.g. a long soak before a release).
 */
export function reproduction(): Pick<fc.Parameters<unknown>, "seed" | "path" | "endOnFailure"> {
  const seed = process.env.FC_SEED?.trim();
  const path = process.env.FC_PATH?.trim();
  return {
    ...(seed ? { seed: Number(seed) } : {}),
    ...(path ? { path, endOnFailure: true } : {}),
  };
}

export const numRunsFromEnv = (fallback: number): number => {
  const n = Number(process.env.FC_NUM_RUNS);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
};

/**
 * A model test's timeout: two minutes for its default `numRuns`, and as much more as `FC_NUM_RUNS`
 * asks for (a soak of ten times the runs gets twenty minutes, not a timeout).
 */
export const modelTimeoutMs = (defaultRuns: number): number =>
  120_000 * Math.max(1, numRunsFromEnv(defaultRuns) / defaultRuns);

/**
 * Random command sequences against a fresh store each run, checked against the model after every
 * command (see `checkInvariants`). Returns how many runs executed.
 */
export async function runLedgerModel(factory: HarnessFactory, options: ModelRunOptions): Promise<number> {
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.commands(commandArbitraries, { maxCommands: options.maxCommands, size: "max" }),
      async (cmds) => {
        runs++;
        const harness = await factory();
        try {
          const real = await createReal(harness);
          const model = initialModel();
          await checkInvariants(model, real);
          await seedCustomers(model, real);
          await fc.asyncModelRun(() => ({ model, real }), cmds);
        } finally {
          await harness.close();
        }
      },
    ),
    { numRuns: numRunsFromEnv(options.numRuns), ...reproduction() },
  );
  return runs;
}
