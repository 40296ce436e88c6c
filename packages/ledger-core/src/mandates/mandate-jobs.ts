import type { CoreDeps } from "../app/context.js";
import { invariant } from "../shared/errors.js";
import { jobBatchAsOf } from "../shared/job-batch.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Tenant } from "../tenants/model.js";
import { emitMandateEvent } from "./rules.js";

/**
 * Job activate-mandates: pending mandates whose validFrom <= asOf become active, at most `limit`
 * per run. Returns how many moved; a second run at the same instant moves none. The spec lists
 * no event for activation, so none is written.
 */
export async function activateDueMandates(
  deps: CoreDeps,
  tx: Tx,
  asOfIso: string,
  limit: number,
): Promise<number> {
  const asOf = jobBatchAsOf(asOfIso, limit);
  const due = await tx.mandates.listDue("activate", asOf, limit);
  const at = iso(deps.clock.now());
  for (const m of due) {
    m.status = "active";
    m.updatedAt = at;
    await tx.mandates.update(m);
  }
  return due.length;
}

/**
 * Job expire-mandates: pending, active or suspended mandates whose validTo <= asOf become
 * expired, at most `limit` per run, each with event mandate.expired. Returns how many moved.
 */
export async function expireDueMandates(
  deps: CoreDeps,
  tx: Tx,
  asOfIso: string,
  limit: number,
): Promise<number> {
  const asOf = jobBatchAsOf(asOfIso, limit);
  const due = await tx.mandates.listDue("expire", asOf, limit);
  const at = iso(deps.clock.now());
  const tenants = new Map<string, Tenant>();
  for (const m of due) {
    let tenant = tenants.get(m.tenantId);
    if (!tenant) {
      const found = await tx.tenants.get(m.tenantId);
      invariant(found, "a mandate always has its tenant");
      tenant = found;
      tenants.set(tenant.id, tenant);
    }
    m.status = "expired";
    m.updatedAt = at;
    await tx.mandates.update(m);
    await emitMandateEvent(deps, tx, tenant, "mandate.expired", m, at);
  }
  return due.length;
}
