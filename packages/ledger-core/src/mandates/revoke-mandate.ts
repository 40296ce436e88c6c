import type { CoreDeps, RequestContext } from "../app/context.js";
import type { Assertion } from "../assertions/model.js";
import { validateAssertion } from "../assertions/validate-assertion.js";
import { refuse } from "../shared/errors.js";
import { assertStorableStrings, hasCodePointsBetween } from "../shared/text.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { loadWalletParty } from "../wallets/movement.js";
import { loadMandate, lockMandateForChange } from "./read-mandates.js";
import { assertMandateOpen, emitMandateEvent, revokeMandateRecord } from "./rules.js";
import type { MandateView } from "./views.js";
import { toMandateView } from "./views.js";

export const REVOCATION_REASON_LENGTH_MAX = 500;

export interface RevokeMandateInput {
  reason: string;
  /** Present: the customer revokes (it must be theirs). Absent: the tenant on its own authority. */
  assertion?: Assertion | null | undefined;
}

/**
 * POST /mandates/{uid}/revoke: terminal; the cited acceptance becomes revoked; event mandate.revoked.
 * Refusals: 404 mandate, 409 already revoked, expired or completed, 422 assertion.
 */
export async function revokeMandate(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
  input: RevokeMandateInput,
): Promise<MandateView> {
  assertStorableStrings(input);
  if (!hasCodePointsBetween(input.reason, 1, REVOCATION_REASON_LENGTH_MAX)) {
    refuse("InvalidRequest", "reason must be 1 to 500 characters", [
      { field: "reason", issue: "1 to 500 characters" },
    ]);
  }
  // Locked before the assertion's checks, in the order every debit takes its locks (wallet first).
  const mandate = await lockMandateForChange(tx, await loadMandate(tx, ctx, uid));
  assertMandateOpen(mandate, deps.clock.now());
  const assertion = input.assertion ?? null;
  if (assertion) {
    const { level } = await loadWalletParty(deps, tx, ctx.tenant.id, mandate.walletUid);
    // A revocation moves no money: nothing to compare with the threshold, nothing to bind.
    await validateAssertion(deps, ctx, tx, assertion, {
      customerUid: mandate.customerUid,
      amountMinor: null,
      twoFactorThresholdMinor: level.twoFactorThresholdMinor,
      binding: null,
    });
  }
  const at = iso(deps.clock.now());
  await revokeMandateRecord(
    tx,
    mandate,
    { by: assertion ? "customer" : "tenant", reason: input.reason, agreementStatus: "revoked" },
    at,
  );
  await emitMandateEvent(deps, tx, ctx.tenant, "mandate.revoked", mandate, at);
  return toMandateView(mandate);
}
