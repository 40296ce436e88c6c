import type { IdempotencyCompletion } from "../idempotency/model.js";
import type { ErrorCode } from "../shared/errors.js";
import { invariant } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import { inLockOrder, isWalletAccount } from "./accounts.js";
import type { Journal } from "./journal.js";
import { AccountNotCoveredError, assertCovered, refuseUncovered } from "./journal.js";

/**
 * The last step of a use case that moves money: locks the shared accounts the journal moves
 * (prefund, fees, tax, beneficiaries, rail clearing, ...: every account `locked` does not hold),
 * checks that no protected account goes below zero, and posts.
 *
 * Every request of a tenant needs those rows, so they are locked here, after the use case has done
 * all its other reads and writes, and the last of them (in lock order; for a plain credit, the
 * prefund is the only one) is locked by the posting statement itself, which checks it under that
 * lock: on Postgres the hottest row stays locked for the posting and COMMIT only. `locked` holds
 * what the use case locked first (its wallet's accounts); a wallet account it did not lock would
 * be locked after a shared one, against the lock order.
 */
export async function lockSharedAndPost(
  tx: Tx,
  journal: Journal,
  locked: ReadonlyMap<string, number>,
  codeFor: (accountKey: string) => ErrorCode,
): Promise<void> {
  const deferred = deferredPostings.get(tx);
  if (deferred) {
    deferred.push({ journal, locked, codeFor });
    return;
  }
  await postNow(tx, { journal, locked, codeFor }, null);
}

/** A posting `postingsLast` holds back: `lockSharedAndPost`'s arguments. */
interface DeferredPosting {
  journal: Journal;
  locked: ReadonlyMap<string, number>;
  codeFor: (accountKey: string) => ErrorCode;
}

/** Postings `postingsLast` holds back, per transaction. */
const deferredPostings = new WeakMap<Tx, DeferredPosting[]>();

/**
 * Runs a use case whose last step is `lockSharedAndPost` (every write route's), then stores its
 * answer (`answer`), then the postings it held back, in order: in an idempotent write the stored
 * answer is written before the shared accounts are locked, so the hottest rows (a tenant's
 * prefund) stay locked for the posting and COMMIT only. The answer goes with the first posting
 * (`ledger.completeAndPost`: one round trip on Postgres) when nothing is locked between them.
 * A refused posting still fails the whole unit of work.
 *
 * Returns the use case's value, or `lost` when the answer was not stored (the claim is no longer
 * the key's): the unit of work must then fail.
 *
 * Only for work that reads nothing its postings change (they come last in every use case).
 */
export async function postingsLast<T>(
  tx: Tx,
  work: (tx: Tx) => Promise<T>,
  answer: (value: T) => IdempotencyCompletion,
): Promise<{ value: T; lost: boolean }> {
  invariant(!deferredPostings.has(tx), "postingsLast does not nest");
  const deferred: DeferredPosting[] = [];
  deferredPostings.set(tx, deferred);
  let value: T;
  try {
    value = await work(tx);
  } finally {
    deferredPostings.delete(tx);
  }
  let completion: IdempotencyCompletion | null = answer(value);
  if (deferred.length === 0) {
    const { tenantId, key, claimedAt, response } = completion;
    return { value, lost: !(await tx.idempotency.complete(tenantId, key, claimedAt, response)) };
  }
  for (const posting of deferred) {
    if (!(await postNow(tx, posting, completion))) return { value, lost: true };
    completion = null;
  }
  return { value, lost: false };
}

/**
 * Locks the posting's shared accounts and posts it; with `completion`, stores that answer first
 * (with the posting when nothing is locked in between). False when the answer was not stored.
 */
async function postNow(
  tx: Tx,
  { journal, locked, codeFor }: DeferredPosting,
  completion: IdempotencyCompletion | null,
): Promise<boolean> {
  // The distinct keys `locked` does not hold, in one pass (a plain credit has one: the prefund).
  const unlocked: string[] = [];
  for (const e of journal.entries) {
    if (!locked.has(e.accountKey) && !unlocked.includes(e.accountKey)) unlocked.push(e.accountKey);
  }
  const shared = unlocked.length > 1 ? inLockOrder(journal.currency, unlocked) : unlocked;
  invariant(!shared.some(isWalletAccount), "wallet accounts are locked before the shared ones");
  let balances = locked;
  if (shared.length > 1) {
    // Shared accounts locked before the posting: the answer is stored before them, as it stands.
    if (completion !== null) {
      const { tenantId, key, claimedAt, response } = completion;
      if (!(await tx.idempotency.complete(tenantId, key, claimedAt, response))) return false;
      completion = null;
    }
    const more = new Map(locked);
    for (const [key, balance] of await tx.ledger.lockAccounts(journal.currency, shared.slice(0, -1))) {
      more.set(key, balance);
    }
    balances = more;
  }
  // The accounts whose balance is known are checked here; the last shared one by the posting.
  const last = shared.at(-1);
  try {
    assertCovered(
      balances,
      journal.entries.filter((e) => e.accountKey !== last),
      codeFor,
    );
  } catch (e) {
    // Refused before the posting: the answer is stored first all the same, so that a claim lost
    // meanwhile still answers as lost, as when the answer was always stored first.
    if (completion !== null) {
      const { tenantId, key, claimedAt, response } = completion;
      if (!(await tx.idempotency.complete(tenantId, key, claimedAt, response))) return false;
    }
    throw e;
  }
  try {
    if (completion === null) await tx.ledger.post(journal);
    else if (!(await tx.ledger.completeAndPost(completion, journal))) return false;
  } catch (e) {
    if (e instanceof AccountNotCoveredError && e.accountKey === last) refuseUncovered(last, codeFor);
    throw e;
  }
  return true;
}
