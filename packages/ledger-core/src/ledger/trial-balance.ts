import type { Tx } from "../store/unit-of-work.js";

/**
 * An exact amount of minor units: a number when it is a safe integer, else its decimal digits as a
 * string (JSON numbers past 2^53 - 1 reach most clients rounded).
 */
export type ExactMinor = number | string;

export interface TrialBalanceView {
  currencies: { currency: string; debitsMinor: ExactMinor; creditsMinor: ExactMinor; netMinor: ExactMinor }[];
  /** True when every currency nets to zero: no money was invented or lost. */
  balanced: boolean;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** `n` as a number when that is exact, else as its decimal digits. */
export const exactMinor = (n: bigint): ExactMinor =>
  n <= MAX_SAFE && n >= -MAX_SAFE ? Number(n) : n.toString();

/** GET /admin/ledger/trial-balance: every journal entry summed per currency, exactly. */
export async function getTrialBalance(tx: Tx): Promise<TrialBalanceView> {
  const rows = [...(await tx.ledger.trialBalance())].sort((a, b) => (a.currency < b.currency ? -1 : 1));
  return {
    currencies: rows.map((r) => ({
      currency: r.currency,
      debitsMinor: exactMinor(r.debitsMinor),
      creditsMinor: exactMinor(r.creditsMinor),
      netMinor: exactMinor(r.creditsMinor - r.debitsMinor),
    })),
    balanced: rows.every((r) => r.creditsMinor === r.debitsMinor),
  };
}
