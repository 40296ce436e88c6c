import type { CoreDeps, RequestContext } from "../app/context.js";
import { approvedKycLevel, notApproved } from "../customers/account-approval.js";
import { lockCustomer } from "../customers/identifiers.js";
import type { KycVersion } from "../customers/model.js";
import type { KycVersionInput } from "../customers/records.js";
import { newKycVersion } from "../customers/records.js";
import { emitEvent } from "../events/emit.js";
import { assertOneOf, invariant, notFound, refuse } from "../shared/errors.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { findKycLevel } from "../tenants/catalog.js";
import type { Tenant } from "../tenants/model.js";
import { readWalletBalance } from "../wallets/get-wallet-balance.js";
import { lockCustomerWallets } from "../wallets/lock-customer-wallets.js";
import { setWalletStatus } from "../wallets/statuses.js";

export interface KycVersionView {
  uid: string;
  customerUid: string;
  tierCode: string;
  reviewType: KycVersion["reviewType"];
  state: KycVersion["state"];
  verificationSource: string;
  sourceReference: string | null;
  riskRating: KycVersion["riskRating"];
  evidenceHash: string;
  effectiveFrom: string | null;
  createdAt: string;
}

export const toKycVersionView = (v: KycVersion): KycVersionView => ({
  uid: v.uid,
  customerUid: v.customerUid,
  tierCode: v.tierCode,
  reviewType: v.reviewType,
  state: v.state,
  verificationSource: v.verificationSource,
  sourceReference: v.sourceReference,
  riskRating: v.riskRating,
  evidenceHash: v.evidenceHash,
  effectiveFrom: v.effectiveFrom,
  createdAt: v.createdAt,
});

/** The level that approves at once (spec: upgrade or downgrade to tier_1, risk not prohibited). */
export const AUTO_APPROVED_TIER = "tier_1";

/**
 * POST /customers/{uid}/kyc-versions. Versions are appended, never edited. An upgrade or downgrade
 * must move the level's maximum balance in the named direction (422); one pending version at a
 * time (409). Upgrades and downgrades to tier_1 with a risk other than prohibited are approved at
 * once; everything else waits for the operator's decision.
 */
export async function submitKycVersion(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  customerUid: string,
  input: Omit<KycVersionInput, "reviewType"> & {
    reviewType: "upgrade" | "downgrade" | "periodic_review" | "event_driven_review";
  },
): Promise<KycVersionView> {
  assertStorableStrings(input);
  // Every review type but onboarding (which only onboarding writes).
  assertOneOf("reviewType", input.reviewType, [
    "upgrade",
    "downgrade",
    "periodic_review",
    "event_driven_review",
  ] as const);
  // Locked: the one-pending rule below reads the customer's versions.
  const customer = await lockCustomer(tx, ctx, customerUid);
  const level = approvedKycLevel(deps, ctx.tenant, input.tierCode);
  // A level's limits are amounts of its currency: one of another currency would run the wallets
  // on foreign limits (the generic refusal, as at onboarding).
  const wallets = await tx.wallets.listByCustomer(ctx.tenant.id, customer.uid);
  if (wallets.some((w) => w.currency !== level.currency)) notApproved();
  const versions = await tx.kycVersions.listByCustomer(ctx.tenant.id, customer.uid);
  if (versions.some((v) => v.state === "pending"))
    refuse("Conflict", "The customer already has a pending KYC version");
  const current = versions.filter((v) => v.state === "approved").at(-1);
  const currentLevel = current ? findKycLevel(deps.catalog, current.tierCode) : null;
  if (input.reviewType === "upgrade" || input.reviewType === "downgrade") {
    const up = input.reviewType === "upgrade";
    const moves =
      currentLevel === null ||
      (up
        ? level.maxBalanceMinor > currentLevel.maxBalanceMinor
        : level.maxBalanceMinor < currentLevel.maxBalanceMinor);
    if (!moves) {
      refuse(
        "UnprocessableEntity",
        `${up ? "An upgrade" : "A downgrade"} must ${up ? "raise" : "lower"} the KYC level's maximum balance`,
        [{ field: "tierCode", issue: `does not ${up ? "raise" : "lower"} the maximum balance` }],
      );
    }
  }
  const at = iso(deps.clock.now());
  const version = newKycVersion(deps, ctx.tenant.id, customer.uid, input, at);
  await tx.kycVersions.insert(version);
  const autoApprove =
    (input.reviewType === "upgrade" || input.reviewType === "downgrade") &&
    level.code === AUTO_APPROVED_TIER &&
    input.riskRating !== "prohibited";
  if (autoApprove)
    return toKycVersionView(await applyDecision(deps, tx, ctx.tenant, version, "approved", null, at));
  return toKycVersionView(version);
}

