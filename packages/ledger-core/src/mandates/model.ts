import type { Page, Paged } from "../operations/repository.js";

export const mandateStatuses = ["pending", "active", "suspended", "revoked", "expired", "completed"] as const;
export type MandateStatus = (typeof mandateStatuses)[number];

export const amountRules = ["fixed", "up_to", "formula"] as const;
export type AmountRule = (typeof amountRules)[number];

export const mandateFrequencies = [
  "one_time",
  "daily",
  "weekly",
  "monthly",
  "on_due_date",
  "ad_hoc",
] as const;
export type MandateFrequency = (typeof mandateFrequencies)[number];

/** Statuses a mandate never leaves. */
export const terminalMandateStatuses: readonly MandateStatus[] = ["revoked", "expired", "completed"];

/** A customer's standing consent to be debited to a beneficiary. */
export interface Mandate {
  uid: string;
  tenantId: string;
  customerUid: string;
  walletUid: string;
  beneficiaryEntityCode: string;
  clientReference: string | null;
  amountRule: AmountRule;
  /** Exact (fixed) or maximum (up_to) debit; null for formula. */
  fixedOrMaxAmountMinor: number | null;
  frequency: MandateFrequency;
  currency: string;
  validFrom: string;
  validTo: string | null;
  status: MandateStatus;
  agreementUid: string | null;
  replacesMandateUid: string | null;
  revokedAt: string | null;
  revocationReason: string | null;
  /** Who revoked: the customer (with an assertion), the tenant, or the system (superseded). */
  revokedBy: "customer" | "tenant" | "system" | null;
  createdAt: string;
  updatedAt: string;
}

export interface MandateFilter {
  tenantId: string;
  customerUid?: string | undefined;
  status?: MandateStatus | undefined;
}

export interface MandateRepository {
  insert(m: Mandate): Promise<void>;
  update(m: Mandate): Promise<void>;
  get(tenantId: string, uid: string): Promise<Mandate | null>;
  /** Unscoped lookup for the operator API and jobs. */
  getAny(uid: string): Promise<Mandate | null>;
  list(filter: MandateFilter, page: Page): Promise<Paged<Mandate>>;
  countByCustomer(tenantId: string, customerUid: string): Promise<number>;
  /**
   * Mandates a job must move at `asOfIso`, oldest first, at most `limit`:
   * `activate` = pending with validFrom <= asOf; `expire` = pending, active or suspended with
   * validTo <= asOf.
   */
  listDue(kind: "activate" | "expire", asOfIso: string, limit: number): Promise<Mandate[]>;
}
