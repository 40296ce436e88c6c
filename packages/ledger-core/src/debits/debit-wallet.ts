import type { CoreDeps, RequestContext } from "../app/context.js";
import type { Assertion } from "../assertions/model.js";
import { validateAssertion } from "../assertions/validate-assertion.js";
import { assertAmountRule, assertMandateDebitable, collectingBeneficiary } from "../mandates/rules.js";
import { assertClientReferenceUnused } from "../operations/client-reference.js";
import type { OperationView } from "../operations/views.js";
import { notFound, refuse } from "../shared/errors.js";
import { assertPositiveAmount } from "../shared/money.js";
import { assertStorableStrings } from "../shared/text.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertMovementAllowed, assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import type { DebitPlan } from "./record-debit.js";
import { debitCharges, fundedDebit, fundsCover, lockDebitAccounts, recordDebit } from "./record-debit.js";

export interface DebitWalletInput {
  walletUid: string;
  mandateUid: string;
  amountMinor: number;
  currency: string;
  clientReference: string;
  assertion: Assertion;
}

/**
 * POST /wallet-debits: debits the wallet to the mandate's beneficiary with the customer freshly
 * authenticated, all or nothing. The assertion is checked on every call and must be bound to this
 * request (target mandateUid). The mandate's frequency is not enforced here.
 * Refusals: 404 wallet or mandate, 409 clientReference reused, 422 mandate of another customer or
 * wallet, mandate not active or outside its window, currency, amount rule, beneficiary,
 * assertion, statuses, KYC limits, InsufficientFunds (nothing is created).
 */
export async function debitWallet(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: DebitWalletInput,
): Promise<OperationView> {
  assertPositiveAmount(input.amountMinor);
  assertStorableStrings(input);
  const tenantId = ctx.tenant.id;
  const party = await loadWalletParty(deps, tx, tenantId, input.walletUid);
  const mandate = (await tx.mandates.get(tenantId, input.mandateUid)) ?? notFound("Mandate");
  await assertClientReferenceUnused(tx, tenantId, "wallet_debit", input.clientReference);
  const { wallet, level } = party;
  if (mandate.customerUid !== wallet.customerUid || mandate.walletUid !== wallet.uid) {
    refuse("UnprocessableEntity", "The mandate does not cover this wallet", [
      { field: "mandateUid", issue: "not a mandate of the wallet's customer on this wallet" },
    ]);
  }
  const now = deps.clock.now();
  assertMandateDebitable(mandate, now);
  assertWalletCurrency(wallet, input.currency);
  assertAmountRule(mandate, input.amountMinor);
  const beneficiary = collectingBeneficiary(deps.catalog, mandate.beneficiaryEntityCode);
  await validateAssertion(deps, ctx, tx, input.assertion, {
    customerUid: wallet.customerUid,
    amountMinor: input.amountMinor,
    twoFactorThresholdMinor: level.twoFactorThresholdMinor,
    binding: {
      customerUid: wallet.customerUid,
      walletUid: wallet.uid,
      amountMinor: input.amountMinor,
      currency: input.currency,
      target: mandate.uid,
      clientReference: input.clientReference,
    },
  });

  const plan: DebitPlan = {
    party,
    mandate,
    beneficiary,
    amountMinor: input.amountMinor,
    clientReference: input.clientReference,
    authorization: "assertion",
  };
  const balances = await lockDebitAccounts(tx, plan);
  // Read again under the wallet's lock, which a debit through the mandate's own route holds too:
  // a one_time mandate it completed meanwhile must refuse this debit (else one consent, two debits).
  const current = (await tx.mandates.get(tenantId, mandate.uid)) ?? notFound("Mandate");
  assertMandateDebitable(current, now);
  await assertMovementAllowed(tx, party, "outbound", input.amountMinor, now, balances);
  const charges = debitCharges(deps, plan);
  if (!fundsCover(balances, plan, charges)) refuse("InsufficientFunds", "Insufficient available funds");
  return recordDebit(deps, ctx, tx, plan, fundedDebit(plan, charges, balances), now);
}
