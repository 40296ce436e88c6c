import type { CoreDeps } from "../app/context.js";
import { invariant } from "../shared/errors.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Tenant } from "../tenants/model.js";
import { emitMandateEvent } from "./rules.js";

const assertLimit = (limit: number) =>
  invariant(Number.isSafeInteger(limit) && limit >= 1, "a job batch limit is a positive integer");

/** Stored timestamps compare as strings, so the instant must be in their one format. */
function normalizeAsOf(asOfIso: string): string {
  const t = Date.parse(asOfIso);
  invariant(!Number.isNaN(t), "a job's asOf is an ISO-8601 timestamp");
  return iso(new Date(t));
}

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
  assertLimit(limit);
  const due = await tx.mandates.listDue("activate", normalizeAsOf(asOfIso), limit);
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
  assertLimit(limit);
  const due = await tx.mandates.listDue("expire", normalizeAsOf(asOfIso), limit);
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
