import {
  type CoreDeps,
  type DueJobLimits,
  dueJobNames,
  isDueJobName,
  runDueJob,
  type UnitOfWork,
} from "@wallet/ledger-core";
import type { WebhookDispatcher } from "@wallet/webhooks";
import type { WalletConfig } from "../config/schema.js";
import {
  applySandboxPayoutOutcomes,
  autoOutcomeRules,
  defaultSandboxPayoutLimits,
  type SandboxPayoutCursor,
} from "./sandbox-payouts.js";
import type { ScheduledJob } from "./scheduler.js";

/** The server's jobs, by the name `POST /admin/jobs/{job}/run` uses: the core's due jobs and two of its own. */
export const jobNames = [...dueJobNames, "deliver-webhooks", "sandbox-payout-outcomes"] as const;
export type JobName = (typeof jobNames)[number];

/** Default pause between two runs of each periodic job (the webhook dispatcher has its own, 1 s). */
export const defaultJobIntervalMs = 5_000;

export interface JobContext {
  uow: UnitOfWork;
  core: CoreDeps;
  config: WalletConfig;
  dispatcher: WebhookDispatcher;
  /** Batches of the due jobs (the core's `defaultDueJobLimits` when absent). */
  limits?: DueJobLimits;
  /**
   * Where the scheduler's sandbox-payout-outcomes runs resume; absent (the operator's run), a run
   * reads every payout in flight.
   */
  sandboxPayoutCursor?: SandboxPayoutCursor;
}

/**
 * Runs a job now, as of `asOf` (the operator's `POST /admin/jobs/{job}/run`; the adapter checks
 * that `asOf` is only given in sandbox mode). Returns how many items it processed, or null for a
 * job this server does not know. deliver-webhooks ignores `asOf`: delivery always runs on the
 * clock (`processed` = delivered + retried + failed).
 */
export async function runJob(context: JobContext, job: string, asOf: Date): Promise<number | null> {
  const { uow, core, config, dispatcher } = context;
  if (isDueJobName(job)) return runDueJob(uow, core, job, asOf.toISOString(), context.limits);
  switch (job) {
    case "deliver-webhooks": {
      const c = await dispatcher.drain();
      return c.delivered + c.retried + c.failed;
    }
    case "sandbox-payout-outcomes": {
      const cursor = context.sandboxPayoutCursor;
      // Without the scheduler's cursor (the operator's run), every payout in flight is read.
      const limits =
        cursor === undefined
          ? { ...defaultSandboxPayoutLimits, pagesMax: Number.MAX_SAFE_INTEGER }
          : defaultSandboxPayoutLimits;
      return applySandboxPayoutOutcomes(uow, core, autoOutcomeRules(config), asOf, limits, cursor);
    }
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
  const names: JobName[] = [...dueJobNames];
  if (autoOutcomeRules(context.config).length > 0) names.push("sandbox-payout-outcomes");
  // This process's runs resume where the last one stopped.
  const scheduled: JobContext = { ...context, sandboxPayoutCursor: { after: undefined } };
  return names.map((name) => ({
    name,
    intervalMs,
    run: async (now) => (await runJob(scheduled, name, now)) ?? 0,
  }));
}
