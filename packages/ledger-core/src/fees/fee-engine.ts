import { invariant, refuse } from "../shared/errors.js";
import { MAX_MINOR, percentOfRoundHalfUp } from "../shared/money.js";
import type { Catalog, FeeComponent, FeeSchedule } from "../tenants/catalog.js";

export interface FeeBreakdownLine {
  label: string;
  type: FeeComponent["type"];
  /** A component that rounds to zero is listed as 0, never dropped. */
  amountMinor: number;
  refundable: boolean;
  appliesToLabel: string | null;
}

export interface FeeCharge {
  amountMinor: number;
  /** flat + percentage components. */
  feeMinor: number;
  /** vat components. */
  taxMinor: number;
  /** amount + fee + tax: what the wallet is debited. */
  totalMinor: number;
  breakdown: FeeBreakdownLine[];
  /** The schedule that applied, or null when none does (its components may still all round to 0). */
  schedule: Pick<FeeSchedule, "ruleCode" | "versionNo"> | null;
}

/** The operation types that go through a payment rail: only their fee schedules may name one. */
export const railOperationTypes: readonly string[] = ["payout_b2c", "topup_c2b"];

/**
 * The schedule that applies: same operation type and currency; a rail-specific schedule beats the
 * generic one (railCode null); the highest version wins within each. For a type that goes through
 * no rail (credits, debits) a rail is ignored, so a quote naming one shows what the operation
 * charges.
 */
export function selectFeeSchedule(
  catalog: Catalog,
  operationType: string,
  currency: string,
  railCode: string | null,
): FeeSchedule | null {
  const candidates = catalog.feeSchedules.filter(
    (s) => s.operationType === operationType && s.currency === currency,
  );
  const pick = (list: FeeSchedule[]) =>
    list.reduce<FeeSchedule | null>((best, s) => (!best || s.versionNo > best.versionNo ? s : best), null);
  const rail = railOperationTypes.includes(operationType) ? railCode : null;
  return (
    (rail !== null ? pick(candidates.filter((s) => s.railCode === rail)) : null) ??
    pick(candidates.filter((s) => s.railCode === null))
  );
}

/**
 * Computes the charges of a schedule on an amount in integer math, rounding half up per
 * component. VAT applies to the component named by `appliesToLabel`, or to the amount when null.
 */
export function computeCharges(schedule: FeeSchedule | null, amountMinor: number): FeeCharge {
  invariant(
    Number.isSafeInteger(amountMinor) && amountMinor >= 1,
    "charges are computed on a positive amount",
  );
  if (!schedule)
    return { amountMinor, feeMinor: 0, taxMinor: 0, totalMinor: amountMinor, breakdown: [], schedule: null };
  const byLabel = new Map<string, number>();
  const lines: FeeBreakdownLine[] = [];
  // Fee components first, so a VAT line can name any of them regardless of order.
  for (const c of schedule.components) {
    if (c.type === "vat") continue;
    const value = c.type === "flat" ? c.amountMinor : percentOfRoundHalfUp(amountMinor, c.rateBps);
    byLabel.set(c.label, value);
  }
  for (const c of schedule.components) {
    let value: number;
    if (c.type === "vat") {
      const base = c.appliesToLabel === null ? amountMinor : byLabel.get(c.appliesToLabel);
      invariant(
        base !== undefined,
        `VAT component ${c.label} names an unknown component ${c.appliesToLabel}`,
      );
      value = percentOfRoundHalfUp(base, c.rateBps);
    } else {
      value = byLabel.get(c.label)!;
    }
    lines.push({
      label: c.label,
      type: c.type,
      amountMinor: value,
      refundable: c.refundable,
      appliesToLabel: c.type === "vat" ? c.appliesToLabel : null,
    });
  }
  const feeMinor = exactSum(lines.filter((l) => l.type !== "vat").map((l) => l.amountMinor));
  const taxMinor = exactSum(lines.filter((l) => l.type === "vat").map((l) => l.amountMinor));
  const totalMinor = BigInt(amountMinor) + feeMinor + taxMinor;
  if (totalMinor > BigInt(MAX_MINOR)) {
    // A request's amount, valid by itself, whose charges take the total past what any amount or
    // balance can hold: refused like any other unacceptable amount, before anything is written.
    refuse("UnprocessableEntity", "The amount with its fees and taxes exceeds the largest amount", [
      { field: "amountMinor", issue: `amount + fees + taxes must not exceed ${MAX_MINOR}` },
    ]);
  }
  return {
    amountMinor,
    feeMinor: Number(feeMinor),
    taxMinor: Number(taxMinor),
    totalMinor: Number(totalMinor),
    breakdown: lines,
    schedule: { ruleCode: schedule.ruleCode, versionNo: schedule.versionNo },
  };
}

/** The exact sum of safe integers (a BigInt: several large charges may pass 2^53 together). */
const exactSum = (amounts: number[]) => amounts.reduce((sum, a) => sum + BigInt(a), 0n);

/** Charges for an operation of a type on an amount (zero when no schedule applies). */
export const chargesFor = (
  catalog: Catalog,
  operationType: string,
  currency: string,
  railCode: string | null,
  amountMinor: number,
) => computeCharges(selectFeeSchedule(catalog, operationType, currency, railCode), amountMinor);
