import type { CoreDeps } from "../app/context.js";
import { activateDueMandates, expireDueMandates } from "../mandates/mandate-jobs.js";
import { assertCount, assertOneOf, isDomainError } from "../shared/errors.js";
import { jobBatchAsOf } from "../shared/job-batch.js";
import type { Tx, UnitOfWork } from "../store/unit-of-work.js";
import { expireTopups } from "../topups/expire-topups.js";

/** The jobs that move what has fallen due, by the name `POST /admin/jobs/{job}/run` uses. */
export const dueJobNames = ["activate-mandates", "expire-mandates", "expire-topups"] as const;
export type DueJobName = (typeof dueJobNames)[number];

/** One batch of a due job: at most `limit` items as of `asOfIso`, in the caller's transaction. */
export type DueJobBatch = (deps: CoreDeps, tx: Tx, asOfIso: string, limit: number) => Promise<number>;

const dueJobs: Readonly<Record<DueJobName, DueJobBatch>> = {
  "activate-mandates": activateDueMandates,
  "expire-mandates": expireDueMandates,
  "expire-topups": expireTopups,
};

/** Whether `name` is a due job's (a name such as `constructor` is not). */
export function isDueJobName(name: string): name is DueJobName {
  return (dueJobNames as readonly string[]).includes(name);
}

export interface DueJobLimits {
  /** Items one transaction moves: short transactions, so a job never holds locks for long. */
  batchSize: number;
  /** Batches one run takes at most; the next run takes the rest. */
  batchesMax: number;
}

/** What the scheduler's runs take: 20 batches of 100. */
export const defaultDueJobLimits: DueJobLimits = { batchSize: 100, batchesMax: 20 };

/**
 * Runs the due job `name` as of `asOfIso`: batches of `batchSize`, each its own transaction, until
 * one comes back short or `batchesMax` ran. Returns how many items moved. The jobs select only
 * what is due and re-check each item, so a second run at the same instant moves nothing. On
 * Postgres a batch that raced another process on the same rows fails with `Conflict` (optimistic
 * row versions) and rolls back whole, and the run stops there: the other process did that work,
 * and the next run takes whatever is left.
 */
export async function runDueJob(
  uow: UnitOfWork,
  deps: CoreDeps,
  name: DueJobName,
  asOfIso: string,
  limits: DueJobLimits = defaultDueJobLimits,
): Promise<number> {
  // From an embedder's untyped input: refused (400) before the first batch, not a TypeError.
  assertOneOf("job", name, dueJobNames);
  assertCount("batchesMax", limits?.batchesMax);
  jobBatchAsOf(asOfIso, limits.batchSize);
  const batch = dueJobs[name];
  let processed = 0;
  for (let i = 0; i < limits.batchesMax; i++) {
    let moved: number;
    try {
      moved = await uow.run((tx) => batch(deps, tx, asOfIso, limits.batchSize));
    } catch (e) {
      if (isDomainError(e) && e.code === "Conflict") break;
      throw e;
    }
    processed += moved;
    if (moved < limits.batchSize) break;
  }
  return processed;
}
