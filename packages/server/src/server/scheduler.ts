import { errorLogFields } from "@wallet/http-adapter";
import type { Clock } from "@wallet/ledger-core";
import type { Logger } from "./logger.js";

/**
 * A periodic job of the server process (activate/expire mandates, expire top-ups, deliver
 * webhooks). Jobs must be idempotent and safe on several processes at once: the scheduler only
 * decides *when* to call them, never assumes it is alone.
 */
export interface ScheduledJob {
  name: string;
  /** Pause between the end of one run and the start of the next (runs never overlap). */
  intervalMs: number;
  /** Returns how many items it processed (logged when above zero). */
  run(now: Date): Promise<number | undefined>;
}

export interface Scheduler {
  /** Stops scheduling and waits for runs in flight. */
  stop(): Promise<void>;
}

/** Runs each job on its own timer; a failing run is logged and retried at the next tick. */
export function startScheduler(
  jobs: readonly ScheduledJob[],
  options: { clock: Clock; logger: Logger },
): Scheduler {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();

  const schedule = (job: ScheduledJob) => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const running = tick(job).finally(() => {
        inFlight.delete(running);
        schedule(job);
      });
      inFlight.add(running);
    }, job.intervalMs);
    timers.add(timer);
  };

  const tick = async (job: ScheduledJob) => {
    try {
      const processed = await job.run(options.clock.now());
      if (processed !== undefined && processed > 0)
        options.logger.info({ job: job.name, processed }, "job ran");
    } catch (e) {
      options.logger.error({ job: job.name, err: errorLogFields(e) }, "job failed");
    }
  };

  for (const job of jobs) {
    if (!Number.isSafeInteger(job.intervalMs) || job.intervalMs < 10) {
      throw new RangeError(`job ${job.name}: intervalMs must be an integer >= 10`);
    }
    schedule(job);
  }

  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([...inFlight]);
    },
  };
}
