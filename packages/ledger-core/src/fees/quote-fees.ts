import type { CoreDeps, RequestContext } from "../app/context.js";
import { approvedRail } from "../customers/account-approval.js";
import { isDomainError, refuse } from "../shared/errors.js";
import { assertPositiveAmount } from "../shared/money.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import { assertAmountCoversCharges } from "./charges.js";
import type { FeeBreakdownLine } from "./fee-engine.js";
import { chargesFor, railOperationTypes } from "./fee-engine.js";
import type { FeeQuote } from "./quote.js";

/** The operation types a quote can be asked for; the other enum values are 400. */
export const quotableOperationTypes = ["wallet_credit", "wallet_debit", "payout_b2c", "topup_c2b"] as const;

/** The quotable types whose charges the wallet pays out of what it receives. */
const inboundOperationTypes = ["wallet_credit", "topup_c2b"] as const;

export const QUOTE_VALIDITY_SECONDS = 300;

export interface QuoteFeesInput {
  operationType: string;
  walletUid: string;
  amountMinor: number;
  currency: string;
  railCode?: string | null | undefined;
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
  // The spec: "null for a zero-fee operation". Components that all round to zero make one too;
  // the stored quote keeps the schedule it was computed from (a payout citing it compares it).
  ruleVersion: q.feeMinor === 0 && q.taxMinor === 0 ? null : q.ruleVersion,
  railCode: q.railCode,
  validUntil: q.validUntil,
});

/**
 * The spec gives POST /fees/quote no 422 ("errors 400, 401, 403, 404, 429, 500, 503"): what a
 * movement refuses as a business rule (an unquotable type, another currency, a rail the tenant is
 * not approved for, a total past 2^53 - 1), a quote refuses as an invalid request, with the same
 * message and details.
 */
function asInvalidRequest<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (isDomainError(e) && (e.code === "UnprocessableEntity" || e.code === "CurrencyMismatch")) {
      return refuse("InvalidRequest", e.message, e.details);
    }
    throw e;
  }
}

/**
 * POST /fees/quote: read-only for the ledger (nothing is charged, no operation is created); the
 * quote itself is stored so a payout can cite it for five minutes. Refusals: 404 wallet (first, so
 * another tenant's wallet is identical to a missing one), then 400 (see asInvalidRequest).
 */
export async function quoteFees(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: QuoteFeesInput,
): Promise<FeeQuoteView> {
  assertPositiveAmount(input.amountMinor);
  const { wallet } = await loadWalletParty(deps, tx, ctx.tenant.id, input.walletUid);
  // Credits and debits go through no rail: a railCode sent with them is ignored (answered null).
  const railCode = railOperationTypes.includes(input.operationType) ? (input.railCode ?? null) : null;
  const charges = asInvalidRequest(() => {
    if (!(quotableOperationTypes as readonly string[]).includes(input.operationType)) {
      refuse("InvalidRequest", `Operations of type ${input.operationType} cannot be quoted`, [
        { field: "operationType", issue: `quotable types: ${quotableOperationTypes.join(", ")}` },
      ]);
    }
    assertWalletCurrency(wallet, input.currency);
    if (railCode !== null) approvedRail(deps, ctx.tenant, railCode);
    const charges = chargesFor(
      deps.catalog,
      input.operationType,
      wallet.currency,
      railCode,
      input.amountMinor,
    );
    if ((inboundOperationTypes as readonly string[]).includes(input.operationType)) {
      assertAmountCoversCharges(charges);
    }
    return charges;
  });
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
