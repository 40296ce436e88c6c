import type { CoreDeps } from "../app/context.js";
import { approvedRail, notApproved } from "../customers/account-approval.js";
import type { Rail } from "../tenants/catalog.js";
import type { Tenant } from "../tenants/model.js";

/**
 * The rail a payout or top-up may use: approved for the account, active, able to move money in
 * the asked direction and in the wallet's currency. Every failure is the spec's generic 422.
 */
export function railFor(
  deps: CoreDeps,
  tenant: Tenant,
  railCode: string,
  capability: "payouts" | "payins",
  currency: string,
): Rail {
  const rail = approvedRail(deps, tenant, railCode);
  if (!rail[capability] || rail.currency !== currency) notApproved();
  return rail;
}
