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
    deferred.push(() => postNow(tx, journal, locked, codeFor));
    return;
  }
  await postNow(tx, journal, locked, codeFor);
}

/** Postings `postingsLast` holds back, per transaction. */
const deferredPostings = new WeakMap<Tx, (() => Promise<void>)[]>();

/**
 * Runs a use case whose last step is `lockSharedAndPost` (every write route's), then `before`,
 * then the postings it held back, in order: in an idempotent write the stored answer is written
 * before the shared accounts are locked, so the hottest rows (a tenant's prefund) stay locked for
 * the posting and COMMIT only. A refused posting still fails the whole unit of work.
 *
 * Only for work that reads nothing its postings change (they come last in every use case).
 */
export async function postingsLast<T>(
  tx: Tx,
  work: (tx: Tx) => Promise<T>,
  before: (value: T) => Promise<void>,
) {
  invariant(!deferredPostings.has(tx), "postingsLast does not nest");
  const deferred: (() => Promise<void>)[] = [];
  deferredPostings.set(tx, deferred);
  let value: T;
  try {
    value = await work(tx);
  } finally {
    deferredPostings.delete(tx);
  }
  await before(value);
  for (const post of deferred) await post();
  return value;
}

async function postNow(
  tx: Tx,
  journal: Journal,
  locked: ReadonlyMap<string, number>,
  codeFor: (accountKey: string) => ErrorCode,
): Promise<void> {
  // The distinct keys `locked` does not hold, in one pass (a plain credit has one: the prefund).
  const unlocked: string[] = [];
  for (const e of journal.entries) {
    if (!locked.has(e.accountKey) && !unlocked.includes(e.accountKey)) unlocked.push(e.accountKey);
  }
  const shared = unlocked.length > 1 ? inLockOrder(journal.currency, unlocked) : unlocked;
  invariant(!shared.some(isWalletAccount), "wallet accounts are locked before the shared ones");
  let balances = locked;
  if (shared.length > 1) {
    const more = new Map(locked);
    for (const [key, balance] of await tx.ledger.lockAccounts(journal.currency, shared.slice(0, -1))) {
      more.set(key, balance);
    }
    balances = more;
  }
  // The accounts whose balance is known are checked here; the last shared one by the posting.
  const last = shared.at(-1);
  assertCovered(
    balances,
    journal.entries.filter((e) => e.accountKey !== last),
    codeFor,
  );
  try {
    await tx.ledger.post(journal);
  } catch (e) {
    if (e instanceof AccountNotCoveredError && e.accountKey === last) refuseUncovered(last, codeFor);
    throw e;
  }
}
