import { describe, expect, it } from "vitest";
import { BINDING_TEMPLATE, buildAssertion, computeTransactionBinding } from "../src/index.js";
import { bindingVectors } from "./vectors.js";

const auth = {
  customerUid: "cus_01",
  factor1Type: "pin",
  factor2Type: "otp",
  channelCode: "mobile_app",
  sourceReference: "sess-1",
  authenticatedAt: "2026-11-22T10:00:00.000Z",
};

describe("buildAssertion", () => {
  it("binds a payout to its destinationIdentifierUid (the payout vector)", () => {
    const vector = bindingVectors.cases.find((c) => c.route === "POST /payouts")!;
    const assertion = buildAssertion({
      ...auth,
      customerUid: vector.customerUid,
      route: "payout",
      request: {
        walletUid: vector.walletUid,
        amountMinor: vector.amountMinor,
        currency: vector.currency,
        destinationIdentifierUid: vector.target,
        clientReference: vector.clientReference,
      },
    });
    expect(assertion.transactionBinding).toEqual({
      hash: vector.hash,
      algorithm: "sha256",
      canonical: BINDING_TEMPLATE,
    });
  });

  it("binds a wallet debit to its mandateUid (the debit vector)", () => {
    const vector = bindingVectors.cases.find((c) => c.route === "POST /wallet-debits")!;
    const assertion = buildAssertion({
      ...auth,
      customerUid: vector.customerUid,
      route: "walletDebit",
      request: {
        walletUid: vector.walletUid,
        amountMinor: vector.amountMinor,
        currency: vector.currency,
        mandateUid: vector.target,
        clientReference: vector.clientReference,
      },
    });
    expect(assertion.transactionBinding?.hash).toBe(vector.hash);
  });

  it("sends no binding for a mandate or a revocation (nothing to bind)", () => {
    expect(buildAssertion({ ...auth, route: "mandate" }).transactionBinding).toBeUndefined();
    expect(buildAssertion({ ...auth, route: "mandateRevoke" }).transactionBinding).toBeUndefined();
  });

  it("fills the authentication facts: two_factor by default, five minutes of life", () => {
    const assertion = buildAssertion({
      ...auth,
      route: "mandate",
      identifierUid: "idn_1",
      deviceHash: "a".repeat(64),
    });
    expect(assertion).toEqual({
      customerUid: "cus_01",
      identifierUid: "idn_1",
      assuranceLevel: "two_factor",
      factor1Type: "pin",
      factor2Type: "otp",
      authenticatedAt: "2026-11-22T10:00:00.000Z",
      expiresAt: "2026-11-22T10:05:00.000Z",
      channelCode: "mobile_app",
      deviceHash: "a".repeat(64),
      sourceReference: "sess-1",
    });
  });

  it("binds what would be recomputed from the request, not anything else", () => {
    const request = {
      walletUid: "wal_9",
      amountMinor: 150_000,
      currency: "KES",
      destinationIdentifierUid: "idn_9",
      clientReference: "po-1",
    };
    const assertion = buildAssertion({ ...auth, customerUid: "cus_9", route: "payout", request });
    const expected = computeTransactionBinding({
      customerUid: "cus_9",
      walletUid: "wal_9",
      amountMinor: 150_000,
      currency: "KES",
      target: "idn_9",
      clientReference: "po-1",
    });
    expect(assertion.transactionBinding?.hash).toBe(expected.hash);
    const changed = buildAssertion({
      ...auth,
      customerUid: "cus_9",
      route: "payout",
      request: { ...request, amountMinor: 150_001 },
    });
    expect(changed.transactionBinding?.hash).not.toBe(expected.hash);
  });

  it("refuses what the service would refuse anyway", () => {
    expect(() => buildAssertion({ ...auth, factor2Type: undefined, route: "mandate" })).toThrow(
      /factor2Type/,
    );
    expect(
      buildAssertion({ ...auth, factor2Type: undefined, assuranceLevel: "single_factor", route: "mandate" })
        .factor2Type,
    ).toBeUndefined();
    expect(() => buildAssertion({ ...auth, expiresAt: auth.authenticatedAt, route: "mandate" })).toThrow(
      /after/,
    );
    expect(() => buildAssertion({ ...auth, authenticatedAt: "yesterday", route: "mandate" })).toThrow(
      /valid date/,
    );
  });
});
