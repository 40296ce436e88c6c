import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import type { Assertion, AssertionCheck, CustomerView, Tenant } from "../src/index.js";
import { BINDING_TEMPLATE, bindingCanonical, onboardCustomer, validateAssertion } from "../src/index.js";
import { createCore, onboardingInput, refusal, tenantFixture } from "./support/core.js";

const vectors: { cases: Record<string, string | number>[] } = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/transaction-binding.json", import.meta.url), "utf8"),
);
// Computed independently of the code under test.
const sha = (s: string) => createHash("sha256").update(Buffer.from(s, "utf8")).digest("hex");

describe("transaction binding vectors", () => {
  it.each(vectors.cases)("$route", (c) => {
    const canonical = bindingCanonical({
      customerUid: String(c.customerUid),
      walletUid: String(c.walletUid),
      amountMinor: Number(c.amountMinor),
      currency: String(c.currency),
      target: String(c.target),
      clientReference: c.clientReference === "" ? null : String(c.clientReference),
    });
    expect(canonical).toBe(c.canonical);
    expect(sha(canonical)).toBe(c.hash);
  });
});

describe("validateAssertion", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let customer: CustomerView;
  let other: CustomerView;

  beforeEach(async () => {
    core = createCore("2026-11-22T10:00:00.000Z");
    acme = tenantFixture("acme");
    await core.run((tx) => tx.tenants.upsert(acme));
    customer = await core.run((tx) => onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput()));
    other = await core.run((tx) =>
      onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput({ identifiers: [] })),
    );
  });

  const values = () => ({
    customerUid: customer.uid,
    walletUid: customer.walletUid,
    amountMinor: 600_000,
    currency: "KES",
    target: "man_01",
    clientReference: "db-1",
  });
  const assertion = (overrides: Partial<Assertion> = {}): Assertion => ({
    customerUid: customer.uid,
    assuranceLevel: "two_factor",
    factor1Type: "pin",
    factor2Type: "otp",
    authenticatedAt: "2026-11-22T09:59:00.000Z",
    expiresAt: "2026-11-22T10:05:00.000Z",
    channelCode: "app",
    sourceReference: "sess-1",
    transactionBinding: {
      hash: sha(bindingCanonical(values())),
      algorithm: "sha256",
      canonical: BINDING_TEMPLATE,
    },
    ...overrides,
  });
  const check = (overrides: Partial<AssertionCheck> = {}): AssertionCheck => ({
    customerUid: customer.uid,
    amountMinor: 600_000,
    twoFactorThresholdMinor: 100_000,
    binding: values(),
    ...overrides,
  });
  const validate = (a: Assertion, c = check()) =>
    core.run((tx) => validateAssertion(core.deps, core.ctxFor(acme), tx, a, c));

  it("accepts a bound two-factor assertion and records its sourceReference", async () => {
    await validate(assertion());
    expect(core.store.state.assertionUses).toMatchObject([
      { sourceReference: "sess-1", customerUid: customer.uid, expiresAt: "2026-11-22T10:05:00.000Z" },
    ]);
  });

  it.each([
    ["expired", () => ({ expiresAt: "2026-11-22T09:59:59.000Z" }), "AuthorizationInsufficient"],
    [
      "over 10 minutes",
      () => ({ authenticatedAt: "2026-11-22T09:54:59.000Z", expiresAt: "2026-11-22T10:05:00.000Z" }),
      "AuthorizationInsufficient",
    ],
    [
      "expiring before it started",
      () => ({ authenticatedAt: "2026-11-22T10:06:00.000Z" }),
      "AuthorizationInsufficient",
    ],
    [
      "authenticated more than 300 s ahead of the service's clock",
      () => ({ authenticatedAt: "2026-11-22T10:06:00.000Z", expiresAt: "2026-11-22T10:15:00.000Z" }),
      "AuthorizationInsufficient",
    ],
    [
      "single factor above the threshold",
      () => ({ assuranceLevel: "single_factor", factor2Type: undefined }),
      "AuthorizationInsufficient",
    ],
    [
      "binding of another amount",
      () => ({ transactionBinding: { hash: sha("x"), algorithm: "sha256", canonical: BINDING_TEMPLATE } }),
      "AssertionNotBoundToTransaction",
    ],
    [
      "binding with the values in canonical",
      () => ({
        transactionBinding: {
          hash: sha(bindingCanonical(values())),
          algorithm: "sha256",
          canonical: bindingCanonical(values()),
        },
      }),
      "AssertionNotBoundToTransaction",
    ],
    [
      "no binding above the threshold",
      () => ({ transactionBinding: undefined }),
      "AssertionNotBoundToTransaction",
    ],
    ["another customer's assertion", () => ({ customerUid: "cus_other" }), "UnprocessableEntity"],
    ["an identifier not the customer's", () => ({ identifierUid: "idn_nope" }), "UnprocessableEntity"],
    ["two factors without factor2Type", () => ({ factor2Type: undefined }), "InvalidRequest"],
    // Read as the API reads instants: Date.parse would take these (the second in the host's zone).
    [
      "an authenticatedAt in RFC 2822",
      () => ({ authenticatedAt: "Sun, 22 Nov 2026 09:59:00 GMT" }),
      "InvalidRequest",
    ],
    ["an expiresAt without a zone", () => ({ expiresAt: "2026-11-22T10:05:00" }), "InvalidRequest"],
  ] as const)("refuses %s", async (_name, overrides, code) => {
    expect((await refusal(validate(assertion(overrides() as Partial<Assertion>)))).code).toBe(code);
    expect(core.store.state.assertionUses).toHaveLength(0);
  });

  it("accepts an authenticatedAt up to 300 s ahead (the requests' clock tolerance)", async () => {
    await validate(
      assertion({ authenticatedAt: "2026-11-22T10:05:00.000Z", expiresAt: "2026-11-22T10:15:00.000Z" }),
    );
  });

  it("below the threshold accepts a single factor without a binding", async () => {
    await validate(
      assertion({ assuranceLevel: "single_factor", factor2Type: undefined, transactionBinding: undefined }),
      check({ amountMinor: 100_000 }),
    );
  });

  it("accepts the customer's own identifier", async () => {
    await validate(assertion({ identifierUid: customer.identifiers[0]!.uid }));
  });

  it("refuses (422) an identifier the tenant revoked or rejected, or one retired past its validTo", async () => {
    const uid = customer.identifiers[0]!.uid;
    const set = (changes: Record<string, unknown>) =>
      core.run(async (tx) => {
        const i = (await tx.identifiers.get("acme", uid))!;
        await tx.identifiers.update({ ...i, ...changes });
      });
    for (const changes of [
      { verificationStatus: "revoked" },
      { verificationStatus: "rejected" },
      { verificationStatus: "verified", validTo: "2026-11-22T10:00:00.000Z" }, // retired at now
    ]) {
      await set(changes);
      const e = await refusal(
        validate(assertion({ identifierUid: uid, sourceReference: `s-${changes.verificationStatus}` })),
      );
      expect([e.code, e.message]).toEqual([
        "UnprocessableEntity",
        "The assertion's identifier can no longer authenticate the customer",
      ]);
    }
    // Unverified or pending is not a reason: the tenant authenticated the customer through it.
    await set({ verificationStatus: "pending", validTo: null });
    await validate(assertion({ identifierUid: uid, sourceReference: "s-pending" }));
  });

  it("allows a live sourceReference again for the same customer (audited), refuses it for another", async () => {
    await validate(assertion());
    await validate(assertion());
    expect(core.store.state.audit.map((a) => a.action)).toEqual(["assertion.source_reference_reused"]);
    const forOther = assertion({ customerUid: other.uid, transactionBinding: undefined });
    const e = await refusal(validate(forOther, check({ customerUid: other.uid, binding: null })));
    expect(e.code).toBe("UnprocessableEntity");
  });

  it("only shape-checks the binding when there is nothing to bind (POST /mandates)", async () => {
    await validate(
      assertion({
        transactionBinding: { hash: sha("anything"), algorithm: "sha256", canonical: BINDING_TEMPLATE },
      }),
      check({ binding: null }),
    );
  });
});
