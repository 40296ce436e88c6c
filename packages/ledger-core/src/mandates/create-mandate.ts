import type { CoreDeps, RequestContext } from "../app/context.js";
import type { Assertion } from "../assertions/model.js";
import { validateAssertion } from "../assertions/validate-assertion.js";
import { loadCustomer } from "../customers/identifiers.js";
import type { AgreementInput } from "../customers/records.js";
import { newAgreement } from "../customers/records.js";
import { assertAgreementChannel } from "../customers/rules.js";
import { assertClientReference } from "../operations/client-reference.js";
import { assertOneOf, notFound, refuse } from "../shared/errors.js";
import { assertFreeForm } from "../shared/free-form.js";
import { assertPositiveAmount } from "../shared/money.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso, storedInstant } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import { assertCanHoldMandate } from "../wallets/status-rules.js";
import type { AmountRule, Mandate, MandateFrequency } from "./model.js";
import { amountRules, mandateFrequencies } from "./model.js";
import { lockMandateForChange } from "./read-mandates.js";
import { assertMandateOpen, collectingBeneficiary, emitMandateEvent, revokeMandateRecord } from "./rules.js";
import type { MandateView } from "./views.js";
import { toMandateView } from "./views.js";

/** The acceptance recorded with a mandate: an agreement whose type is always `mandate`. */
export type MandateAgreementInput = Omit<AgreementInput, "agreementType">;

export interface CreateMandateInput {
  customerUid: string;
  walletUid: string;
  beneficiaryEntityCode: string;
  clientReference: string;
  amountRule: AmountRule;
  /** Required unless amountRule is formula. */
  fixedOrMaxAmountMinor?: number | null | undefined;
  /** No schema is defined; a formula rule is refused. */
  formula?: Record<string, unknown> | null | undefined;
  frequency: MandateFrequency;
  currency: string;
  validFrom: string;
  validTo?: string | null | undefined;
  /** Advisory only: the service never schedules or retries a debit. */
  retryPolicy?: Record<string, unknown> | null | undefined;
  agreement: MandateAgreementInput;
  assertion: Assertion;
  replacesMandateUid?: string | null | undefined;
}

/**
 * POST /mandates: the mandate and its acceptance (agreementType mandate), written together. Active
 * when validFrom has passed, else pending until the activation job. With replacesMandateUid the
 * replaced mandate is revoked (reason superseded) and its acceptance superseded in the same
 * transaction, so a refusal leaves it untouched.
 * Refusals: 400 amount/validity shape, 404 customer, wallet or replaced mandate, 409 replaced
 * mandate already final, 422 wallet of another customer, currency, formula, beneficiary, channel
 * portal, assertion.
 */
