import {
  activateDueMandates,
  type CoreDeps,
  expireDueMandates,
  expireTopups,
  isDomainError,
  type Tx,
  type UnitOfWork,
} from "@wallet/ledger-core";
import type { WebhookDispatcher } from "@wallet/webhooks";
import type { WalletConfig } from "../config/schema.js";
import { applySandboxPayoutOutcomes, autoOutcomeRules } from "./sandbox-payouts.js";
import type { ScheduledJob } from "./scheduler.js";

/** The server's jobs, by the name `POST /admin/jobs/{job}/run` uses. */
export const jobNames = [
  "activate-mandates",
  "expire-mandates",
  "expire-topups",
  "deliver-webhooks",
  "sandbox-payout-outcomes",
] as const;
export type JobName = (typeof jobNames)[number];

type BatchJob = (deps: CoreDeps, tx: Tx, asOfIso: string, limit: number) => Promise<number>;

export const batchJobs: Record<"activate-mandates" | "expire-mandates" | "expire-topups", BatchJob> = {
  "activate-mandates": activateDueMandates,
  "expire-mandates": expireDueMandates,
  "expire-topups": expireTopups,
};

export interface JobLimits {
  /** Items one transaction moves: short transactions, so a job never holds locks for long. */
  batchSize: number;
  /** Batches one run takes at most; the next run takes the rest. */
  batchesMax: number;
}

export const defaultJobLimits: JobLimits = { batchSize: 100, batchesMax: 20 };

/** Default pause between two runs of each periodic job (the webhook dispatcher has its own, 1 s). */
export const defaultJobIntervalMs = 5_000;

/**
 * Runs one batch job as of `asOf`: batches of `batchSize`, each its own transaction, until one
 * comes back short or `batchesMax` ran. The jobs select only what is due and re-check each item,
 * so a second run processes nothing; on Postgres a batch that raced another process on the same
 * rows fails with Conflict (optimistic row versions) and rolls back whole, and the run stops
 * there: the other process did that work, and the next run takes whatever is left.
 */
export async function runBatchJob(
  uow: UnitOfWork,
  core: CoreDeps,
  job: BatchJob,
  asOf: Date,
  limits: JobLimits = defaultJobLimits,
): Promise<number> {
  const asOfIso = asOf.toISOString();
  let processed = 0;
  for (let i = 0; i < limits.batchesMax; i++) {
    let moved: number;
    try {
      moved = await uow.run((tx) => job(core, tx, asOfIso, limits.batchSize));
    } catch (e) {
      if (isDomainError(e) && e.code === "Conflict") break;
      throw e;
    }
    processed += moved;
    if (moved < limits.batchSize) break;
  }
  return processed;
}

export interface JobContext {
  uow: UnitOfWork;
  core: CoreDeps;
  config: WalletConfig;
  dispatcher: WebhookDispatcher;
  limits?: JobLimits;
}

/**
 * Runs a job now, as of `asOf` (the operator's `POST /admin/jobs/{job}/run`; the adapter checks
 * that `asOf` is only given in sandbox mode). Returns how many items it processed, or null for a
 * job this server does not know. deliver-webhooks ignores `asOf`: delivery always runs on the
 * clock (`processed` = delivered + retried + failed).
 */
export async function runJob(context: JobContext, job: string, asOf: Date): Promise<number | null> {
  const { uow, core, config, dispatcher } = context;
  switch (job) {
    case "activate-mandates":
    case "expire-mandates":
    case "expire-topups":
      return runBatchJob(uow, core, batchJobs[job], asOf, context.limits);
    case "deliver-webhooks": {
      const c = await dispatcher.drain();
      return c.delivered + c.retried + c.failed;
    }
    case "sandbox-payout-outcomes":
      return applySandboxPayoutOutcomes(uow, core, autoOutcomeRules(config), asOf);
    default:
      return null;
  }
}

/**
 * The periodic jobs of a server process (DESIGN.md 4.5), each every `intervalMs`. The webhook
 * dispatcher is not among them: it runs on its own timer (`dispatcher.start`). The sandbox
 * payout job is only scheduled when a rail has an automatic outcome.
 */
export function builtInJobs(context: JobContext, intervalMs = defaultJobIntervalMs): ScheduledJob[] {
  const names: JobName[] = ["activate-mandates", "expire-mandates", "expire-topups"];
  if (autoOutcomeRules(context.config).length > 0) names.push("sandbox-payout-outcomes");
  return names.map((name) => ({
    name,
    intervalMs,
    run: async (now) => (await runJob(context, name, now)) ?? 0,
  }));
}
