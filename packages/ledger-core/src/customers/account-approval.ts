import type { CoreDeps } from "../app/context.js";
import { refuse } from "../shared/errors.js";
import type { KycLevel, Rail, WalletProfile } from "../tenants/catalog.js";
import { findKycLevel, findProfile, findRail } from "../tenants/catalog.js";
import type { Tenant } from "../tenants/model.js";

/**
 * The spec's generic refusal: a profile, KYC level or rail outside the account's approval is 422
 * with one message that does not reveal which of them exist.
 */
export const notApproved = (): never =>
  refuse("UnprocessableEntity", "The request cannot be processed for this account");

export function approvedProfile(deps: CoreDeps, tenant: Tenant, key: string | undefined): WalletProfile {
  const k = key ?? tenant.defaultProfile;
  if (!k || !tenant.approvedProfiles.includes(k)) return notApproved();
  return findProfile(deps.catalog, k) ?? notApproved();
}

export function approvedKycLevel(deps: CoreDeps, tenant: Tenant, code: string): KycLevel {
  if (!tenant.approvedKycLevels.includes(code)) return notApproved();
  return findKycLevel(deps.catalog, code) ?? notApproved();
}

export function approvedRail(deps: CoreDeps, tenant: Tenant, code: string): Rail {
  if (!tenant.approvedRails.includes(code)) return notApproved();
  const rail = findRail(deps.catalog, code);
  return rail?.status === "active" ? rail : notApproved();
}
