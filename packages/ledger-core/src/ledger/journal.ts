import type { ErrorCode } from "../shared/errors.js";
import { invariant, refuse } from "../shared/errors.js";
import { mustStayNonNegative } from "./accounts.js";

/** One side of a journal: money into (`amountMinor > 0`) or out of (`< 0`) an account. */
export interface Entry {
  accountKey: string;
  amountMinor: number;
  /** What the line is for: "amount", or a fee/tax component label. */
  label: string;
}

/** An append-only record of one money movement. Entries sum to zero; journals are never edited. */
export interface Journal {
  uid: string;
  tenantId: string;
  operationUid: string | null;
  currency: string;
  /** Why it was posted: e.g. wallet_credit, prefund_funding, payout_hold, payout_settle. */
  kind: string;
  createdAt: string;
  entries: Entry[];
}

/**
 * Thrown by `LedgerRepository.post` when the journal would take a protected account below zero
 * (a bug guard for accounts the use case checked itself; the refusal for the one it left to the
 * posting, see `lockSharedAndPost`).
 */
export class AccountNotCoveredError extends Error {
  constructor(readonly accountKey: string) {
    super(`account ${accountKey} cannot cover the posting`);
    this.name = "AccountNotCoveredError";
  }
}

/**
 * A store's refusal (422) of a posting that would take an account's balance past ±(2^53 - 1) minor
 * units, the largest exact amount: nothing of the posting is kept (the unit of work rolls back).
 * Only absurd amounts reach it (two payments of 2^53 - 1 into one rail's suspense account), but
 * refused, they cannot leave a balance no store can read back, or one the journal does not match.
 */
export function refuseBalanceOutOfRange(): never {
  return refuse(
    "UnprocessableEntity",
    "The posting would take a ledger account past 2^53 - 1 minor units, the largest amount the ledger holds",
  );
}

/** A transfer between two accounts, the building block of every posting. */
export interface Transfer {
  from: string;
  to: string;
  amountMinor: number;
  label: string;
}

/** Turns transfers into balanced entries, dropping zero lines. */
export function entriesOf(transfers: Transfer[]): Entry[] {
  const entries: Entry[] = [];
  for (const t of transfers) {
    invariant(
      Number.isSafeInteger(t.amountMinor) && t.amountMinor >= 0,
      "transfer amounts are non-negative integers",
    );
    if (t.amountMinor === 0) continue;
    invariant(t.from !== t.to, "a transfer needs two distinct accounts");
    entries.push({ accountKey: t.from, amountMinor: -t.amountMinor, label: t.label });
    entries.push({ accountKey: t.to, amountMinor: t.amountMinor, label: t.label });
  }
  return entries;
}

/** Asserts the journal is well-formed: two or more entries, integers, summing to zero. */
export function assertBalanced(j: Pick<Journal, "entries">): void {
  invariant(j.entries.length >= 2, "a journal has at least two entries");
  let sum = 0;
  for (const e of j.entries) {
    invariant(Number.isSafeInteger(e.amountMinor) && e.amountMinor !== 0, "entries are non-zero integers");
    sum += e.amountMinor;
  }
  invariant(sum === 0, "journal entries must sum to zero");
}

/** Net change per account key. */
export function netByAccount(entries: Entry[]): Map<string, number> {
  const net = new Map<string, number>();
  for (const e of entries) net.set(e.accountKey, (net.get(e.accountKey) ?? 0) + e.amountMinor);
  return net;
}

/**
 * Checks that applying `entries` to `balances` keeps every protected account at or above zero
 * (an account missing from `balances` counts as zero).
 * Refuses with `code` (e.g. FundingNotPositioned for the prefund, InsufficientFunds for a wallet).
 */
export function assertCovered(
  balances: ReadonlyMap<string, number>,
  entries: Entry[],
  codeFor: (accountKey: string) => ErrorCode,
): void {
  for (const [key, delta] of netByAccount(entries)) {
    if (delta >= 0 || !mustStayNonNegative(key)) continue;
    if ((balances.get(key) ?? 0) + delta < 0) refuseUncovered(key, codeFor);
  }
}

/** The refusal for a protected account that cannot cover a posting. */
export function refuseUncovered(key: string, codeFor: (accountKey: string) => ErrorCode): never {
  const code = codeFor(key);
  return refuse(
    code,
    code === "FundingNotPositioned"
      ? "The prefunded balance cannot cover this amount"
      : "Insufficient available funds",
  );
}
