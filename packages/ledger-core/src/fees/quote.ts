import type { FeeBreakdownLine } from "./fee-engine.js";

/** A stored fee quote: the charges a later payout may use while valid (five minutes). */
export interface FeeQuote {
  quoteId: string;
  tenantId: string;
  operationType: string;
  walletUid: string;
  currency: string;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  totalMinor: number;
  breakdown: FeeBreakdownLine[];
  ruleVersion: { uid: string; ruleCode: string; versionNo: number } | null;
  railCode: string | null;
  validUntil: string;
  createdAt: string;
}

export interface QuoteRepository {
  insert(q: FeeQuote): Promise<void>;
  get(tenantId: string, quoteId: string): Promise<FeeQuote | null>;
}
