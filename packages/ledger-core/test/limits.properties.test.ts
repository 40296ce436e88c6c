import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { KycLevel, LimitCheck } from "../src/index.js";
import { findLimitBreach, needsTwoFactor } from "../src/index.js";

const levelArb: fc.Arbitrary<KycLevel> = fc.record({
  code: fc.constant("l"),
  name: fc.constant("L"),
  currency: fc.constant("KES"),
  maxBalanceMinor: fc.integer({ min: 0, max: 1e12 }),
  maxSingleTxnMinor: fc.option(fc.integer({ min: 1, max: 1e12 }), { nil: null }),
  aggregateDailyLimitMinor: fc.integer({ min: 0, max: 1e12 }),
  monthlyOutLimitMinor: fc.option(fc.integer({ min: 0, max: 1e12 }), { nil: null }),
  twoFactorThresholdMinor: fc.integer({ min: 0, max: 1e12 }),
});

const checkArb: fc.Arbitrary<LimitCheck> = fc.record({
  level: levelArb,
  direction: fc.constantFrom("inbound" as const, "outbound" as const),
  amountMinor: fc.integer({ min: 1, max: 1e12 }),
  currentBalanceMinor: fc.integer({ min: 0, max: 1e12 }),
  dailyTotalMinor: fc.integer({ min: 0, max: 1e12 }),
  monthlyOutTotalMinor: fc.integer({ min: 0, max: 1e12 }),
});

describe("KYC limits (property)", () => {
  it("a breach stays a breach for any larger amount (monotonic)", () => {
    fc.assert(
      fc.property(checkArb, fc.integer({ min: 0, max: 1e12 }), (c, extra) => {
        if (findLimitBreach(c) !== null)
          expect(findLimitBreach({ ...c, amountMinor: c.amountMinor + extra })).not.toBeNull();
      }),
    );
  });

  it("accepts exactly what fits every limit and refuses anything that does not", () => {
    fc.assert(
      fc.property(checkArb, (c) => {
        const { level: l } = c;
        const fits =
          (l.maxSingleTxnMinor === null || c.amountMinor <= l.maxSingleTxnMinor) &&
          c.dailyTotalMinor + c.amountMinor <= l.aggregateDailyLimitMinor &&
          (c.direction === "inbound" ||
            l.monthlyOutLimitMinor === null ||
            c.monthlyOutTotalMinor + c.amountMinor <= l.monthlyOutLimitMinor) &&
          (c.direction === "outbound" || c.currentBalanceMinor + c.amountMinor <= l.maxBalanceMinor);
        expect(findLimitBreach(c) === null).toBe(fits);
      }),
    );
  });

  it("needs two factors strictly above the threshold", () => {
    fc.assert(
      fc.property(levelArb, fc.integer({ min: 1, max: 1e12 }), (l, amount) => {
        expect(needsTwoFactor(l, amount)).toBe(amount > l.twoFactorThresholdMinor);
      }),
    );
  });
});
