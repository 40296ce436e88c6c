import { beforeEach, describe, expect, it } from "vitest";
import type { Tenant } from "../src/index.js";
import { onboardCustomer, quoteFees } from "../src/index.js";
import { createCore, feeSchedule, onboardingInput, refusal, tenantFixture } from "./support/core.js";

describe("fee quotes", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let walletUid: string;

  beforeEach(async () => {
    core = createCore();
    core.deps.catalog = {
      ...core.deps.catalog,
      rails: [
        {
          code: "sandbox_mobile",
          kind: "sandbox",
          currency: "KES",
          status: "active",
          payouts: true,
          payins: true,
          intentLifetimeSeconds: 3600,
          payerInstructions: null,
        },
      ],
      feeSchedules: [
        {
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
        },
      ],
    };
    acme = tenantFixture("acme", { approvedRails: ["sandbox_mobile"] });
    await core.run((tx) => tx.tenants.upsert(acme));
    walletUid = (await core.run((tx) => onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput())))
      .walletUid;
  });

  const quote = (input: Record<string, unknown>, tenant = acme) =>
    core.run((tx) =>
      quoteFees(core.deps, core.ctxFor(tenant), tx, {
        walletUid,
        amountMinor: 1_000_000,
        currency: "KES",
        operationType: "payout_b2c",
        ...input,
      } as never),
    );

  it("quotes a payout with its breakdown, rule version and five-minute validity, and stores it", async () => {
    const q = await quote({ railCode: "sandbox_mobile" });
    expect(q).toMatchObject({
      operationType: "payout_b2c",
      amountMinor: 1_000_000,
      feeMinor: 17_500,
      taxMinor: 400,
      totalMinor: 1_017_900,
      ruleVersion: { uid: "fsv_payout_std_1", ruleCode: "payout_std", versionNo: 1 },
      railCode: "sandbox_mobile",
    });
    expect(q.quoteId).toMatch(/^quo_/);
    expect(Date.parse(q.validUntil) - Date.parse(core.store.state.quotes.get(q.quoteId)!.createdAt)).toBe(
      300_000,
    );
    expect(core.store.state.operations.size).toBe(0);
    expect(core.store.state.journals).toHaveLength(0);
  });

  it("quotes zero fees with a null rule version when no schedule applies", async () => {
    const q = await quote({ operationType: "wallet_credit" });
    expect(q).toMatchObject({
      feeMinor: 0,
      taxMinor: 0,
      totalMinor: 1_000_000,
      breakdown: [],
      ruleVersion: null,
      railCode: null,
    });
  });

  it("quotes a null rule version when the schedule's components all round to zero: a zero-fee operation", async () => {
    core.deps.catalog.feeSchedules.push({
      ...feeSchedule("topup_c2b", { label: "Tiny in", type: "percentage", rateBps: 1, refundable: false }),
      ruleCode: "topup_in",
      versionNo: 3,
    });
    const tiny = await quote({ operationType: "topup_c2b", amountMinor: 1_000, railCode: "sandbox_mobile" });
    expect(tiny).toMatchObject({
      feeMinor: 0,
      taxMinor: 0,
      breakdown: [{ label: "Tiny in", type: "percentage", amountMinor: 0 }],
      ruleVersion: null,
    });
    // The stored quote keeps the schedule it was computed from (a payout compares it).
    expect(core.store.state.quotes.get(tiny.quoteId)!.ruleVersion).toMatchObject({ ruleCode: "topup_in" });
    const charged = await quote({
      operationType: "topup_c2b",
      amountMinor: 100_000,
      railCode: "sandbox_mobile",
    });
    expect(charged).toMatchObject({
      feeMinor: 10,
      ruleVersion: { uid: "fsv_topup_in_3", ruleCode: "topup_in", versionNo: 3 },
    });
  });

  it("refuses (400) to quote a credit or top-up whose charges exceed its amount, as the movement would (422)", async () => {
    core.deps.catalog.feeSchedules.push(
      feeSchedule("wallet_credit", {
        label: "Credit fee",
        type: "flat",
        amountMinor: 100,
        refundable: false,
      }),
    );
    const e = await refusal(quote({ operationType: "wallet_credit", amountMinor: 99 }));
    expect([e.code, e.message, e.details]).toEqual([
      "InvalidRequest",
      "The amount does not cover its charges",
      [{ field: "amountMinor", issue: "must be at least the charges of 100" }],
    ]);
    expect((await quote({ operationType: "wallet_credit", amountMinor: 100 })).totalMinor).toBe(200);
    // outbound: the charges come on top of the amount, so any amount is quoted
    expect((await quote({ amountMinor: 1, railCode: "sandbox_mobile" })).feeMinor).toBe(2_500);
  });

  it("refuses with 400 what a movement would refuse with 422 (the spec's list for the route has no 422)", async () => {
    for (const t of ["hold", "wallet_transfer", "ledger_adjustment"]) {
      const r = await refusal(quote({ operationType: t }));
      expect([r.code, r.details?.[0]?.field]).toEqual(["InvalidRequest", "operationType"]);
    }
    const currency = await refusal(quote({ currency: "USD" }));
    expect([currency.code, currency.details]).toEqual([
      "InvalidRequest",
      [{ field: "currency", issue: "expected KES" }],
    ]);
    expect((await refusal(quote({ railCode: "unknown_rail" }))).code).toBe("InvalidRequest");
    const huge = await refusal(quote({ amountMinor: Number.MAX_SAFE_INTEGER }));
    expect([huge.code, huge.details?.[0]?.field]).toEqual(["InvalidRequest", "amountMinor"]);
    // The wallet is looked up first: another tenant's wallet is 404 whatever else is wrong.
    expect((await refusal(quote({}, tenantFixture("other")))).code).toBe("NotFound");
    expect(
      (await refusal(quote({ operationType: "hold", currency: "USD" }, tenantFixture("other")))).code,
    ).toBe("NotFound");
  });
});
