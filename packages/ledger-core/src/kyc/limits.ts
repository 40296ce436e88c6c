import { refuse } from "../shared/errors.js";
import type { KycLevel } from "../tenants/catalog.js";
import type { Direction } from "../wallets/status-rules.js";

/** What the limits need to know about a movement and the wallet's recent history. */
export interface LimitCheck {
  level: KycLevel;
  direction: Direction;
  amountMinor: number;
  /** Wallet current balance (available + held) before the movement. */
  currentBalanceMinor: number;
  /** Sum of accepted movements in both directions since the start of the UTC day. */
  dailyTotalMinor: number;
  /** Sum of accepted outbound movements since the start of the UTC calendar month. */
  monthlyOutTotalMinor: number;
  /**
   * Inbound only: the charges (fee + tax) the wallet pays out of what it receives, so the balance
   * after the movement is current + amount - charges (default 0).
   */
  inboundChargesMinor?: number;
}

export type LimitBreach = "maxSingleTxn" | "aggregateDaily" | "monthlyOut" | "maxBalance";

/**
 * The one limits rule used by every money movement (DESIGN.md section 3). Returns the first
 * breached limit, or null. Order: single transaction, daily aggregate, monthly outbound, balance.
 */
export function findLimitBreach(c: LimitCheck): LimitBreach | null {
  const { level, amountMinor } = c;
  if (level.maxSingleTxnMinor !== null && amountMinor > level.maxSingleTxnMinor) return "maxSingleTxn";
  if (c.dailyTotalMinor + amountMinor > level.aggregateDailyLimitMinor) return "aggregateDaily";
  if (
    c.direction === "outbound" &&
    level.monthlyOutLimitMinor !== null &&
    c.monthlyOutTotalMinor + amountMinor > level.monthlyOutLimitMinor
  ) {
    return "monthlyOut";
  }
  // "Result within the wallet's maximum balance" (spec): what the wallet holds afterwards. Each
  // side is exact (the charges never exceed the amount, the balance never the maximum's range),
  // where balance + amount, summed first, could pass 2^53 and round.
  if (
    c.direction === "inbound" &&
    amountMinor - (c.inboundChargesMinor ?? 0) > level.maxBalanceMinor - c.currentBalanceMinor
  )
    return "maxBalance";
  return null;
}

const messages: Record<LimitBreach, string> = {
  maxSingleTxn: "The amount exceeds the single transaction limit of the customer's KYC level",
  aggregateDaily: "The amount exceeds the daily limit of the customer's KYC level",
  monthlyOut: "The amount exceeds the monthly outbound limit of the customer's KYC level",
  maxBalance: "The credit would take the wallet above the maximum balance of the customer's KYC level",
};

/** Refuses (422) a movement that breaches a limit: MaxBalanceExceeded or LimitExceeded. */
export function assertWithinLimits(c: LimitCheck): void {
  const breach = findLimitBreach(c);
  if (breach === null) return;
  refuse(breach === "maxBalance" ? "MaxBalanceExceeded" : "LimitExceeded", messages[breach]);
}

/** Whether an amount needs two-factor assurance and a transaction binding. */
export const needsTwoFactor = (
  level: Pick<KycLevel, "twoFactorThresholdMinor">,
  amountMinor: number,
): boolean => amountMinor > level.twoFactorThresholdMinor;
