import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addAgreement,
  createMandate,
  creditWallet,
  FREE_FORM_BYTES_MAX,
  freeFormProblem,
  getTrialBalance,
  submitKycVersion,
} from "../src/index.js";
import { coreWithCustomer, coreWithTenant, onboardingInput, refusal } from "./support/core.js";
import { createMandateWorld } from "./support/mandate-fixtures.js";

/** `levels` objects nested in one another: `{a:{a:...}}` (the outer object is level 1). */
const nested = (levels: number): Record<string, unknown> => {
  let o: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) o = { a: o };
  return o;
};

const cyclic = (): Record<string, unknown> => {
  const o: Record<string, unknown> = { name: "loop" };
  o.self = o;
  return o;
};

describe("free-form objects (metadata, evidence, retry policy): one rule", () => {
  it("accepts JSON objects up to 8 levels and 16 KiB serialized", () => {
    expect(freeFormProblem({})).toBeNull();
    expect(freeFormProblem(nested(8))).toBeNull();
    expect(freeFormProblem({ a: [1, "x", true, null, { b: [] }], c: -0.5 })).toBeNull();
    expect(freeFormProblem(Object.create(null))).toBeNull();
    // 16 KiB exactly, in multi-byte characters: bytes are counted, not UTF-16 units.
    const content = FREE_FORM_BYTES_MAX - 8; // {"a":"..."} is 8 bytes of syntax
    const euros = `${"€".repeat(Math.floor(content / 3))}${"x".repeat(content % 3)}`;
    expect(freeFormProblem({ a: euros })).toBeNull();
    expect(freeFormProblem({ a: `${euros}x` })).toBe(
      `must serialize to at most ${FREE_FORM_BYTES_MAX} bytes`,
    );
    expect(freeFormProblem({ a: "😀".repeat((FREE_FORM_BYTES_MAX - 8) / 4) })).toBeNull();
    expect(freeFormProblem({ a: "😀".repeat((FREE_FORM_BYTES_MAX - 8) / 4 + 1) })).not.toBeNull();
  });

  it("refuses what is not a JSON object, too deep (a cycle included) or not JSON inside", () => {
    for (const v of [null, undefined, [], "x", 1, new Date(0), new Map()]) {
      expect(freeFormProblem(v), String(v)).toBe("must be a JSON object");
    }
    expect(freeFormProblem(nested(9))).toBe("must nest at most 8 levels");
    expect(freeFormProblem({ a: [[[[[[[[]]]]]]]] })).toBe("must nest at most 8 levels");
    expect(freeFormProblem(cyclic())).toBe("must nest at most 8 levels");
    for (const inside of [
      undefined,
      () => 1,
      1n,
      Symbol("s"),
      new Date(0),
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(freeFormProblem({ a: inside }), String(inside)).toMatch(/^must hold JSON values only/);
    }
  });

  it("on JSON input, refuses exactly what is deeper than 8 levels or longer than 16 KiB in UTF-8", () => {
    const deeperThan = (v: unknown, max: number, level = 1): boolean =>
      v !== null &&
      typeof v === "object" &&
      (level > max || Object.values(v).some((c) => deeperThan(c, max, level + 1)));
    const oracle = (o: object) =>
      !deeperThan(o, 8) && Buffer.byteLength(JSON.stringify(o), "utf8") <= FREE_FORM_BYTES_MAX;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 10, stringUnit: "binary" })), (o) => {
        expect(freeFormProblem(o) === null).toBe(oracle(o));
      }),
    );
    // Sizes near the cap, in every kind of character (surrogate pairs, lone surrogates, escapes).
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 3_000, maxLength: 9_000 }), (text) => {
        expect(freeFormProblem({ text }) === null).toBe(oracle({ text }));
      }),
      { numRuns: 200 },
    );
  });
});

describe("the use cases apply it (an embedder calls them without the HTTP schema)", () => {
  it("a credit with cyclic or non-JSON metadata is refused 400, moving nothing", async () => {
    const { core, acme, walletUid } = await coreWithCustomer({ prefundMinor: 1_000_000 });
    const trial = await core.run((tx) => getTrialBalance(tx));
    const operations = core.store.state.operations.size;
    for (const [n, metadata] of [cyclic(), { at: new Date(0) }, nested(9)].entries()) {
      const e = await refusal(
        core.run((tx) =>
          creditWallet(core.deps, core.ctxFor(acme), tx, {
            walletUid,
            amountMinor: 100,
            currency: "KES",
            clientReference: `meta-${n}`,
            metadata,
          }),
        ),
      );
      expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", "metadata"]);
    }
    expect(await core.run((tx) => getTrialBalance(tx))).toEqual(trial);
    expect(core.store.state.operations.size).toBe(operations);
  });

  it("onboarding, a KYC version and an agreement refuse such metadata or evidence, creating nothing", async () => {
    const { core, acme, onboard } = await coreWithTenant();
    const base = onboardingInput();
    for (const overrides of [
      { metadata: cyclic() },
      { kyc: { ...base.kyc, evidence: cyclic() } },
      { agreements: [{ ...base.agreements[0], evidence: { n: 1n } }] },
    ]) {
      const e = await refusal(onboard(overrides));
      expect(e.code).toBe("InvalidRequest");
    }
    expect(core.store.state.customers.size).toBe(0);

    const customer = await onboard({});
    const kyc = await refusal(
      core.run((tx) =>
        submitKycVersion(core.deps, core.ctxFor(acme), tx, customer.uid, {
          ...base.kyc,
          reviewType: "periodic_review",
          evidence: nested(12),
        }),
      ),
    );
    expect([kyc.code, kyc.details?.[0]?.field]).toEqual(["InvalidRequest", "evidence"]);
    const agreement = await refusal(
      core.run((tx) =>
        addAgreement(core.deps, core.ctxFor(acme), tx, customer.uid, {
          ...base.agreements[0]!,
          evidence: cyclic(),
        }),
      ),
    );
    expect([agreement.code, agreement.details?.[0]?.field]).toEqual(["InvalidRequest", "evidence"]);
    expect(core.store.state.kycVersions.size).toBe(1);
    expect(core.store.state.agreements.size).toBe(1);
  });

  it("a mandate refuses a retry policy or formula that is not a free-form object", async () => {
    const w = await createMandateWorld();
    for (const [field, value] of [
      ["retryPolicy", cyclic()],
      ["formula", { f: () => 1 }],
    ] as const) {
      const e = await refusal(
        w.core.run((tx) =>
          createMandate(w.core.deps, w.core.ctxFor(w.acme), tx, w.mandateInput(w.alice, { [field]: value })),
        ),
      );
      expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", field]);
    }
    expect(w.core.store.state.mandates.size).toBe(0);
  });
});
