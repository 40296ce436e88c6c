import type { CoreDeps } from "../app/context.js";
import { emitEvent } from "../events/emit.js";
import type { EventType } from "../events/model.js";
import { refuse } from "../shared/errors.js";
import { utcDayStart, utcIsoWeekStart, utcMonthStart } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Beneficiary, Catalog } from "../tenants/catalog.js";
import type { Tenant } from "../tenants/model.js";
import type { Mandate, MandateFrequency, MandateStatus } from "./model.js";
import { terminalMandateStatuses } from "./model.js";
import { mandateEventData } from "./views.js";

export const isTerminalMandate = (m: Mandate): boolean => terminalMandateStatuses.includes(m.status);

/**
 * A mandate's status at `now` for the routes that change it (revoke, replace, the operator's
 * suspend and resume): the stored status, except that a mandate whose validTo has passed is
 * `expired` and a pending one whose validFrom has passed is `active`, before the jobs have written
 * it. Their answers thus never depend on when the jobs last ran; reads show the stored status,
 * and the expiry job still writes it and emits mandate.expired.
 */
export function mandateStatusAsOf(m: Mandate, now: Date): MandateStatus {
  if (isTerminalMandate(m)) return m.status;
  if (m.validTo !== null && Date.parse(m.validTo) <= now.getTime()) return "expired";
  if (m.status === "pending" && Date.parse(m.validFrom) <= now.getTime()) return "active";
  return m.status;
}

/** 409 when the mandate is revoked, expired or completed at `now` (see mandateStatusAsOf). */
export function assertMandateOpen(m: Mandate, now: Date, what = "The mandate"): void {
  const status = mandateStatusAsOf(m, now);
  if (terminalMandateStatuses.includes(status)) refuse("Conflict", `${what} is already ${status}`);
}

/** The beneficiary a mandate pays, if the catalog holds one set up to collect mandate debits (else 422). */
export function collectingBeneficiary(catalog: Catalog, entityCode: string): Beneficiary {
  const beneficiary = catalog.beneficiaries.find((b) => b.entityCode === entityCode);
  if (!beneficiary?.canCollect) {
    return refuse("UnprocessableEntity", "The beneficiary cannot collect mandate debits", [
      { field: "beneficiaryEntityCode", issue: "not a beneficiary set up to collect mandate debits" },
    ]);
  }
  return beneficiary;
}

/** validFrom <= now < validTo: validTo is the instant the mandate expires (the expiry job uses <=). */
export function isInValidityWindow(m: Mandate, now: Date): boolean {
  const t = now.getTime();
  return Date.parse(m.validFrom) <= t && (m.validTo === null || t < Date.parse(m.validTo));
}

/**
 * A debit needs an active mandate inside its validity window (422 otherwise). A pending mandate
 * whose validFrom has passed counts as active, so a late activation job never refuses a debit the
 * spec allows ("active after validFrom").
 */
export function assertMandateDebitable(m: Mandate, now: Date): void {
  const active = m.status === "active" || m.status === "pending";
  if (!active || !isInValidityWindow(m, now)) {
    refuse("UnprocessableEntity", "The mandate is not active or is outside its validity window");
  }
}

/** fixed: exactly the mandate's amount; up_to: at most it; formula: never (mandates refuse it). */
export function assertAmountRule(m: Mandate, amountMinor: number): void {
  const limit = m.fixedOrMaxAmountMinor;
  const ok =
    limit !== null &&
    ((m.amountRule === "fixed" && amountMinor === limit) ||
      (m.amountRule === "up_to" && amountMinor <= limit));
  if (!ok) {
    const issue =
      m.amountRule === "fixed"
        ? `must equal ${limit}`
        : m.amountRule === "up_to"
          ? `must be at most ${limit}`
          : "the mandate's amount rule cannot be applied";
    refuse("UnprocessableEntity", "The amount does not satisfy the mandate's amount rule", [
      { field: "amountMinor", issue },
    ]);
  }
}

const EVER = new Date(0);

/**
 * Start of the UTC period that holds `now` for a frequency (DESIGN.md section 3): daily and
 * on_due_date a UTC day, weekly an ISO week from Monday, monthly a calendar month, one_time all
 * time. null for ad_hoc, which has no period limit.
 */
export function frequencyPeriodStart(frequency: MandateFrequency, now: Date): Date | null {
  switch (frequency) {
    case "daily":
    case "on_due_date":
      return utcDayStart(now);
    case "weekly":
      return utcIsoWeekStart(now);
    case "monthly":
      return utcMonthStart(now);
    case "one_time":
      return EVER;
    case "ad_hoc":
      return null;
  }
}

export type MandateEventType = Extract<EventType, `mandate.${string}`>;

export const emitMandateEvent = (
  deps: CoreDeps,
  tx: Tx,
  tenant: Tenant,
  type: MandateEventType,
  m: Mandate,
  at: string,
) => emitEvent(deps, tx, tenant, type, m.uid, "mandate", mandateEventData(m), at);

export interface Revocation {
  by: NonNullable<Mandate["revokedBy"]>;
  reason: string;
  /** What the cited acceptance becomes: `superseded` when a replacement takes over, else `revoked`. */
  agreementStatus: "revoked" | "superseded";
}

/** Revokes a mandate and its acceptance in the caller's transaction. Mutates and persists `m`. */
export async function revokeMandateRecord(tx: Tx, m: Mandate, r: Revocation, at: string): Promise<void> {
  m.status = "revoked";
  m.revokedAt = at;
  m.revokedBy = r.by;
  m.revocationReason = r.reason;
  m.updatedAt = at;
  await tx.mandates.update(m);
  if (m.agreementUid !== null) await tx.agreements.setStatus(m.tenantId, m.agreementUid, r.agreementStatus);
}
