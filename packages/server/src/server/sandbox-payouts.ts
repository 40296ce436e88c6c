import {
  type CoreDeps,
  isDomainError,
  type Operation,
  type PayoutOutcome,
  reportPayoutResult,
  type UnitOfWork,
} from "@wallet/ledger-core";
import type { WalletConfig } from "../config/schema.js";

/** A sandbox rail whose payouts get an outcome without the operator (DESIGN.md 4.4). */
export interface AutoOutcomeRule {
  railCode: string;
  outcome: PayoutOutcome;
  delaySeconds: number;
}

/** The config's automatic-outcome rules: rails with `autoPayoutOutcome` set. */
export const autoOutcomeRules = (config: WalletConfig): AutoOutcomeRule[] =>
  config.rails.flatMap((r) =>
    r.autoPayoutOutcome === null
      ? []
      : [{ railCode: r.code, outcome: r.autoPayoutOutcome, delaySeconds: r.autoOutcomeDelaySeconds }],
  );

export interface SandboxPayoutLimits {
  /** Processing payouts read per page. */
  pageSize: number;
  /** Pages read per run (payouts not yet due or already uncertain are skipped, so they take room). */
  pagesMax: number;
  /** Outcomes applied per run; the next run takes the rest. */
  outcomesMax: number;
}

/**
 * Where the job's next run starts reading the payouts in flight (after this uid; the head of the
 * list when undefined), kept by each process's scheduler from one run to the next. Payouts that
 * never become due (on a rail the operator reports by hand) pass behind it instead of filling
 * every run's pages and hiding the due ones after them.
 */
export interface SandboxPayoutCursor {
  after: string | undefined;
}

export const defaultSandboxPayoutLimits: SandboxPayoutLimits = {
  pageSize: 100,
  pagesMax: 10,
  outcomesMax: 100,
};

/**
 * Job sandbox-payout-outcomes: every payout on a rule's rail that is still `processing` with
 * provider state `initiated` since at least the rule's delay (as of `asOf`) gets the rule's
 * outcome, through `reportPayoutResult` as if the rail had reported it. Returns how many moved.
 *
 * Safe on several processes: each outcome is its own transaction, and `reportPayoutResult` locks
 * the payout's accounts before reading its state, so a payout settled meanwhile (by another
 * process or the operator) is answered without posting; a Conflict (a contradicting result, or a
 * concurrent change) skips it.
 *
 * Candidates are the payouts still processing, across tenants, by uid from `cursor`
 * (`operations.listProcessingPayouts`, an index of the payouts in flight only: the history does
 * not slow it), filtered here by rail, provider state and delay; bounded by `limits`. The cursor
 * moves past what a run read and back to the head once the list ends.
 */
export async function applySandboxPayoutOutcomes(
  uow: UnitOfWork,
  core: CoreDeps,
  rules: readonly AutoOutcomeRule[],
  asOf: Date,
  limits: SandboxPayoutLimits = defaultSandboxPayoutLimits,
  cursor: SandboxPayoutCursor = { after: undefined },
): Promise<number> {
  if (rules.length === 0) return 0;
  const ruleOf = new Map(rules.map((r) => [r.railCode, r]));
  const isDue = (op: Operation) => {
    const rule = op.provider ? ruleOf.get(op.provider.railCode) : undefined;
    return (
      rule !== undefined &&
      op.provider?.state === "initiated" &&
      Date.parse(op.provider.lastUpdatedAt) <= asOf.getTime() - rule.delaySeconds * 1000
    );
  };

  // The cursor moves once the read has committed: a read run again (or failed) starts where the
  // last one that counted stopped.
  const { due, next } = await uow.run(async (tx) => {
    const found: Operation[] = [];
    let after = cursor.after;
    for (let page = 1; page <= limits.pagesMax; page++) {
      const data = await tx.operations.listProcessingPayouts(limits.pageSize, after);
      for (const op of data) {
        if (found.length >= limits.outcomesMax) return { due: found, next: after };
        after = op.uid;
        if (isDue(op)) found.push(op);
      }
      if (data.length < limits.pageSize) return { due: found, next: undefined };
    }
    return { due: found, next: after };
  });
  cursor.after = next;

  let applied = 0;
  for (const op of due) {
    const rule = ruleOf.get(op.provider?.railCode ?? "");
    if (rule === undefined) continue;
    try {
      await uow.run((tx) =>
        reportPayoutResult(core, tx, {
          railCode: rule.railCode,
          operationUid: op.uid,
          outcome: rule.outcome,
        }),
      );
      applied++;
    } catch (e) {
      if (isDomainError(e) && e.code === "Conflict") continue;
      throw e;
    }
  }
  return applied;
}
