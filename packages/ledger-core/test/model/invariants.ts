import { getTrialBalance, listSuspense } from "../../src/index.js";
import type { Model } from "./oracle.js";
import type { LedgerSnapshot, Real } from "./world.js";

const isProtected = (key: string) => key.startsWith("wallet:") || /^tenant:.*:prefund$/.test(key);

/** A broken invariant: plain comparisons in the hot loop, a readable message when one fails. */
function must(ok: boolean, what: () => string): void {
  if (!ok) throw new Error(`invariant broken: ${what()}`);
}

/**
 * The ledger invariants of DESIGN.md section 2, read from the store's own tables, plus agreement
 * with the model. Run after every command:
 * - every journal has two or more non-zero integer entries summing to zero;
 * - every currency nets to zero over all entries (nothing invented or lost) and the trial
 *   balance says so too;
 * - every balance projection equals the fold of the journal entries of its account;
 * - wallets (available and held) and the prefund are never negative;
 * - the balances, the journal count and the operations (uid, state) equal the model's;
 * - so do the suspense items (status, amount, currency, tenant, the top-up an apply made).
 */
export async function checkInvariants(m: Model, r: Real, snapshot?: LedgerSnapshot): Promise<void> {
  const s = snapshot ?? (await r.harness.snapshot());
  const fold = new Map<string, number>();
  const netByCurrency = new Map<string, number>();
  for (const j of s.journals) {
    must(j.entries.length >= 2, () => `journal ${j.uid} has ${j.entries.length} entries`);
    let sum = 0;
    for (const e of j.entries) {
      must(
        Number.isSafeInteger(e.amountMinor) && e.amountMinor !== 0,
        () => `entry ${e.amountMinor} of ${j.uid}`,
      );
      sum += e.amountMinor;
      const id = `${e.accountKey}/${j.currency}`;
      fold.set(id, (fold.get(id) ?? 0) + e.amountMinor);
      netByCurrency.set(j.currency, (netByCurrency.get(j.currency) ?? 0) + e.amountMinor);
    }
    must(sum === 0, () => `journal ${j.uid} sums to ${sum}`);
  }
  for (const [currency, net] of netByCurrency) must(net === 0, () => `${currency} nets to ${net}`);

  const projected = new Map<string, number>();
  for (const a of s.accounts) {
    const id = `${a.accountKey}/${a.currency}`;
    projected.set(id, a.balanceMinor);
    must(
      a.balanceMinor === (fold.get(id) ?? 0),
      () => `projection of ${id} is ${a.balanceMinor}, the fold of its entries ${fold.get(id) ?? 0}`,
    );
    must(!isProtected(a.accountKey) || a.balanceMinor >= 0, () => `${id} is negative: ${a.balanceMinor}`);
  }
  for (const [id, total] of fold)
    must(projected.get(id) === total, () => `${id} has no projection of ${total}`);

  // The model: every account it knows, and no money anywhere it does not expect.
  for (const id of new Set([...m.balances.keys(), ...projected.keys()])) {
    const stored = projected.get(id) ?? 0;
    const expected = m.balances.get(id) ?? 0;
    must(stored === expected, () => `balance of ${id}: store ${stored}, model ${expected}`);
  }
  must(
    s.journals.length === m.journals,
    () =>
      `${s.journals.length} journals, the model expects ${m.journals} (a replay or a refusal posts nothing)`,
  );

  const ops = new Map(s.operations.map((o) => [o.uid, o]));
  must(ops.size === m.ops.size, () => `${ops.size} operations, the model acknowledged ${m.ops.size}`);
  for (const op of m.ops.values()) {
    const stored = ops.get(op.uid);
    must(
      stored?.state === op.state,
      () => `${op.type} ${op.uid} is ${stored?.state ?? "missing"}, not ${op.state}`,
    );
  }

  // Suspense items: each one the model opened, in the status it expects, applied as it expects.
  if (m.suspense.length > 0) {
    const listed = await r.uow.run((tx) => listSuspense(r.deps, tx, { limit: 1000 }));
    const items = new Map(listed.data.map((i) => [i.uid, i]));
    must(
      items.size === m.suspense.length,
      () => `${items.size} suspense items, the model expects ${m.suspense.length}`,
    );
    for (const item of m.suspense) {
      const stored = items.get(item.uid);
      const got = stored && [
        stored.status,
        stored.amountMinor,
        stored.currency,
        stored.tenantId,
        stored.resolution?.operationUid ?? null,
      ];
      const want = [item.status, item.amount, item.currency, item.tenantId, item.appliedOpUid];
      must(
        JSON.stringify(got) === JSON.stringify(want),
        () => `suspense item ${item.uid} is ${JSON.stringify(got ?? "missing")}, not ${JSON.stringify(want)}`,
      );
    }
  }

  const trial = await r.uow.run((tx) => getTrialBalance(tx));
  must(trial.balanced, () => `trial balance not balanced: ${JSON.stringify(trial.currencies)}`);
}
