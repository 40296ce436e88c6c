import type { CoreDeps, RequestContext } from "../app/context.js";
import { approvedRail } from "../customers/account-approval.js";
import { refuse } from "../shared/errors.js";
import { assertPositiveAmount } from "../shared/money.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import type { FeeBreakdownLine } from "./fee-engine.js";
import { chargesFor } from "./fee-engine.js";
import type { FeeQuote } from "./quote.js";

/** The operation types a quote can be asked for; the other enum values are 422. */
export const quotableOperationTypes = ["wallet_credit", "wallet_debit", "payout_b2c", "topup_c2b"] as const;

export const QUOTE_VALIDITY_SECONDS = 300;

export interface QuoteFeesInput {
  operationType: string;
  walletUid: string;
  amountMinor: number;
  currency: string;
  railCode?: string | null;
}

export interface FeeQuoteView {
  quoteId: string;
  operationType: string;
  walletUid: string;
  currency: string;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  totalMinor: number;
  breakdown: FeeBreakdownLine[];
  ruleVersion: FeeQuote["ruleVersion"];
  railCode: string | null;
  validUntil: string;
}

/** Stable id of a fee schedule version: schedules come from config, so the id is derived, not stored. */
export const feeRuleVersionUid = (ruleCode: string, versionNo: number) => `fsv_${ruleCode}_${versionNo}`;

export const toFeeQuoteView = (q: FeeQuote): FeeQuoteView => ({
  quoteId: q.quoteId,
  operationType: q.operationType,
  walletUid: q.walletUid,
  currency: q.currency,
  amountMinor: q.amountMinor,
  feeMinor: q.feeMinor,
  taxMinor: q.taxMinor,
  totalMinor: q.totalMinor,
  breakdown: q.breakdown,
  ruleVersion: q.ruleVersion,
  railCode: q.railCode,
  validUntil: q.validUntil,
});

/**
 * POST /fees/quote: read-only for the ledger (nothing is charged, no operation is created); the
 * quote itself is stored so a payout can cite it for five minutes.
 */
export async function quoteFees(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: QuoteFeesInput,
): Promise<FeeQuoteView> {
  assertPositiveAmount(input.amountMinor);
  const { wallet } = await loadWalletParty(deps, tx, ctx.tenant.id, input.walletUid);
  if (!(quotableOperationTypes as readonly string[]).includes(input.operationType)) {
    refuse("UnprocessableEntity", `Operations of type ${input.operationType} cannot be quoted`, [
      { field: "operationType", issue: `quotable types: ${quotableOperationTypes.join(", ")}` },
    ]);
  }
  assertWalletCurrency(wallet, input.currency);
  const railCode = input.railCode ?? null;
  if (railCode !== null) approvedRail(deps, ctx.tenant, railCode);
  const charges = chargesFor(deps.catalog, input.operationType, wallet.currency, railCode, input.amountMinor);
  const now = deps.clock.now();
  const quote: FeeQuote = {
    quoteId: deps.ids.next("quote"),
    tenantId: ctx.tenant.id,
    operationType: input.operationType,
    walletUid: wallet.uid,
    currency: wallet.currency,
    amountMinor: charges.amountMinor,
    feeMinor: charges.feeMinor,
    taxMinor: charges.taxMinor,
    totalMinor: charges.totalMinor,
    breakdown: charges.breakdown,
    ruleVersion: charges.schedule
      ? { uid: feeRuleVersionUid(charges.schedule.ruleCode, charges.schedule.versionNo), ...charges.schedule }
      : null,
    railCode,
    validUntil: iso(new Date(now.getTime() + QUOTE_VALIDITY_SECONDS * 1000)),
    createdAt: iso(now),
  };
  await tx.quotes.insert(quote);
  return toFeeQuoteView(quote);
}
