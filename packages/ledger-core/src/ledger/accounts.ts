/**
 * Account keys (DESIGN.md section 2). An account is identified by its key and currency.
 * Balances are signed sums of entries: inflows positive, outflows negative.
 */
export const accountKeys = {
  deposits: (tenantId: string) => `tenant:${tenantId}:deposits`,
  prefund: (tenantId: string) => `tenant:${tenantId}:prefund`,
  wallet: (walletUid: string) => `wallet:${walletUid}`,
  walletHold: (walletUid: string) => `wallet:${walletUid}:hold`,
  fees: (tenantId: string) => `fees:${tenantId}`,
  tax: (tenantId: string) => `tax:${tenantId}`,
  beneficiary: (entityCode: string) => `beneficiary:${entityCode}`,
  railClearing: (railCode: string) => `rail:${railCode}:clearing`,
  suspense: (railCode: string) => `suspense:${railCode}`,
} as const;

/**
 * Accounts that hold someone's money with the service and so may never go below zero.
 * External counterparts (deposits, rail clearing) mirror outside money and go negative by design.
 */
export function mustStayNonNegative(key: string): boolean {
  return key.startsWith("wallet:") || /^tenant:.*:prefund$/.test(key);
}

export interface AccountRef {
  key: string;
  currency: string;
}

export const accountId = (a: AccountRef) => `${a.key}/${a.currency}`;

/** Accounts of one wallet (its balance and its hold): the ones a request locks first. */
export const isWalletAccount = (key: string): boolean => key.startsWith("wallet:");

/**
 * The one order in which a transaction locks accounts, so that no two transactions ever wait for
 * each other: wallet accounts before every other account (prefund, deposits, fees, tax,
 * beneficiaries, rail clearing, suspense), each group by currency, then by key.
 *
 * Use cases lock the wallet first (its status, limit and balance checks need it) and the shared
 * accounts last, right before posting: every request of a tenant needs those rows, so they stay
 * locked from a few statements before COMMIT only, rather than for the whole request.
 */
export function compareLockOrder(a: AccountRef, b: AccountRef): number {
  const group = Number(!isWalletAccount(a.key)) - Number(!isWalletAccount(b.key));
  if (group !== 0) return group;
  if (a.currency !== b.currency) return a.currency < b.currency ? -1 : 1;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The distinct keys of one currency in lock order. */
export const inLockOrder = (currency: string, keys: Iterable<string>): string[] =>
  [...new Set(keys)].sort((a, b) => compareLockOrder({ key: a, currency }, { key: b, currency }));
