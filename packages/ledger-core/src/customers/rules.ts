import { refuse } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Identifier } from "./model.js";
import { isRetired } from "./model.js";
import type { IdentifierInput } from "./records.js";

/** At most one primary identifier per class in one request. */
export function assertOnePrimaryPerClass(identifiers: IdentifierInput[]): void {
  const seen = new Set<string>();
  identifiers.forEach((i, index) => {
    if (!i.isPrimary) return;
    if (seen.has(i.class)) {
      refuse("InvalidRequest", "Only one identifier per class can be primary", [
        {
          field: `identifiers[${index}].isPrimary`,
          issue: `a primary ${i.class} identifier is already given`,
        },
      ]);
    }
    seen.add(i.class);
  });
}

/** The spec refuses consent captured on the service's own portal. */
export function assertAgreementChannel(channel: string, field: string): void {
  if (channel === "portal") {
    refuse("UnprocessableEntity", "acceptedChannel portal is not accepted", [
      { field, issue: "the value portal is refused" },
    ]);
  }
}

/**
 * A verified identifier's value is held by one identifier of the tenant at a time (409 while
 * another holds it). A holder past its validTo gives the value up (a phone number the operator
 * recycled): it is set `expired` in this unit of work, so a refusal later in it keeps it verified.
 * The blind index compares normalized values without clear text; other tenants are never looked at.
 */
export async function claimVerifiedValues(
  tx: Tx,
  tenantId: string,
  identifiers: Identifier[],
  now: Date,
): Promise<void> {
  const duplicate = () =>
    refuse("Conflict", "The tenant already holds a customer with this verified identifier");
  const seen = new Set<string>();
  // In blind index order: a store may lock each value it looks up (Postgres does, until the
  // transaction ends), and two requests claiming the same values must take those locks in one
  // order, or each could wait for the other.
  const verified = identifiers
    .filter((i) => i.verificationStatus === "verified")
    .sort((a, b) => (a.blindIndex < b.blindIndex ? -1 : a.blindIndex > b.blindIndex ? 1 : 0));
  for (const i of verified) {
    if (seen.has(i.blindIndex)) duplicate();
    seen.add(i.blindIndex);
    const holder = await tx.identifiers.findVerifiedByBlindIndex(tenantId, i.blindIndex, i.uid);
    if (holder === null) continue;
    if (!isRetired(holder, now)) duplicate();
    await tx.identifiers.expireRetired(tenantId, holder.uid, holder.validTo as string);
  }
}
