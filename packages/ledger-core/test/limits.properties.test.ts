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

  it("decides exactly up to 2^53 - 1, where a float sum would round (property, against BigInt)", () => {
    const MAX = Number.MAX_SAFE_INTEGER;
    // Values anywhere up to 2^53 - 1, most of them within a few units of either end.
    const minor = (min: number) =>
      fc.oneof(
        fc.integer({ min: MAX - 64, max: MAX }),
        fc.integer({ min, max: min + 64 }),
        fc.integer({ min, max: MAX }),
      );
    const nearMax = fc.record({
      level: fc.record({
        code: fc.constant("l"),
        name: fc.constant("L"),
        currency: fc.constant("KES"),
        maxBalanceMinor: minor(0),
        maxSingleTxnMinor: fc.constant(null),
        aggregateDailyLimitMinor: fc.oneof(fc.constant(MAX), minor(0)),
        monthlyOutLimitMinor: fc.option(minor(0), { nil: null }),
        twoFactorThresholdMinor: fc.constant(0),
      }),
      direction: fc.constantFrom("inbound" as const, "outbound" as const),
      amountMinor: minor(1),
      currentBalanceMinor: minor(0),
      dailyTotalMinor: fc.oneof(fc.constant(0), minor(0)),
      monthlyOutTotalMinor: minor(0),
      chargesBelowAmount: fc.nat(64),
    });
    fc.assert(
      fc.property(nearMax, ({ chargesBelowAmount, ...c }) => {
        const check: LimitCheck = {
          ...c,
          inboundChargesMinor: Math.max(0, c.amountMinor - chargesBelowAmount),
        };
        const { level: l } = check;
        const n = BigInt;
        const fits =
          n(check.dailyTotalMinor) + n(check.amountMinor) <= n(l.aggregateDailyLimitMinor) &&
          (check.direction === "inbound" ||
            l.monthlyOutLimitMinor === null ||
            n(check.monthlyOutTotalMinor) + n(check.amountMinor) <= n(l.monthlyOutLimitMinor)) &&
          (check.direction === "outbound" ||
            n(check.currentBalanceMinor) + n(check.amountMinor) - n(check.inboundChargesMinor ?? 0) <=
              n(l.maxBalanceMinor));
        expect(findLimitBreach(check) === null).toBe(fits);
      }),
      { numRuns: 5000 },
    );
  });

  it("lets a credit end at exactly a maximum balance of 2^53 - 1, where balance + amount rounds", () => {
    const MAX = Number.MAX_SAFE_INTEGER;
    const level: KycLevel = {
      code: "l",
      name: "L",
      currency: "KES",
      maxBalanceMinor: MAX,
      maxSingleTxnMinor: null,
      aggregateDailyLimitMinor: MAX,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: MAX,
    };
    const check = { level, direction: "inbound" as const, dailyTotalMinor: 0, monthlyOutTotalMinor: 0 };
    // (2^53 - 2) + 5 is 2^53 + 3, which a float holds as 2^53 + 4.
    expect(
      findLimitBreach({ ...check, amountMinor: 5, currentBalanceMinor: MAX - 1, inboundChargesMinor: 4 }),
    ).toBe(null);
    expect(
      findLimitBreach({ ...check, amountMinor: 5, currentBalanceMinor: MAX - 1, inboundChargesMinor: 3 }),
    ).toBe("maxBalance");
  });

  it("needs no second factor at exactly the threshold, and does one unit above", () => {
    const level: KycLevel = {
      code: "l",
      name: "L",
      currency: "KES",
      maxBalanceMinor: 10_000_000,
      maxSingleTxnMinor: null,
      aggregateDailyLimitMinor: 15_000_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 100_000,
    };
    expect([needsTwoFactor(level, 100_000), needsTwoFactor(level, 100_001)]).toEqual([false, true]);
  });

  it("needs two factors strictly above the threshold", () => {
    fc.assert(
      fc.property(levelArb, fc.integer({ min: 1, max: 1e12 }), (l, amount) => {
        expect(needsTwoFactor(l, amount)).toBe(amount > l.twoFactorThresholdMinor);
      }),
    );
  });
});
