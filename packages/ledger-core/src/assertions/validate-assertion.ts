import type { CoreDeps, RequestContext } from "../app/context.js";
import { isRetired } from "../customers/model.js";
import { needsTwoFactor } from "../kyc/limits.js";
import { refuse } from "../shared/errors.js";
import { iso, storedInstant } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Assertion, BindingValues } from "./model.js";
import {
  ASSERTION_CLOCK_SKEW_SECONDS_MAX,
  ASSERTION_LIFETIME_SECONDS_MAX,
  BINDING_TEMPLATE,
  bindingCanonical,
} from "./model.js";

const insufficient = (message: string): never => refuse("AuthorizationInsufficient", message);
const HEX64 = /^[0-9a-f]{64}$/;

export interface AssertionCheck {
  /** The customer the request acts for. */
  customerUid: string;
  /** Amount compared with the two-factor threshold; null when the request moves no money. */
  amountMinor: number | null;
  twoFactorThresholdMinor: number;
  /** The request's values to recompute the binding from; null = shape-check only (POST /mandates). */
  binding: BindingValues | null;
  /**
   * True when the caller compares the assurance level with the threshold itself, later, through
   * `assertAssurance` (a payout: the spec puts the KYC limits between the binding and the
   * threshold). Otherwise it is the assertion's last check.
   */
  assuranceCheckedLater?: boolean;
}

/** The amount `check` compares with the two-factor threshold is above it. */
const aboveThreshold = (check: Pick<AssertionCheck, "amountMinor" | "twoFactorThresholdMinor">) =>
  check.amountMinor !== null && needsTwoFactor(check, check.amountMinor);

/** 422 AuthorizationInsufficient for a single-factor assertion above the two-factor threshold. */
export function assertAssurance(
  assertion: Pick<Assertion, "assuranceLevel">,
  check: Pick<AssertionCheck, "amountMinor" | "twoFactorThresholdMinor">,
): void {
  if (aboveThreshold(check) && assertion.assuranceLevel === "single_factor") {
    insufficient("A second factor is required above the two-factor threshold");
  }
}

/**
 * The one assertion check used by every route that takes an assertion (spec: refusals table).
 * Order: shape, customer, identifier ownership, lifetime, binding, sourceReference, assurance
 * (the spec's payout order puts the binding before the threshold; see `assuranceCheckedLater`).
 * Records the sourceReference as live until the assertion expires; reuse by the same customer is
 * allowed and audited, by another customer refused. Nothing else is written on a refusal because
 * the caller's transaction rolls back.
 */
export async function validateAssertion(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  assertion: Assertion,
  check: AssertionCheck,
): Promise<void> {
  if (assertion.assuranceLevel !== "single_factor" && !assertion.factor2Type) {
    refuse("InvalidRequest", "factor2Type is required unless assuranceLevel is single_factor", [
      { field: "assertion.factor2Type", issue: "required for two_factor and step_up" },
    ]);
  }
  if (assertion.customerUid !== check.customerUid) {
    refuse("UnprocessableEntity", "The assertion is not for the customer this request acts for");
  }
  const now = deps.clock.now();
  if (assertion.identifierUid !== undefined) {
    const identifier = await tx.identifiers.get(ctx.tenant.id, assertion.identifierUid);
    if (!identifier || identifier.customerUid !== check.customerUid) {
      return refuse("UnprocessableEntity", "The assertion's identifier does not belong to the customer");
    }
    // One the tenant revoked or rejected, or retired (past validTo), authenticates no one.
    if (
      identifier.verificationStatus === "revoked" ||
      identifier.verificationStatus === "rejected" ||
      isRetired(identifier, now)
    ) {
      refuse("UnprocessableEntity", "The assertion's identifier can no longer authenticate the customer");
    }
  }

  // Read as the API reads them (RFC 3339 only: Date.parse would take RFC 2822, or a time without
  // a zone in the host's own), digits past the millisecond dropped.
  const authenticatedAt = Date.parse(
    storedInstant(assertion.authenticatedAt, "assertion.authenticatedAt", "upper"),
  );
  const expiresAt = Date.parse(storedInstant(assertion.expiresAt, "assertion.expiresAt", "upper"));
  if (!(expiresAt > authenticatedAt)) insufficient("The assertion must expire after it was authenticated");
  if (expiresAt - authenticatedAt > ASSERTION_LIFETIME_SECONDS_MAX * 1000)
    insufficient("The assertion lives longer than 10 minutes");
  if (expiresAt <= now.getTime()) insufficient("The assertion has expired");
  if (authenticatedAt > now.getTime() + ASSERTION_CLOCK_SKEW_SECONDS_MAX * 1000)
    insufficient("The assertion is authenticated in the future");

  const binding = assertion.transactionBinding;
  if (binding) {
    if (
      binding.algorithm !== "sha256" ||
      binding.canonical !== BINDING_TEMPLATE ||
      !HEX64.test(binding.hash)
    ) {
      refuse("AssertionNotBoundToTransaction", "The transaction binding does not follow the binding rule");
    }
    if (check.binding && binding.hash !== deps.hasher.sha256Hex(bindingCanonical(check.binding))) {
      refuse("AssertionNotBoundToTransaction", "The assertion is not bound to this transaction");
    }
  } else if (aboveThreshold(check) && check.binding) {
    refuse(
      "AssertionNotBoundToTransaction",
      "A transaction binding is required above the two-factor threshold",
    );
  }

  const nowIso = iso(now);
  const live = await tx.assertions.findLive(ctx.tenant.id, assertion.sourceReference, nowIso);
  if (live && live.customerUid !== check.customerUid) {
    refuse("UnprocessableEntity", "The assertion's sourceReference is in use by another customer");
  }
  if (!check.assuranceCheckedLater) assertAssurance(assertion, check);
  if (live) {
    await tx.audit.append({
      at: nowIso,
      tenantId: ctx.tenant.id,
      kid: ctx.kid,
      action: "assertion.source_reference_reused",
      customerUid: check.customerUid,
      identifierUids: assertion.identifierUid ? [assertion.identifierUid] : [],
      requestId: ctx.requestId,
    });
  }
  await tx.assertions.record({
    tenantId: ctx.tenant.id,
    sourceReference: assertion.sourceReference,
    customerUid: check.customerUid,
    expiresAt: iso(new Date(expiresAt)),
    recordedAt: nowIso,
  });
}
