import type { CoreDeps, RequestContext } from "../app/context.js";
import type { Assertion } from "../assertions/model.js";
import { assertAssurance, validateAssertion } from "../assertions/validate-assertion.js";
import { isPayoutEligible } from "../customers/model.js";
import { chargeTransfers } from "../fees/charges.js";
import type { FeeBreakdownLine } from "../fees/fee-engine.js";
import { chargesFor } from "../fees/fee-engine.js";
import type { FeeQuote } from "../fees/quote.js";
import { accountKeys } from "../ledger/accounts.js";
import { assertCovered, entriesOf } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import { assertClientReferenceUnused } from "../operations/client-reference.js";
import { createAndTransitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import type { OperationView } from "../operations/views.js";
import { toOperationView } from "../operations/views.js";
import { railFor } from "../rails/rail-capability.js";
import { refuse } from "../shared/errors.js";
import { assertPositiveAmount } from "../shared/money.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertMovementAllowed, assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import type { PayoutDetails } from "./model.js";

export interface CreatePayoutInput {
  walletUid: string;
  destinationIdentifierUid: string;
  amountMinor: number;
  currency: string;
  railCode: string;
  clientReference: string;
  assertion: Assertion;
  feeQuoteId?: string | null | undefined;
}

interface PayoutCharges {
  feeMinor: number;
  taxMinor: number;
  lines: FeeBreakdownLine[];
  feeQuoteId: string | null;
}

const sameLines = (a: FeeBreakdownLine[], b: FeeBreakdownLine[]) =>
  a.length === b.length &&
  a.every((l, i) => {
    const m = b[i]!;
    return (
      l.label === m.label &&
      l.type === m.type &&
      l.amountMinor === m.amountMinor &&
      l.refundable === m.refundable &&
      l.appliesToLabel === m.appliesToLabel
    );
  });

/**
 * The charges of a payout: the cited quote's while it is valid, was issued for this very request
 * and still equals a fresh computation; otherwise the fresh ones. A stale or foreign quote never
 * refuses the payout (spec: "otherwise charges are computed fresh").
 */
async function payoutCharges(
  deps: CoreDeps,
  tx: Tx,
  tenantId: string,
  request: { walletUid: string; amountMinor: number; currency: string; railCode: string },
  feeQuoteId: string | null,
  now: Date,
): Promise<PayoutCharges> {
  const fresh = chargesFor(
    deps.catalog,
    "payout_b2c",
    request.currency,
    request.railCode,
    request.amountMinor,
  );
  const quote: FeeQuote | null = feeQuoteId ? await tx.quotes.get(tenantId, feeQuoteId) : null;
  const usable =
    quote !== null &&
    Date.parse(quote.validUntil) > now.getTime() &&
    quote.operationType === "payout_b2c" &&
    quote.walletUid === request.walletUid &&
    quote.amountMinor === request.amountMinor &&
    quote.currency === request.currency &&
    quote.railCode === request.railCode &&
    quote.feeMinor === fresh.feeMinor &&
    quote.taxMinor === fresh.taxMinor &&
    (quote.ruleVersion?.ruleCode ?? null) === (fresh.schedule?.ruleCode ?? null) &&
    (quote.ruleVersion?.versionNo ?? null) === (fresh.schedule?.versionNo ?? null) &&
    sameLines(quote.breakdown, fresh.breakdown);
  return usable
    ? {
        feeMinor: quote.feeMinor,
        taxMinor: quote.taxMinor,
        lines: quote.breakdown,
        feeQuoteId: quote.quoteId,
      }
    : { feeMinor: fresh.feeMinor, taxMinor: fresh.taxMinor, lines: fresh.breakdown, feeQuoteId: null };
}

/**
 * POST /payouts, phase 1 (TigerBeetle's two-phase transfer: this is the pending half). Debits the
 * wallet for amount + fee + tax with the charges itemized, parks the amount on the wallet's hold
 * account and leaves the operation `processing` until the rail answers (`reportPayoutResult`).
 *
 * Refusals, in order: 404 wallet; 409 clientReference used by another payout; 422 currency; the
 * generic 422 for a rail not approved, inactive or unable to pay out; 422 destination not a
 * payout-eligible identifier of the wallet's customer; the assertion's refusals (bound to the
 * destination); status and KYC limits; the two-factor threshold; 422 InsufficientFunds (the
 * spec's phase-1 order).
 */
export async function createPayout(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: CreatePayoutInput,
): Promise<OperationView> {
  assertPositiveAmount(input.amountMinor);
  assertStorableStrings(input);
  const tenantId = ctx.tenant.id;
  const party = await loadWalletParty(deps, tx, tenantId, input.walletUid);
  const { wallet, customer, level } = party;
  await assertClientReferenceUnused(tx, tenantId, "payout_b2c", input.clientReference);
  assertWalletCurrency(wallet, input.currency);
  const rail = railFor(deps, ctx.tenant, input.railCode, "payouts", wallet.currency);

  const now = deps.clock.now();
  const destination = await tx.identifiers.get(tenantId, input.destinationIdentifierUid);
  if (!destination || destination.customerUid !== customer.uid || !isPayoutEligible(destination, now)) {
    return refuse(
      "UnprocessableEntity",
      "The destination is not a payout-eligible identifier of the wallet's customer",
      [{ field: "destinationIdentifierUid", issue: "must be a verified contact identifier of the customer" }],
    );
  }
  await validateAssertion(deps, ctx, tx, input.assertion, {
    customerUid: customer.uid,
    amountMinor: input.amountMinor,
    twoFactorThresholdMinor: level.twoFactorThresholdMinor,
    binding: {
      customerUid: customer.uid,
      walletUid: wallet.uid,
      amountMinor: input.amountMinor,
      currency: input.currency,
      target: input.destinationIdentifierUid,
      clientReference: input.clientReference,
    },
    assuranceCheckedLater: true,
  });

  const walletKey = accountKeys.wallet(wallet.uid);
  const holdKey = accountKeys.walletHold(wallet.uid);
  // The wallet's accounts now, the fee and tax accounts last: see lockSharedAndPost.
  const balances = await tx.ledger.lockAccounts(wallet.currency, [walletKey, holdKey]);
  // Again under the lock: a payout holding the clientReference that committed while this one
  // waited makes this one its duplicate (409), not a refusal for the money it spent.
  await assertClientReferenceUnused(tx, tenantId, "payout_b2c", input.clientReference);
  await assertMovementAllowed(tx, party, "outbound", input.amountMinor, now, balances);
  assertAssurance(input.assertion, {
    amountMinor: input.amountMinor,
    twoFactorThresholdMinor: level.twoFactorThresholdMinor,
  });
  const charges = await payoutCharges(
    deps,
    tx,
    tenantId,
    { walletUid: wallet.uid, amountMinor: input.amountMinor, currency: wallet.currency, railCode: rail.code },
    input.feeQuoteId ?? null,
    now,
  );
  const entries = entriesOf([
    { from: walletKey, to: holdKey, amountMinor: input.amountMinor, label: "amount" },
    ...chargeTransfers(tenantId, walletKey, charges.lines),
  ]);
  assertCovered(balances, entries, () => "InsufficientFunds");

  const at = iso(now);
  const details: PayoutDetails = {
    railCode: rail.code,
    destinationIdentifierUid: destination.uid,
    charges: charges.lines,
    feeQuoteId: charges.feeQuoteId,
  };
  const op: Operation = {
    uid: deps.ids.next("operation"),
    tenantId,
    type: "payout_b2c",
    state: "created",
    amountMinor: input.amountMinor,
    feeMinor: charges.feeMinor,
    taxMinor: charges.taxMinor,
    currency: wallet.currency,
    clientReference: input.clientReference,
    customerUid: customer.uid,
    sourceWalletUid: wallet.uid,
    destinationWalletUid: null,
    counterpartyHint: destination.maskedValue,
    feeBreakdown: charges.lines.map((l) => ({ label: l.label, amountMinor: l.amountMinor })),
    provider: { railCode: rail.code, state: "initiated", reference: null, lastUpdatedAt: at },
    mandateUid: null,
    intentReference: null,
    expiresAt: null,
    details: { ...details },
    metadata: null,
    createdAt: at,
    completedAt: null,
    fundsMovedAt: at,
    updatedAt: at,
  };
  const journal = {
    uid: deps.ids.next("journal"),
    tenantId,
    operationUid: op.uid,
    currency: wallet.currency,
    kind: "payout_hold",
    createdAt: at,
    entries,
  };
  await createAndTransitionOperation(tx, op, "api_client", "processing", at, "system");
  await lockSharedAndPost(tx, journal, balances, () => "InsufficientFunds");
  return toOperationView(op);
}
