import type { Journal } from "./journal.js";

export interface TrialBalanceRow {
  currency: string;
  /**
   * Sum of outflows (absolute), exact: the sums of every entry ever posted outgrow the safe
   * integers long before any balance does (two tenants funded to the maximum already do).
   */
  debitsMinor: bigint;
  /** Sum of inflows, exact. */
  creditsMinor: bigint;
}

/**
 * The ledger store. Balances are projections kept in step with the journal inside the same
 * transaction; the adapter guarantees `post` is atomic with the rest of the unit of work.
 */
export interface LedgerRepository {
  /**
   * Locks the accounts (creating any missing one at zero) in lock order (`compareLockOrder`)
   * and returns their balances. Postgres: row locks until the transaction ends; SQLite: the
   * writer lock. Call before reading balances you will post against.
   *
   * A transaction takes its locks in lock order across calls too: its wallet accounts first,
   * then, right before posting, the shared accounts (prefund, fees, tax, ...), and never a wallet
   * account after a shared one.
   */
  lockAccounts(currency: string, keys: string[]): Promise<Map<string, number>>;
  /** Balances without locking (0 for accounts never touched). */
  balances(currency: string, keys: string[]): Promise<Map<string, number>>;
  /**
   * Appends a balanced journal and applies it to the balance projections, creating any missing
   * account. Every account it moves is already locked (`lockAccounts`) except at most one, the
   * last in lock order, which the posting itself locks (so the adapter may update the rest in
   * any order).
   *
   * Checks every protected account (`mustStayNonNegative`) under its lock: one that would go
   * below zero throws `AccountNotCoveredError`, after which the adapter may have applied part of
   * the journal and the unit of work must fail (a refusal thrown from it rolls everything back).
   */
  post(journal: Journal): Promise<void>;
  /** Journals of an operation in posting order. */
  journalsOf(tenantId: string, operationUid: string): Promise<Journal[]>;
  /** Last time any of the accounts moved (ISO), or null. */
  lastMovedAt(currency: string, keys: string[]): Promise<string | null>;
  trialBalance(): Promise<TrialBalanceRow[]>;
}
