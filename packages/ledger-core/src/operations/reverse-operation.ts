import type { CoreDeps } from "../app/context.js";
import { accountKeys, inLockOrder, isWalletAccount } from "../ledger/accounts.js";
import type { Entry } from "../ledger/journal.js";
import { netByAccount } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import { invariant, notFound, refuse } from "../shared/errors.js";
import { MAX_MINOR } from "../shared/money.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { readOperationDetail } from "./get-operation.js";
import { transitionOperation } from "./lifecycle.js";
import type { Operation } from "./model.js";
import type { OperationDetailView } from "./views.js";

/** The accounts of the wallets an operation moves (balance and hold of each), in lock order. */
function walletAccountsOf(op: Operation): string[] {
  const wallets = [op.sourceWalletUid, op.destinationWalletUid].filter((w): w is string => w !== null);
  return inLockOrder(
    op.currency,
    wallets.flatMap((w) => [accountKeys.wallet(w), accountKeys.walletHold(w)]),
  );
}

/**
 * A top-up the operator applied from suspense (a payment that matched no intent, or a held
 * intent's own payment) goes back to suspense when reversed: its item opens again, so the payment
 * can be refunded or applied to the right wallet (otherwise the money would sit on
 * `suspense:{rail}` with no open item to settle it).
 */
async function reopenAppliedSuspense(tx: Tx, op: Operation): Promise<void> {
  const suspenseUid = op.details?.suspenseUid ?? op.details?.heldSuspenseUid;
  if (typeof suspenseUid !== "string") return;
  const item = await tx.suspense.get(suspenseUid);
  invariant(
    item?.status === "applied" && item.resolution?.operationUid === op.uid,
    "the item this top-up applied",
  );
  await tx.suspense.update({ ...item, status: "open", resolvedAt: null, resolution: null });
}

/**
 * Refuses (422) a reversal after which a wallet's current balance (available + held) would pass
 * 2^53 - 1: each account stays within range by itself (the posting checks that), but their sum is
 * what the balance reads show, and a reversal is bound by no KYC maximum. Exact, in BigInt.
 */
function assertWalletsInRange(op: Operation, locked: ReadonlyMap<string, number>, entries: Entry[]): void {
  for (const walletUid of [op.sourceWalletUid, op.destinationWalletUid]) {
    if (walletUid === null) continue;
    const keys = [accountKeys.wallet(walletUid), accountKeys.walletHold(walletUid)];
    let current = 0n;
    for (const key of keys) current += BigInt(locked.get(key) ?? 0);
    for (const e of entries) if (keys.includes(e.accountKey)) current += BigInt(e.amountMinor);
    if (current > BigInt(MAX_MINOR)) {
      refuse(
        "UnprocessableEntity",
        "The reversal would take the wallet's balance past 2^53 - 1 minor units, the largest amount the ledger holds",
      );
    }
  }
}

/**
 * Operator reversal (DESIGN.md section 3: "An operator reversal of a completed operation moves it
 * to `reversed` with a reversing journal"): whatever the operation's journals moved, net per
 * account, goes back where it came from in one journal of kind `reversal` (charges included), and
 * the operation moves `completed -> reversed` (its `completedAt` stays; a provider block, if any,
 * reads `reversed`; a top-up applied from suspense reopens its suspense item). A wallet that no
 * longer holds what goes back out of it refuses with 422 InsufficientFunds and nothing changes;
 * an account no one protects (a rail's clearing, a beneficiary) may go below zero, as the rail or
 * the beneficiary then owes it. Reversing a reversed operation answers its detail and posts
 * nothing; any other state is 409, and so is an operation whose wallet is closed. No event: the
 * spec's event list has no type for it.
 */
export async function reverseOperation(
  deps: CoreDeps,
  tx: Tx,
  operationUid: string,
): Promise<OperationDetailView> {
  const found = (await tx.operations.getAny(operationUid)) ?? notFound("Operation");
  // Lock the wallets first, then read the state and the journals: two reversals (or a reversal
  // and a movement on the wallet) serialize here, and the second sees what the first did.
  const locked = await tx.ledger.lockAccounts(found.currency, walletAccountsOf(found));
  const op = (await tx.operations.getAny(operationUid)) ?? notFound("Operation");
  if (op.state === "reversed") return readOperationDetail(tx, op);
  if (op.state !== "completed") {
    return refuse("Conflict", `Only a completed operation can be reversed; this one is ${op.state}`);
  }

  // Nothing moves into or out of a closed wallet, nor a closed customer's (the operator closes
  // only empty ones): money put back there would be stranded. Plain reads: a closing waits for
  // the accounts locked above before it checks the wallets are empty, and then sees this reversal.
  for (const walletUid of [op.sourceWalletUid, op.destinationWalletUid]) {
    const wallet = walletUid === null ? null : await tx.wallets.getAny(walletUid);
    if (wallet === null) continue;
    if (wallet.status === "closed") {
      refuse("Conflict", "The operation's wallet is closed: reopen it before reversing the operation");
    }
    if ((await tx.customers.getAny(wallet.customerUid))?.status === "closed") {
      refuse("Conflict", "The operation's customer is closed: reopen it before reversing the operation");
    }
  }
  const journals = await tx.ledger.journalsOf(op.tenantId, op.uid);
  const net = netByAccount(journals.flatMap((j) => j.entries));
  const entries: Entry[] = [];
  for (const [accountKey, moved] of net) {
    if (moved === 0) continue;
    invariant(!isWalletAccount(accountKey) || locked.has(accountKey), "the operation's wallets are locked");
    entries.push({ accountKey, amountMinor: -moved, label: "reversal" });
  }
  invariant(entries.length >= 2, "a completed operation moved money");
  assertWalletsInRange(op, locked, entries);

  const at = iso(deps.clock.now());
  if (op.provider !== null) op.provider = { ...op.provider, state: "reversed", lastUpdatedAt: at };
  await reopenAppliedSuspense(tx, op);
  await transitionOperation(tx, op, "reversed", at, "admin");
  const detail = await readOperationDetail(tx, op);
  await lockSharedAndPost(
    tx,
    {
      uid: deps.ids.next("journal"),
      tenantId: op.tenantId,
      operationUid: op.uid,
      currency: op.currency,
      kind: "reversal",
      createdAt: at,
      entries,
    },
    locked,
    (key) => (key === accountKeys.prefund(op.tenantId) ? "FundingNotPositioned" : "InsufficientFunds"),
  );
  return detail;
}
