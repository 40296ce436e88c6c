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
