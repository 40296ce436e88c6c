import type { Tx } from "../store/unit-of-work.js";

export interface TrialBalanceView {
  currencies: { currency: string; debitsMinor: number; creditsMinor: number; netMinor: number }[];
  /** True when every currency nets to zero: no money was invented or lost. */
  balanced: boolean;
}

export async function getTrialBalance(tx: Tx): Promise<TrialBalanceView> {
  const rows = await tx.ledger.trialBalance();
  const currencies = rows
    .map((r) => ({ ...r, netMinor: r.creditsMinor - r.debitsMinor }))
    .sort((a, b) => (a.currency < b.currency ? -1 : 1));
  return { currencies, balanced: currencies.every((c) => c.netMinor === 0) };
}