/**
 * Approves or rejects a pending version. On approval the previous approved version is superseded,
 * the customer's wallets move to the new level, and a wallet whose balance exceeds the new maximum
 * becomes credit_blocked. Emits customer.kyc_changed either way.
 */
async function applyDecision(
  deps: CoreDeps,
  tx: Tx,
  tenant: Tenant,
  version: KycVersion,
  decision: "approved" | "rejected",
  reason: string | null,
  at: string,
): Promise<KycVersion> {
  invariant(version.state === "pending", "only a pending version is decided");
  const decided: KycVersion = {
    ...version,
    state: decision,
    effectiveFrom: decision === "approved" ? at : null,
    rejectionReason: decision === "rejected" ? (reason ?? "rejected") : null,
  };
  if (decision === "approved") {
    const level = findKycLevel(deps.catalog, version.tierCode);
    invariant(level, "a decided version names a level of the catalog");
    // Locked and read again (`lockCustomerWallets`): the block below is decided on each status as
    // it is now (a freeze that committed meanwhile stays a freeze), and movements in flight on the
    // wallets, which hold them share-locked, have committed, so the balances read include them.
    const wallets = await lockCustomerWallets(tx, tenant.id, version.customerUid);
    // A version submitted before its level's currency was checked: never approved onto wallets
    // of another currency.
    if (wallets.some((w) => w.currency !== level.currency)) {
      refuse("UnprocessableEntity", "The KYC level's currency is not the customer's wallets' currency");
    }
    for (const previous of await tx.kycVersions.listByCustomer(tenant.id, version.customerUid)) {
      if (previous.state === "approved") await tx.kycVersions.update({ ...previous, state: "superseded" });
    }
    for (const wallet of wallets) {
      await tx.wallets.setKycTier(tenant.id, wallet.uid, level.code);
      const balance = await readWalletBalance(tx, wallet);
      if (balance.currentMinor > level.maxBalanceMinor && wallet.status === "active") {
        await setWalletStatus(deps, tx, tenant, wallet, "credit_blocked", at);
      }
    }
  }
  await tx.kycVersions.update(decided);
  const customer = await tx.customers.get(tenant.id, version.customerUid);
  invariant(customer, "a KYC version has its customer");
  await emitEvent(
    deps,
    tx,
    tenant,
    "customer.kyc_changed",
    customer.uid,
    "customer",
    {
      uid: customer.uid,
      status: customer.status,
      kycVersionUid: decided.uid,
      kycTierCode: decided.tierCode,
      kycVersionState: decided.state,
      reviewType: decided.reviewType,
      rejectionReason: decided.rejectionReason,
    },
    at,
  );
  return decided;
}

/** Operator: decides a pending KYC version (compliance review). 409 when it is not pending. */
export async function decideKycVersion(
  deps: CoreDeps,
  tx: Tx,
  uid: string,
  decision: "approved" | "rejected",
  reason: string | null,
): Promise<KycVersionView> {
  assertOneOf("decision", decision, ["approved", "rejected"] as const);
  assertStorableStrings(reason, "reason");
  const found = (await tx.kycVersions.getAny(uid)) ?? notFound("KYC version");
  // Lock the customer, then read the version again: two decisions racing for one version apply
  // one after the other, and the second sees the first's outcome (409) instead of applying too.
  await tx.customers.getForUpdate(found.tenantId, found.customerUid);
  const version = (await tx.kycVersions.getAny(uid)) ?? notFound("KYC version");
  if (version.state !== "pending") refuse("Conflict", `The KYC version is ${version.state}, not pending`);
  const tenant = (await tx.tenants.get(version.tenantId)) ?? notFound("Tenant");
  return toKycVersionView(
    await applyDecision(deps, tx, tenant, version, decision, reason, iso(deps.clock.now())),
  );
}
