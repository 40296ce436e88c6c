import type { CoreDeps, RequestContext } from "../app/context.js";
import { assertOneOf, notFound, refuse } from "../shared/errors.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso, storedInstant } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { lockCustomerWallets } from "../wallets/lock-customer-wallets.js";
import type { Customer, Identifier, VerificationStatus } from "./model.js";
import { verificationStatuses } from "./model.js";
import type { IdentifierInput } from "./records.js";
import { newIdentifier } from "./records.js";
import { claimVerifiedValues } from "./rules.js";
import type { IdentifierView } from "./views.js";
import { toIdentifierView } from "./views.js";

export const loadCustomer = async (tx: Tx, ctx: RequestContext, uid: string): Promise<Customer> =>
  (await tx.customers.get(ctx.tenant.id, uid)) ?? notFound("Customer");

/**
 * The customer, locked for a change that reads its identifiers, agreements or KYC versions to
 * decide (one primary per class, one pending KYC version): two such requests for one customer
 * apply one after the other, the second seeing what the first wrote.
 */
export const lockCustomer = async (tx: Tx, ctx: RequestContext, uid: string): Promise<Customer> =>
  (await tx.customers.getForUpdate(ctx.tenant.id, uid)) ?? notFound("Customer");

/** Demotes the current primary identifier of the class when another becomes primary. */
async function demotePrimary(
  tx: Tx,
  tenantId: string,
  customerUid: string,
  newPrimary: Identifier,
): Promise<void> {
  for (const other of await tx.identifiers.listByCustomer(tenantId, customerUid)) {
    if (other.uid !== newPrimary.uid && other.class === newPrimary.class && other.isPrimary) {
      await tx.identifiers.update({ ...other, isPrimary: false });
    }
  }
}

/** POST /customers/{uid}/identifiers. */
export async function addIdentifier(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  customerUid: string,
  input: IdentifierInput,
): Promise<IdentifierView> {
  assertStorableStrings(input);
  const customer = await lockCustomer(tx, ctx, customerUid);
  const now = deps.clock.now();
  const identifier = newIdentifier(deps, ctx.tenant.id, customer.uid, input, iso(now));
  await claimVerifiedValues(tx, ctx.tenant.id, [identifier], now);
  if (identifier.isPrimary) await demotePrimary(tx, ctx.tenant.id, customer.uid, identifier);
  await tx.identifiers.insert(identifier);
  return toIdentifierView(identifier, now);
}

/** GET /customers/{uid}/identifiers: `{ data }`, no pagination. */
export async function listIdentifiers(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  customerUid: string,
): Promise<{ data: IdentifierView[] }> {
  const customer = await loadCustomer(tx, ctx, customerUid);
  const now = deps.clock.now();
  return {
    data: (await tx.identifiers.listByCustomer(ctx.tenant.id, customer.uid)).map((i) =>
      toIdentifierView(i, now),
    ),
  };
}

export interface UpdateIdentifierInput {
  verificationStatus: VerificationStatus;
  /** The key is required; null unless verified. */
  verifiedAt: string | null;
  /** Retires the identifier at that instant. */
  validTo?: string | undefined;
}

/** PATCH /customers/{uid}/identifiers/{iid}. */
export async function updateIdentifier(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  customerUid: string,
  identifierUid: string,
  input: UpdateIdentifierInput,
): Promise<IdentifierView> {
  assertStorableStrings(input);
  assertOneOf("verificationStatus", input.verificationStatus, verificationStatuses);
  const customer = await lockCustomer(tx, ctx, customerUid);
  const current = await tx.identifiers.get(ctx.tenant.id, identifierUid);
  if (!current || current.customerUid !== customer.uid) return notFound("Identifier");
  // A payout reads its destination (and an assertion its identifier) under its wallet's lock: with
  // the wallets locked here, one in flight commits before this change is answered, and one
  // starting meanwhile reads the change (no payout to an identifier after its revocation returned).
  await lockCustomerWallets(tx, ctx.tenant.id, customer.uid);
  const verifiedAt =
    input.verifiedAt === null ? null : storedInstant(input.verifiedAt, "verifiedAt", "upper");
  const validTo = input.validTo === undefined ? undefined : storedInstant(input.validTo, "validTo", "upper");
  if (input.verificationStatus === "verified" && verifiedAt === null) {
    refuse("InvalidRequest", "verifiedAt is required when verificationStatus is verified", [
      { field: "verifiedAt", issue: "must be an ISO-8601 timestamp when verified" },
    ]);
  }
  if (validTo !== undefined && validTo < current.validFrom) {
    refuse("InvalidRequest", "validTo cannot be before the identifier's validFrom", [
      { field: "validTo", issue: "before validFrom" },
    ]);
  }
  const updated: Identifier = {
    ...current,
    verificationStatus: input.verificationStatus,
    verifiedAt,
    validTo: validTo ?? current.validTo,
  };
  const now = deps.clock.now();
  await claimVerifiedValues(tx, ctx.tenant.id, [updated], now);
  await tx.identifiers.update(updated);
  return toIdentifierView(updated, now);
}
