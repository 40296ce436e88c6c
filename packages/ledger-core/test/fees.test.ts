import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Catalog, DomainError, FeeSchedule } from "../src/index.js";
import { chargesFor, computeCharges, isDomainError, selectFeeSchedule } from "../src/index.js";

const payoutStd: FeeSchedule = {
  ruleCode: "payout_std",
  versionNo: 1,
  operationType: "payout_b2c",
  railCode: null,
  currency: "KES",
  components: [
    { label: "Transfer fee", type: "flat", amountMinor: 2500, refundable: true },
    { label: "Levy", type: "percentage", rateBps: 150, refundable: false },
    { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Transfer fee", refundable: true },
  ],
};
const catalog: Catalog = {
  kycLevels: [],
  walletProfiles: [],
  rails: [],
  beneficiaries: [],
  feeSchedules: [
    payoutStd,
    {
      ...payoutStd,
      versionNo: 2,
      components: [{ label: "Transfer fee", type: "flat", amountMinor: 3000, refundable: true }],
    },
    {
      ...payoutStd,
      ruleCode: "payout_mobile",
      railCode: "sandbox_mobile",
      versionNo: 1,
      components: [{ label: "Mobile fee", type: "flat", amountMinor: 100, refundable: false }],
    },
  ],
};

describe("fee engine", () => {
  it("computes the DESIGN example: flat + levy as fee, VAT on the flat component as tax", () => {
    const c = computeCharges(payoutStd, 1_000_000);
    expect(c).toMatchObject({
      feeMinor: 17_500,
      taxMinor: 400,
      totalMinor: 1_017_900,
      schedule: { ruleCode: "payout_std", versionNo: 1 },
    });
    expect(c.breakdown).toEqual([
      { label: "Transfer fee", type: "flat", amountMinor: 2500, refundable: true, appliesToLabel: null },
      { label: "Levy", type: "percentage", amountMinor: 15_000, refundable: false, appliesToLabel: null },
      { label: "VAT", type: "vat", amountMinor: 400, refundable: true, appliesToLabel: "Transfer fee" },
    ]);
  });

  it("lists a component that rounds to zero as 0", () => {
    const c = computeCharges(payoutStd, 33); // 1.5% of 33 = 0.495 -> 0
    expect(c.breakdown.find((l) => l.label === "Levy")?.amountMinor).toBe(0);
  });

  it("rounds half up", () => {
    expect(computeCharges(payoutStd, 100).breakdown[1]!.amountMinor).toBe(2); // 1.5 -> 2
  });

  it("prefers the rail-specific schedule, then the highest version of the generic one", () => {
    expect(selectFeeSchedule(catalog, "payout_b2c", "KES", "sandbox_mobile")?.ruleCode).toBe("payout_mobile");
    expect(selectFeeSchedule(catalog, "payout_b2c", "KES", "other_rail")?.versionNo).toBe(2);
    expect(selectFeeSchedule(catalog, "payout_b2c", "KES", null)?.versionNo).toBe(2);
    expect(selectFeeSchedule(catalog, "payout_b2c", "USD", null)).toBeNull();
    expect(chargesFor(catalog, "wallet_credit", "KES", null, 10)).toMatchObject({
      feeMinor: 0,
      taxMinor: 0,
      totalMinor: 10,
      schedule: null,
      breakdown: [],
    });
  });

  it("ignores a rail for credits and debits, which go through none (a quote naming one shows the charge)", () => {
    const credit = (railCode: string | null, amountMinor: number): FeeSchedule => ({
      ruleCode: `credit_${railCode ?? "any"}`,
      versionNo: 1,
      operationType: "wallet_credit",
      railCode,
      currency: "KES",
      components: [{ label: "Fee", type: "flat", amountMinor, refundable: false }],
    });
    const withCredits = { ...catalog, feeSchedules: [credit(null, 100), credit("sandbox_mobile", 900)] };
    expect(chargesFor(withCredits, "wallet_credit", "KES", "sandbox_mobile", 10_000).feeMinor).toBe(100);
    expect(chargesFor(withCredits, "wallet_credit", "KES", null, 10_000).feeMinor).toBe(100);
  });

  it("VAT on the amount when appliesToLabel is null", () => {
    const s: FeeSchedule = {
      ...payoutStd,
      components: [{ label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: null, refundable: false }],
    };
    expect(computeCharges(s, 1000)).toMatchObject({ feeMinor: 0, taxMinor: 160, totalMinor: 1160 });
  });

  const scheduleArb: fc.Arbitrary<FeeSchedule> = fc
    .tuple(
      fc.integer({ min: 0, max: 100_000 }),
      fc.integer({ min: 0, max: 5_000 }),
      fc.integer({ min: 0, max: 3_000 }),
      fc.boolean(),
    )
    .map(([flat, pct, vat, onAmount]) => ({
      ...payoutStd,
      components: [
        { label: "Flat", type: "flat", amountMinor: flat, refundable: true },
        { label: "Pct", type: "percentage", rateBps: pct, refundable: false },
        {
          label: "Tax",
          type: "vat",
          rateBps: vat,
          appliesToLabel: onAmount ? null : "Pct",
          refundable: true,
        },
      ],
    }));

  it("total = amount + fee + tax, and the breakdown sums to fee + tax (property)", () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: 1, max: 1e12 }), (s, amount) => {
        const c = computeCharges(s, amount);
        expect(c.totalMinor).toBe(amount + c.feeMinor + c.taxMinor);
        expect(c.breakdown.reduce((sum, l) => sum + l.amountMinor, 0)).toBe(c.feeMinor + c.taxMinor);
        expect(c.breakdown.every((l) => Number.isSafeInteger(l.amountMinor) && l.amountMinor >= 0)).toBe(
          true,
        );
      }),
    );
  });

  it("refuses (422) an amount whose total with its charges passes 2^53 - 1, and takes the one at the edge", () => {
    const flat: FeeSchedule = {
      ...payoutStd,
      components: [{ label: "Fee", type: "flat", amountMinor: 2_500, refundable: true }],
    };
    const edge = Number.MAX_SAFE_INTEGER - 2_500;
    expect(computeCharges(flat, edge)).toMatchObject({
      feeMinor: 2_500,
      totalMinor: Number.MAX_SAFE_INTEGER,
    });
    for (const amount of [edge + 1, Number.MAX_SAFE_INTEGER]) {
      let thrown: unknown;
      try {
        computeCharges(flat, amount);
      } catch (e) {
        thrown = e;
      }
      expect(isDomainError(thrown) && thrown.code).toBe("UnprocessableEntity");
      expect((thrown as DomainError).details).toEqual([
        { field: "amountMinor", issue: `amount + fees + taxes must not exceed ${Number.MAX_SAFE_INTEGER}` },
      ]);
    }
  });

  it("any safe amount: exact safe totals, or the 422 exactly when the exact total passes 2^53 - 1 (property)", () => {
    fc.assert(
      fc.property(scheduleArb, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (s, amount) => {
        let c: ReturnType<typeof computeCharges> | undefined;
        let thrown: unknown;
        try {
          c = computeCharges(s, amount);
        } catch (e) {
          thrown = e;
        }
        if (c === undefined) {
          expect(isDomainError(thrown) && thrown.code).toBe("UnprocessableEntity");
          return;
        }
        const exact = c.breakdown.reduce((sum, l) => sum + BigInt(l.amountMinor), BigInt(amount));
        expect(BigInt(c.totalMinor)).toBe(exact);
        expect(Number.isSafeInteger(c.totalMinor)).toBe(true);
      }),
    );
    // Both sides of the edge with a percentage schedule, explicitly (draws near 2^53 are rare).
    const pct: FeeSchedule = {
      ...payoutStd,
      components: [{ label: "Pct", type: "percentage", rateBps: 100, refundable: false }],
    };
    expect(() => computeCharges(pct, Number.MAX_SAFE_INTEGER)).toThrow(/exceeds the largest amount/);
    expect(computeCharges(pct, 2 ** 52).totalMinor).toBe(2 ** 52 + Math.round(2 ** 52 / 100));
  });

  it("fee and tax are monotonic in the amount (property)", () => {
    fc.assert(
      fc.property(
        scheduleArb,
        fc.integer({ min: 1, max: 1e12 }),
        fc.integer({ min: 0, max: 1e9 }),
        (s, a, extra) => {
          const lo = computeCharges(s, a);
          const hi = computeCharges(s, a + extra);
          expect(hi.feeMinor).toBeGreaterThanOrEqual(lo.feeMinor);
          expect(hi.taxMinor).toBeGreaterThanOrEqual(lo.taxMinor);
        },
      ),
    );
  });
});
