import type { ErrorCode } from "../shared/errors.js";
import { invariant } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import { isWalletAccount } from "./accounts.js";
import type { Journal } from "./journal.js";
import { assertCovered } from "./journal.js";

/**
 * The last step of a use case that moves money: locks the shared accounts the journal moves
 * (prefund, fees, tax, beneficiaries, rail clearing, ...: every account `locked` does not hold),
 * checks that no protected account goes below zero, and posts.
 *
 * Every request of a tenant needs those rows, so they are locked here, after the use case has done
 * all its other reads and writes: on Postgres they stay locked for this statement, the posting
 * and COMMIT only. `locked` holds what the use case locked first (its wallet's accounts); a wallet
 * account it did not lock would be locked after a shared one, against the lock order.
 */
export async function lockSharedAndPost(
  tx: Tx,
  journal: Journal,
  locked: ReadonlyMap<string, number>,
  codeFor: (accountKey: string) => ErrorCode,
): Promise<void> {
  const shared = [...new Set(journal.entries.map((e) => e.accountKey))].filter((k) => !locked.has(k));
  invariant(!shared.some(isWalletAccount), "wallet accounts are locked before the shared ones");
  const balances = new Map(locked);
  if (shared.length > 0) {
    for (const [key, balance] of await tx.ledger.lockAccounts(journal.currency, shared)) {
      balances.set(key, balance);
    }
  }
  assertCovered(balances, journal.entries, codeFor);
  await tx.ledger.post(journal);
}
