import type { CoreDeps } from "../app/context.js";
import { emitEvent } from "../events/emit.js";
import { accountKeys } from "../ledger/accounts.js";
import { transitionOperation } from "../operations/lifecycle.js";
import { toOperationView } from "../operations/views.js";
import { invariant } from "../shared/errors.js";
import { jobBatchAsOf } from "../shared/job-batch.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { dropQuotedCharges } from "./model.js";

/** Most intents one run may expire; the scheduler runs again for the rest. */
export const EXPIRE_TOPUPS_LIMIT_MAX = 1000;

/**
 * Job expire-topups: intents still pending_provider whose expiresAt <= asOf become failed, with
 * provider state failed (the provider will not pay against them any more), no charges (none were
 * taken) and event topup.expired.
 * Idempotent: an intent already completed or failed is skipped. Returns how many expired.
 *
 * A payment racing the expiry: both lock the intent's wallet (its row, then its accounts) before
 * reading the intent again, so whichever goes first wins and the other sees its outcome. A payment
 * that arrived in time and waits for its wallet (held by a KYC decision, say) is ahead of the job
 * in the row's queue, so it completes the intent and the job leaves it; a later payment goes to
 * suspense as expired.
 */
export async function expireTopups(deps: CoreDeps, tx: Tx, asOfIso: string, limit: number): Promise<number> {
  const asOfStored = jobBatchAsOf(asOfIso, limit, EXPIRE_TOPUPS_LIMIT_MAX);
  const asOf = Date.parse(asOfStored);
  let expired = 0;
  const dueList = await tx.operations.listExpiredTopups(asOfStored, limit);
  // All the wallets first, their rows (as a payment reads its wallet with a share lock before
  // anything else) and then their accounts, each in one order (by uid; currency by currency),
  // rather than one by one in the list's order, which another transaction locking two of them
  // could take the other way round.
  const walletsByCurrency = new Map<string, string[]>();
  const walletRows = new Map<string, string>();
  for (const due of dueList) {
    invariant(due.destinationWalletUid, "an intent names its wallet");
    const keys = walletsByCurrency.get(due.currency) ?? [];
    keys.push(accountKeys.wallet(due.destinationWalletUid));
    walletsByCurrency.set(due.currency, keys);
    walletRows.set(due.destinationWalletUid, due.tenantId);
  }
  for (const walletUid of [...walletRows.keys()].sort()) {
    await tx.wallets.getForUpdate(walletRows.get(walletUid) as string, walletUid);
  }
  for (const currency of [...walletsByCurrency.keys()].sort()) {
    await tx.ledger.lockAccounts(currency, walletsByCurrency.get(currency) ?? []);
  }
  for (const due of dueList) {
    const op = await tx.operations.get(due.tenantId, due.uid);
    if (op?.state !== "pending_provider" || op.expiresAt === null || Date.parse(op.expiresAt) > asOf) {
      continue;
    }
    const tenant = await tx.tenants.get(op.tenantId);
    invariant(tenant, "an operation's tenant exists");
    const at = iso(deps.clock.now());
    if (op.provider) op.provider = { ...op.provider, state: "failed", lastUpdatedAt: at };
    dropQuotedCharges(op);
    await transitionOperation(tx, op, "failed", at, "system");
    await emitEvent(deps, tx, tenant, "topup.expired", op.uid, "operation", toOperationView(op), at);
    expired++;
  }
  return expired;
}
