/**
 * What a payout asks the provider to do. `destination.value` is clear personal data (an msisdn, an
 * e-mail): it exists only on the way to the adapter and must never be logged or stored by it.
 */
export interface PayoutInstruction {
  /** Our operation uid: the adapter sends it as the provider's idempotency key, so a resend is harmless. */
  operationUid: string;
  railCode: string;
  amountMinor: number;
  currency: string;
  destination: { type: string; value: string };
  /** Text shown to the payee with the funds: the tenant's clientReference. */
  reference: string;
}

export interface PayoutSubmission {
  /** The provider's own reference when it gave one at once, else null (it comes with the result). */
  providerReference: string | null;
}

/**
 * The port a real payment provider adapter implements (DESIGN.md 4.4). The core never calls it
 * inside a transaction: the composition root sends a payout after `createPayout` committed (build
 * the argument with `buildPayoutInstruction`, then store the answer with `recordPayoutSubmission`).
 *
 * Everything else comes back as calls of use cases, each in its own unit of work:
 * - a payout's outcome -> `reportPayoutResult({ railCode, operationUid, outcome, providerReference })`,
 *   where outcome is confirmed | failed | uncertain; repeats are idempotent;
 * - an inbound payment -> `receiveRailPayment({ railCode, reference, amountMinor, currency,
 *   providerReference })`; the same providerReference twice is credited once.
 *
 * Its catalog entry has `kind: "provider"`. The sandbox rail (`kind: "sandbox"`) has no adapter:
 * the operator API (or the server's automatic outcomes) makes those two calls.
 *
 * @example
 *   const instruction = await uow.run((tx) => buildPayoutInstruction(deps, tx, rail.code, op.uid));
 *   const { providerReference } = await rail.sendPayout(instruction);
 *   await uow.run((tx) =>
 *     recordPayoutSubmission(deps, tx, { railCode: rail.code, operationUid: op.uid, providerReference }));
 */
export interface PaymentRail {
  readonly code: string;
  /**
   * Hands the payout to the provider. Throw only when it certainly was not accepted; when the
   * answer is unknown (timeout), report `uncertain` instead of sending it again.
   */
  sendPayout(instruction: PayoutInstruction): Promise<PayoutSubmission>;
}