export async function createMandate(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: CreateMandateInput,
): Promise<MandateView> {
  const tenantId = ctx.tenant.id;
  assertStorableStrings(input);
  assertClientReference(input.clientReference);
  assertOneOf("amountRule", input.amountRule, amountRules);
  assertOneOf("frequency", input.frequency, mandateFrequencies);
  for (const field of ["formula", "retryPolicy"] as const) {
    const value = input[field];
    if (value !== undefined && value !== null) assertFreeForm(field, value);
  }
  const amountMinor = input.fixedOrMaxAmountMinor ?? null;
  if (input.amountRule !== "formula") {
    if (amountMinor === null) {
      return refuse("InvalidRequest", "fixedOrMaxAmountMinor is required unless amountRule is formula", [
        { field: "fixedOrMaxAmountMinor", issue: `required for amountRule ${input.amountRule}` },
      ]);
    }
    assertPositiveAmount(amountMinor, "fixedOrMaxAmountMinor");
  }
  // A start: digits past the millisecond round up (the mandate is never active before it).
  const validFrom = storedInstant(input.validFrom, "validFrom", "lower");
  const validTo = input.validTo == null ? null : storedInstant(input.validTo, "validTo", "upper");
  if (validTo !== null && validTo <= validFrom) {
    refuse("InvalidRequest", "validTo must be after validFrom", [
      { field: "validTo", issue: "must be after validFrom" },
    ]);
  }

  const customer = await loadCustomer(tx, ctx, input.customerUid);
  const toReplace =
    input.replacesMandateUid == null ? null : await tx.mandates.get(tenantId, input.replacesMandateUid);
  if (input.replacesMandateUid != null && toReplace?.customerUid !== customer.uid) notFound("Mandate");
  // The replaced mandate's wallet is locked for update (the replacement revokes it, and
  // revocations wait for the debits in flight), the new mandate's wallet share-locked. The same
  // wallet is locked for update first; two wallets in uid order, so that two replacements naming
  // each other's wallets (both refused below) cannot deadlock.
  const replacedFirst = toReplace !== null && toReplace.walletUid <= input.walletUid;
  let replaced = replacedFirst ? await lockMandateForChange(tx, toReplace) : null;
  const party = await loadWalletParty(deps, tx, tenantId, input.walletUid);
  if (toReplace !== null && !replacedFirst) replaced = await lockMandateForChange(tx, toReplace);

  const { wallet, level } = party;
  if (wallet.customerUid !== customer.uid) {
    refuse("UnprocessableEntity", "The wallet does not belong to the customer", [
      { field: "walletUid", issue: "not a wallet of the customer" },
    ]);
  }
  assertCanHoldMandate(wallet.status, customer.status);
  assertWalletCurrency(wallet, input.currency);
  if (input.amountRule === "formula") {
    refuse("UnprocessableEntity", "A formula amount rule is not supported", [
      { field: "amountRule", issue: "formula is refused" },
    ]);
  }
  collectingBeneficiary(deps.catalog, input.beneficiaryEntityCode);
  assertAgreementChannel(input.agreement.acceptedChannel, "agreement.acceptedChannel");
  const now = deps.clock.now();
  const at = iso(now);
  // A mandate that could never be used is refused rather than born expired.
  if (validTo !== null && Date.parse(validTo) <= now.getTime()) {
    refuse("UnprocessableEntity", "validTo has already passed", [
      { field: "validTo", issue: "must be in the future" },
    ]);
  }
  if (replaced) assertMandateOpen(replaced, now, "The mandate to replace");
  // On POST /mandates there is no amount to bind: a binding is only shape-checked.
  await validateAssertion(deps, ctx, tx, input.assertion, {
    customerUid: customer.uid,
    amountMinor,
    twoFactorThresholdMinor: level.twoFactorThresholdMinor,
    binding: null,
  });

  const agreement = newAgreement(
    deps,
    tenantId,
    customer.uid,
    { ...input.agreement, agreementType: "mandate" },
    at,
  );
  const mandate: Mandate = {
    uid: deps.ids.next("mandate"),
    tenantId,
    customerUid: customer.uid,
    walletUid: wallet.uid,
    beneficiaryEntityCode: input.beneficiaryEntityCode,
    clientReference: input.clientReference,
    amountRule: input.amountRule,
    fixedOrMaxAmountMinor: amountMinor,
    frequency: input.frequency,
    currency: wallet.currency,
    validFrom,
    validTo,
    status: Date.parse(validFrom) <= now.getTime() ? "active" : "pending",
    agreementUid: agreement.uid,
    replacesMandateUid: replaced?.uid ?? null,
    revokedAt: null,
    revocationReason: null,
    revokedBy: null,
    createdAt: at,
    updatedAt: at,
  };
  await tx.agreements.insert(agreement);
  await tx.mandates.insert(mandate);
  await emitMandateEvent(deps, tx, ctx.tenant, "mandate.created", mandate, at);
  if (replaced) {
    await revokeMandateRecord(
      tx,
      replaced,
      { by: "system", reason: "superseded", agreementStatus: "superseded" },
      at,
    );
    await emitMandateEvent(deps, tx, ctx.tenant, "mandate.revoked", replaced, at);
  }
  return toMandateView(mandate);
}
