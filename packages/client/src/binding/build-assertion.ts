import type {
  CreatePayoutRequest,
  DebitWalletRequest,
  RevokeMandateRequest,
} from "../generated/api-types.js";
import { assertionTransactionBinding } from "./transaction-binding.js";

/** The `assertion` object of POST /payouts, /wallet-debits and /mandates (one shape everywhere). */
export type Assertion = CreatePayoutRequest["assertion"];

/** What the tenant's own authentication of the customer established. */
export interface CustomerAuthentication {
  /** The customer who authenticated: the one the request acts for. */
  customerUid: string;
  /** The identifier used to authenticate (must be the customer's). */
  identifierUid?: string | undefined;
  /** Default `two_factor`, which the service requires above the customer's two-factor threshold. */
  assuranceLevel?: Assertion["assuranceLevel"] | undefined;
  /** e.g. `pin`, `password`, `biometric` (at most 32 characters). */
  factor1Type: string;
  /** e.g. `otp`, `device`; required unless assuranceLevel is `single_factor`. */
  factor2Type?: string | undefined;
  /** Default: now. */
  authenticatedAt?: Date | string | undefined;
  /**
   * Default: 5 minutes after authenticatedAt. The service accepts at most 10 minutes after it, and
   * only while still in the future.
   */
  expiresAt?: Date | string | undefined;
  /** The tenant's channel, e.g. `mobile_app` (at most 40 characters). */
  channelCode: string;
  /** SHA-256 hex of the device fingerprint. */
  deviceHash?: string | undefined;
  /** The tenant's session or login id (at most 160 characters). */
  sourceReference: string;
}

type PayoutFields = Pick<
  CreatePayoutRequest,
  "walletUid" | "amountMinor" | "currency" | "destinationIdentifierUid" | "clientReference"
>;
type WalletDebitFields = Pick<
  DebitWalletRequest,
  "walletUid" | "amountMinor" | "currency" | "mandateUid" | "clientReference"
>;

/**
 * The route an assertion is for, and the request fields its transaction binding covers:
 * POST /payouts binds destinationIdentifierUid, POST /wallet-debits binds mandateUid, and
 * POST /mandates and POST /mandates/{uid}/revoke have no amount to bind (no binding is sent).
 */
export type AssertionTarget =
  | { route: "payout"; request: PayoutFields }
  | { route: "walletDebit"; request: WalletDebitFields }
  | { route: "mandate" }
  | { route: "mandateRevoke" };

export type BuildAssertionInput = CustomerAuthentication & AssertionTarget;

const defaultLifetimeMs = 5 * 60_000;

function isoOf(value: Date | string, name: string): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) throw new TypeError(`buildAssertion: ${name} is not a valid date`);
  return date.toISOString();
}

/**
 * The `assertion` for a money-moving request, with its transaction binding computed from the
 * same request fields the service will recompute it from. Pass the values you send, unchanged.
 *
 * @example
 * const body = { walletUid, destinationIdentifierUid: msisdnUid, amountMinor: 150_000, currency: "KES",
 *   railCode: "sandbox_mobile", clientReference: "po-1" };
 * await client.payouts.create({ ...body, assertion: buildAssertion({ route: "payout", request: body,
 *   customerUid, factor1Type: "pin", factor2Type: "otp", channelCode: "mobile_app", sourceReference: "sess-1" }) });
 */
export function buildAssertion(input: BuildAssertionInput): Assertion {
  const assuranceLevel = input.assuranceLevel ?? "two_factor";
  if (assuranceLevel !== "single_factor" && !input.factor2Type) {
    throw new TypeError(`buildAssertion: factor2Type is required for ${assuranceLevel}`);
  }
  const authenticatedAt = isoOf(input.authenticatedAt ?? new Date(), "authenticatedAt");
  const expiresAt = isoOf(
    input.expiresAt ?? new Date(Date.parse(authenticatedAt) + defaultLifetimeMs),
    "expiresAt",
  );
  if (Date.parse(expiresAt) <= Date.parse(authenticatedAt)) {
    throw new TypeError("buildAssertion: expiresAt must be after authenticatedAt");
  }

  const assertion: Assertion = {
    customerUid: input.customerUid,
    assuranceLevel,
    factor1Type: input.factor1Type,
    authenticatedAt,
    expiresAt,
    channelCode: input.channelCode,
    sourceReference: input.sourceReference,
  };
  if (input.identifierUid !== undefined) assertion.identifierUid = input.identifierUid;
  if (input.factor2Type !== undefined) assertion.factor2Type = input.factor2Type;
  if (input.deviceHash !== undefined) assertion.deviceHash = input.deviceHash;

  if (input.route === "payout" || input.route === "walletDebit") {
    const { request } = input;
    assertion.transactionBinding = assertionTransactionBinding({
      customerUid: input.customerUid,
      walletUid: request.walletUid,
      amountMinor: request.amountMinor,
      currency: request.currency,
      target: input.route === "payout" ? input.request.destinationIdentifierUid : input.request.mandateUid,
      clientReference: request.clientReference,
    });
  }
  return assertion;
}

/** The assertion type of POST /mandates/{uid}/revoke (optional there). */
export type RevokeAssertion = NonNullable<RevokeMandateRequest["assertion"]>;
