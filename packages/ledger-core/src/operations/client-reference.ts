import { refuse } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import type { OperationType } from "./model.js";

const what: Partial<Record<OperationType, string>> = {
  wallet_credit: "credit",
  wallet_debit: "debit",
  payout_b2c: "payout",
  topup_c2b: "top-up",
};

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
  if (await tx.operations.findByClientReference(tenantId, type, clientReference)) {
    refuse("Conflict", `clientReference is already used by another ${what[type] ?? "operation"}`);
  }
}
