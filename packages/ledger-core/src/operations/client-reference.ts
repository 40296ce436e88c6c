import { refuse } from "../shared/errors.js";
import { hasCodePointsBetween, isStorableText } from "../shared/text.js";
import type { Tx } from "../store/unit-of-work.js";
import type { OperationType } from "./model.js";

const what: Partial<Record<OperationType, string>> = {
  wallet_credit: "credit",
  wallet_debit: "debit",
  payout_b2c: "payout",
  topup_c2b: "top-up",
};

/** Spec, Limits: a clientReference holds 1 to 200 characters. */
export const CLIENT_REFERENCE_MAX = 200;

/**
 * 400 unless `value` is a clientReference every store keeps as given: text of 1 to 200 characters.
 * The HTTP adapter's schema refuses the same first; this guards callers of the core that pass
 * untyped input, since a reference that is not text (null, a number) would escape the uniqueness
 * that makes a repeated movement a 409 rather than a second payment.
 */
export function assertClientReference(value: unknown, field = "clientReference"): asserts value is string {
  if (
    typeof value !== "string" ||
    !hasCodePointsBetween(value, 1, CLIENT_REFERENCE_MAX) ||
    !isStorableText(value)
  ) {
    refuse("InvalidRequest", `${field} must be text of 1 to ${CLIENT_REFERENCE_MAX} characters`, [
      { field, issue: "invalid clientReference" },
    ]);
  }
}

/**
 * 409 when the tenant already has an operation of this type with the clientReference (DESIGN.md
 * section 3). Money-moving use cases call it before their business checks (so the 409 comes first)
 * and again once their accounts are locked: a twin that committed while this one waited for the
 * lock makes this one its duplicate, not a refusal for the money the twin already moved. A use case
 * that locks before any business check (a credit) calls it once, under the lock.
 */
export async function assertClientReferenceUnused(
  tx: Tx,
  tenantId: string,
  type: OperationType,
  clientReference: string,
): Promise<void> {
  assertClientReference(clientReference);
  if (await tx.operations.findByClientReference(tenantId, type, clientReference)) {
    refuseClientReferenceUsed(type);
  }
}

/** The 409 of a clientReference an operation of this type already holds. */
export function refuseClientReferenceUsed(type: OperationType): never {
  return refuse("Conflict", `clientReference is already used by another ${what[type] ?? "operation"}`);
}
