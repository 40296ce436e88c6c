import type { CoreDeps, RequestContext } from "../app/context.js";
import { emitFirstEvent } from "../events/emit.js";
import { assertClientReference } from "../operations/client-reference.js";
import { assertOneOf, refuse } from "../shared/errors.js";
import { assertFreeForm } from "../shared/free-form.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso, storedDate } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Wallet } from "../wallets/model.js";
import { approvedKycLevel, approvedProfile, notApproved } from "./account-approval.js";
import type { Customer, CustomerType } from "./model.js";
import { customerTypes } from "./model.js";
import type { AgreementInput, IdentifierInput, KycVersionInput } from "./records.js";
import { newAgreement, newIdentifier, newKycVersion } from "./records.js";
import { assertAgreementChannel, assertOnePrimaryPerClass, claimVerifiedValues } from "./rules.js";
import type { CustomerView } from "./views.js";
import { customerEventData, toIdentifierSummaryView } from "./views.js";

/** The furthest ahead of UTC any civil time zone is (UTC+14, the Line Islands). */
const LATEST_OFFSET_MS = 14 * 3_600_000;

export interface OnboardCustomerInput {
  customerType: CustomerType;
  displayName: string;
  dateOfBirth?: string | undefined;
  regionCode?: string | undefined;
  preferredLocale?: string | undefined;
  identifiers: IdentifierInput[];
  kyc: Omit<KycVersionInput, "reviewType"> & { reviewType: "onboarding" };
  agreements: AgreementInput[];
  rulesProfileKey?: string | undefined;
  clientReference?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/**
 * POST /customers: the customer, its main wallet, identifiers, agreements and an approved
 * onboarding KYC version, all in one transaction. The customer and wallet start active so the
 * wallet can be credited at once (DESIGN.md section 3).
 */
export async function onboardCustomer(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: OnboardCustomerInput,
): Promise<CustomerView> {
  const { tenant } = ctx;
  assertStorableStrings(input);
  assertOneOf("customerType", input.customerType, customerTypes);
  assertOneOf("kyc.reviewType", input.kyc.reviewType, ["onboarding"] as const);
  if (input.clientReference !== undefined) assertClientReference(input.clientReference);
  assertOnePrimaryPerClass(input.identifiers);
  if (input.metadata !== undefined) assertFreeForm("metadata", input.metadata);
  for (const [i, a] of input.agreements.entries()) {
    assertAgreementChannel(a.acceptedChannel, `agreements[${i}].acceptedChannel`);
  }
  const profile = approvedProfile(deps, tenant, input.rulesProfileKey);
  const level = approvedKycLevel(deps, tenant, input.kyc.tierCode);
  if (level.currency !== profile.currency) notApproved();
  const dateOfBirth = input.dateOfBirth === undefined ? null : storedDate(input.dateOfBirth, "dateOfBirth");
  // A calendar date where the customer was born: "today" somewhere is up to 14 hours ahead of UTC
  // (UTC+14), so a date is in the future only past the latest date anywhere on Earth now.
  if (
    dateOfBirth !== null &&
    dateOfBirth > iso(new Date(deps.clock.now().getTime() + LATEST_OFFSET_MS)).slice(0, 10)
  ) {
    refuse("InvalidRequest", "dateOfBirth is in the future", [
      { field: "dateOfBirth", issue: "must not be in the future" },
    ]);
  }
  if (input.kyc.riskRating === "prohibited")
    refuse("UnprocessableEntity", "A customer with a prohibited risk rating cannot be onboarded");

  const now = deps.clock.now();
  const at = iso(now);
  const customer: Customer = {
    uid: deps.ids.next("customer"),
    tenantId: tenant.id,
    status: "active",
    customerType: input.customerType,
    displayName: input.displayName,
    // Personal data, sealed as identifier values are; nothing reads it back.
    dateOfBirth: dateOfBirth === null ? null : deps.vault.seal(dateOfBirth),
    regionCode: input.regionCode ?? null,
    preferredLocale: input.preferredLocale ?? "en",
    clientReference: input.clientReference ?? null,
    metadata: input.metadata ?? null,
    createdAt: at,
  };
  const identifiers = input.identifiers.map((i) => newIdentifier(deps, tenant.id, customer.uid, i, at));
  await claimVerifiedValues(tx, tenant.id, identifiers, now);

  const wallet: Wallet = {
    uid: deps.ids.next("wallet"),
    tenantId: tenant.id,
    customerUid: customer.uid,
    purpose: "main",
    status: "active",
    currency: profile.currency,
    rulesProfileKey: profile.key,
    kycTierCode: level.code,
    createdAt: at,
  };
  const kyc = {
    ...newKycVersion(deps, tenant.id, customer.uid, input.kyc, at),
    state: "approved" as const,
    effectiveFrom: at,
  };

  await tx.customers.insert(customer);
  await tx.wallets.insert(wallet);
  for (const i of identifiers) await tx.identifiers.insert(i);
  for (const a of input.agreements)
    await tx.agreements.insert(newAgreement(deps, tenant.id, customer.uid, a, at));
  await tx.kycVersions.insert(kyc);
  await emitFirstEvent(
    deps,
    tx,
    tenant,
    "customer.created",
    customer.uid,
    "customer",
    customerEventData(customer),
    at,
  );

  return {
    uid: customer.uid,
    status: customer.status,
    customerType: customer.customerType,
    displayName: customer.displayName,
    walletUid: wallet.uid,
    kycTierCode: level.code,
    rulesProfileKey: profile.key,
    identifiers: identifiers.map(toIdentifierSummaryView),
    clientReference: customer.clientReference,
    createdAt: at,
  };
}
