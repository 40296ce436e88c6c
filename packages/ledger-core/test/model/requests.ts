import type { Assertion, ErrorCode, Tx } from "../../src/index.js";
import {
  createMandate,
  createPayout,
  createTopupIntent,
  creditWallet,
  debitUnderMandate,
  debitWallet,
  isDomainError,
  onboardCustomer,
  revokeMandate,
  runIdempotent,
  submitKycVersion,
} from "../../src/index.js";
import { CURRENCY, type Real, sha256Hex, TENANT_ID } from "./world.js";

/**
 * Tenant writes as the HTTP adapter runs them: under an Idempotency-Key with `runIdempotent`,
 * the request hash over route and body, the response stored as status + body. Each route takes
 * the JSON body it was sent, so a replay can send exactly the same bytes again.
 */
// biome-ignore lint/suspicious/noExplicitAny: bodies are JSON the route parses, as over HTTP
type Route = (r: Real, tx: Tx, body: any) => Promise<unknown>;

export const routes = {
  onboard: (r, tx, b) => onboardCustomer(r.deps, r.ctx, tx, b),
  credit: (r, tx, b) => creditWallet(r.deps, r.ctx, tx, b),
  debit: (r, tx, b) => debitWallet(r.deps, r.ctx, tx, b),
  mandateDebit: (r, tx, b) => debitUnderMandate(r.deps, r.ctx, tx, b.mandateUid, b.input),
  mandate: (r, tx, b) => createMandate(r.deps, r.ctx, tx, b),
  revoke: (r, tx, b) => revokeMandate(r.deps, r.ctx, tx, b.mandateUid, { reason: b.reason }),
  payout: (r, tx, b) => createPayout(r.deps, r.ctx, tx, b),
  topup: (r, tx, b) => createTopupIntent(r.deps, r.ctx, tx, b),
  kyc: (r, tx, b) => submitKycVersion(r.deps, r.ctx, tx, b.customerUid, b.input),
} satisfies Record<string, Route>;

export type RouteName = keyof typeof routes;

/** The HTTP status of a refusal (the adapter's table, restated). */
export const refusalStatus = (code: ErrorCode): number =>
  code === "InvalidRequest"
    ? 400
    : code === "NotFound"
      ? 404
      : code === "Conflict" || code === "IdempotencyKeyInUse"
        ? 409
        : 422;

export type Outcome =
  | { kind: "answer"; replayed: boolean; status: number; body: string }
  /** Thrown by runIdempotent and not stored: a key reused for another request, or still running. */
  | { kind: "refused"; code: ErrorCode };

export async function send(r: Real, route: RouteName, key: string, body: string): Promise<Outcome> {
  const run = routes[route] as Route;
  try {
    const { replayed, response } = await runIdempotent(
      r.uow,
      r.deps.clock,
      { tenantId: TENANT_ID, key, requestHash: sha256Hex(`${route}\n${body}`) },
      async (tx) => ({
        status: route === "payout" ? 202 : 201,
        body: JSON.stringify(await run(r, tx, JSON.parse(body))),
      }),
      (e) => {
        const status = refusalStatus(e.code);
        return status === 400
          ? null
          : { status, body: JSON.stringify({ error: e.code, message: e.message }) };
      },
    );
    return { kind: "answer", replayed, ...response };
  } catch (e) {
    if (isDomainError(e)) return { kind: "refused", code: e.code };
    throw e;
  }
}

/** A live two-factor assertion; bound to the request when `binding` is given (target, clientReference). */
export function assertionFor(
  r: Real,
  session: string,
  customerUid: string,
  binding?: { walletUid: string; amountMinor: number; target: string; clientReference: string },
): Assertion {
  const now = r.clock.now().getTime();
  const assertion: Assertion = {
    customerUid,
    assuranceLevel: "two_factor",
    factor1Type: "pin",
    factor2Type: "otp",
    authenticatedAt: new Date(now - 30_000).toISOString(),
    expiresAt: new Date(now + 300_000).toISOString(),
    channelCode: "mobile_app",
    sourceReference: session,
  };
  if (binding) {
    // The binding rule written out again, independent of the implementation's own helper.
    const canonical = [
      customerUid,
      binding.walletUid,
      String(binding.amountMinor),
      CURRENCY,
      binding.target,
      binding.clientReference,
    ].join("|");
    assertion.transactionBinding = {
      hash: sha256Hex(canonical),
      algorithm: "sha256",
      canonical: "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference",
    };
  }
  return assertion;
}

export function onboardingBody(msisdn: string, tier: string, riskRating: "low" | "prohibited") {
  return {
    customerType: "person",
    displayName: "Model Customer",
    identifiers: [
      { class: "contact", type: "msisdn", value: msisdn, isPrimary: true, verificationStatus: "verified" },
    ],
    kyc: {
      tierCode: tier,
      reviewType: "onboarding",
      verificationSource: "model",
      sourceReference: `kyc-${msisdn}`,
      evidence: { check: "passed" },
      riskRating,
    },
    agreements: [
      {
        agreementType: "wallet_opening",
        documentType: "terms",
        documentVersion: "v1",
        documentUri: "https://example.com/terms/v1",
        documentHash: "a".repeat(64),
        acceptedAt: "2026-11-01T00:00:00.000Z",
        acceptedChannel: "mobile_app",
        evidence: { ip: "203.0.113.9" },
      },
    ],
  };
}

export const mandateAgreement = {
  documentType: "debit_mandate",
  documentVersion: "v1",
  documentUri: "https://example.com/mandate/v1",
  documentHash: "b".repeat(64),
  acceptedAt: "2026-11-01T00:00:00.000Z",
  acceptedChannel: "mobile_app",
  evidence: { otp: "verified" },
};
