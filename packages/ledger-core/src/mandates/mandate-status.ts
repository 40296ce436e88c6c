import type { CoreDeps } from "../app/context.js";
import { assertOneOf, notFound, refuse } from "../shared/errors.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { MandateStatus } from "./model.js";
import { lockMandateForChange } from "./read-mandates.js";
import { emitMandateEvent, mandateStatusAsOf } from "./rules.js";
import type { MandateView } from "./views.js";
import { toMandateView } from "./views.js";

/** The statuses each operator move starts from: suspend an active or pending mandate, resume a suspended one. */
const requiredFrom: Record<"suspended" | "active", readonly MandateStatus[]> = {
  suspended: ["active", "pending"],
  active: ["suspended"],
};

/**
 * Operator: PATCH /admin/mandates/{uid} with `suspended` (from active or pending) or `active`
 * (from suspended), going by the status at this instant (`mandateStatusAsOf`); anything else is
 * 409. Resuming puts the mandate back where it was: active, or pending while validFrom is ahead
 * (the activation job then activates it). Event mandate.status_changed.
 */
export async function setMandateStatus(
  deps: CoreDeps,
  tx: Tx,
  uid: string,
  status: "suspended" | "active",
): Promise<MandateView> {
  assertOneOf("status", status, ["suspended", "active"] as const);
  const mandate = await lockMandateForChange(tx, (await tx.mandates.getAny(uid)) ?? notFound("Mandate"));
  const now = deps.clock.now();
  const current = mandateStatusAsOf(mandate, now);
  if (!requiredFrom[status].includes(current)) {
    refuse("Conflict", `A ${current} mandate cannot become ${status}`);
  }
  const tenant = (await tx.tenants.get(mandate.tenantId)) ?? notFound("Tenant");
  const at = iso(now);
  mandate.status = status === "active" && Date.parse(mandate.validFrom) > now.getTime() ? "pending" : status;
  mandate.updatedAt = at;
  await tx.mandates.update(mandate);
  await emitMandateEvent(deps, tx, tenant, "mandate.status_changed", mandate, at);
  return toMandateView(mandate);
}
