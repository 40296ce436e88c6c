import { accountKeys } from "../ledger/accounts.js";
import type { Transfer } from "../ledger/journal.js";
import { refuse } from "../shared/errors.js";
import type { FeeBreakdownLine, FeeCharge } from "./fee-engine.js";

/** Fee components go to fee income, VAT components to tax payable. */
export const chargeAccount = (tenantId: string, line: Pick<FeeBreakdownLine, "type">): string =>
  line.type === "vat" ? accountKeys.tax(tenantId) : accountKeys.fees(tenantId);

/** The wallet pays each charge line, itemized by its label. */
export const chargeTransfers = (tenantId: string, walletKey: string, lines: FeeBreakdownLine[]): Transfer[] =>
  lines.map((l) => ({
    from: walletKey,
    to: chargeAccount(tenantId, l),
    amountMinor: l.amountMinor,
    label: l.label,
  }));

/** The refundable lines back to the wallet (a failed payout); non-refundable charges are kept. */
export const refundTransfers = (tenantId: string, walletKey: string, lines: FeeBreakdownLine[]): Transfer[] =>
  lines
    .filter((l) => l.refundable)
    .map((l) => ({
      from: chargeAccount(tenantId, l),
      to: walletKey,
      amountMinor: l.amountMinor,
      label: l.label,
    }));

/**
 * An inbound operation (a credit, a top-up) pays its charges out of what the wallet receives, so
 * they may not exceed the amount (422): a tiny credit under a flat fee would otherwise take money
 * out of the wallet, with no assertion or mandate and outside the outbound limits.
 */
export function assertAmountCoversCharges(
  charges: Pick<FeeCharge, "amountMinor" | "feeMinor" | "taxMinor">,
): void {
  const chargesMinor = charges.feeMinor + charges.taxMinor;
  if (chargesMinor > charges.amountMinor) {
    refuse("UnprocessableEntity", "The amount does not cover its charges", [
      { field: "amountMinor", issue: `must be at least the charges of ${chargesMinor}` },
    ]);
  }
}
