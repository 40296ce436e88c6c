import { beforeEach, describe, expect, it } from "vitest";
import type { Tenant } from "../src/index.js";
import {
  accountKeys,
  creditWallet,
  entriesOf,
  fundPrefund,
  getOperationDetail,
  getTrialBalance,
  getWalletBalance,
  onboardCustomer,
} from "../src/index.js";
import { createCore, feeSchedule, onboardingInput, refusal, tenantFixture } from "./support/core.js";

describe("wallet credits", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let walletUid: string;

  beforeEach(async () => {
    core = createCore();
    acme = tenantFixture("acme");
    await core.run((tx) => tx.tenants.upsert(acme));
    await core.run((tx) => tx.tenants.upsert(tenantFixture("other")));
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 50_000_000, currency: "KES" }),
    );
    const customer = await core.run((tx) =>
      onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput()),
    );
    walletUid = customer.walletUid;
  });

  it("funding refuses (400) a currency that is not an ISO-4217 code, moving nothing", async () => {
    const trialBefore = await core.run((tx) => getTrialBalance(tx));
    for (const bad of ["kes", "KESKESKESK", "", " KES", undefined]) {
      const e = await refusal(
        core.run((tx) =>
          fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 5_000, currency: bad as never }),
        ),
      );
      expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", "currency"]);
    }
    expect(await core.run((tx) => getTrialBalance(tx))).toEqual(trialBefore);
  });

  it("funding refuses (422) a currency no wallet profile holds (a typo such as KSE), moving nothing", async () => {
    const trialBefore = await core.run((tx) => getTrialBalance(tx));
    for (const stranded of ["KSE", "XYZ"]) {
      const e = await refusal(
        core.run((tx) =>
          fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 5_000, currency: stranded }),
        ),
      );
      expect([e.code, e.details?.[0]?.field]).toEqual(["UnprocessableEntity", "currency"]);
    }
    expect(await core.run((tx) => getTrialBalance(tx))).toEqual(trialBefore);
  });

  it("funding refuses (422) once everything a tenant was ever funded would pass 2^53 - 1, even with the prefund spent", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const fund = (amountMinor: number) =>
      core.run((tx) => fundPrefund(core.deps, tx, { tenantId: "other", amountMinor, currency: "KES" }));
    await fund(max - 10);
    // The prefund spent (moved to the tenant's fee account): the prefund alone would take more,
    // but the deposits account holds minus everything ever funded.
    await core.run((tx) =>
      tx.ledger.post({
        uid: "jrn_spent",
        tenantId: "other",
        operationUid: null,
        currency: "KES",
        kind: "test_spend",
        createdAt: "2026-01-01T00:00:00.000Z",
        entries: entriesOf([
          {
            from: accountKeys.prefund("other"),
            to: accountKeys.fees("other"),
            amountMinor: max - 10,
            label: "x",
          },
        ]),
      }),
    );
    const trialBefore = await core.run((tx) => getTrialBalance(tx));
    const refused = await refusal(fund(11));
    expect(refused.code).toBe("UnprocessableEntity");
    expect(refused.details).toEqual([
      { field: "amountMinor", issue: `all funding of a tenant in a currency must not exceed ${max}` },
    ]);
    expect(await core.run((tx) => getTrialBalance(tx))).toEqual(trialBefore);
    expect(await fund(10)).toEqual({ tenantId: "other", currency: "KES", balanceMinor: 10 });
  });

  const credit = (amountMinor: number, clientReference: string, tenant = acme) =>
    core.run((tx) =>
      creditWallet(core.deps, core.ctxFor(tenant), tx, {
        walletUid,
        amountMinor,
        currency: "KES",
        clientReference,
      }),
    );

  it("moves money from the prefund to the wallet and completes at once", async () => {
    const op = await credit(12_345, "cr-1");
    expect(op).toMatchObject({
      type: "wallet_credit",
      state: "completed",
      amountMinor: 12_345,
      feeMinor: 0,
      taxMinor: 0,
      currency: "KES",
    });
    expect(op.completedAt).not.toBeNull();
    expect(op.links.self).toBe(`/api/v1/tenant/operations/${op.uid}`);
    const balance = await core.run((tx) => getWalletBalance(core.deps, core.ctxFor(acme), tx, walletUid));
    expect(balance).toMatchObject({
      currentMinor: 12_345,
      heldMinor: 0,
      availableMinor: 12_345,
      status: "active",
    });
    const detail = await core.run((tx) => getOperationDetail(core.deps, core.ctxFor(acme), tx, op.uid));
    expect(detail.timeline.map((t) => [t.sequenceNo, t.fromState, t.toState])).toEqual([
      [0, null, "created"],
      [1, "created", "completed"],
    ]);
    expect(detail.provider).toBeNull();
    const tb = await core.run((tx) => getTrialBalance(tx));
    expect(tb.balanced).toBe(true);
    expect(core.store.state.accounts.get("tenant:acme:prefund/KES")?.balance).toBe(50_000_000 - 12_345);
  });

  it("writes wallet_credit.completed with the operation projection to the outbox", async () => {
    const op = await credit(100, "cr-ev");
    const events = core.store.state.outbox.filter((e) => e.type === "wallet_credit.completed");
    expect(events).toHaveLength(1);
    const body = JSON.parse(events[0]!.body);
    expect(body).toMatchObject({
      type: "wallet_credit.completed",
      dedupKey: `${op.uid}:wallet_credit.completed:1`,
      apiVersion: "v1",
    });
    expect(body.data.operation).toEqual(op);
  });

  it("writes no event when the tenant's webhook filter excludes it", async () => {
    acme = { ...acme, webhook: { ...acme.webhook, events: ["payout.failed"] } };
    await credit(100, "cr-filtered");
    expect(core.store.state.outbox.some((e) => e.type === "wallet_credit.completed")).toBe(false);
  });

  it("refuses FundingNotPositioned when the prefund cannot cover it, moving nothing", async () => {
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "other", amountMinor: 5, currency: "KES" }),
    );
    const other = tenantFixture("other");
    const c2 = await core.run((tx) => onboardCustomer(core.deps, core.ctxFor(other), tx, onboardingInput()));
    const e = await refusal(
      core.run((tx) =>
        creditWallet(core.deps, core.ctxFor(other), tx, {
          walletUid: c2.walletUid,
          amountMinor: 6,
          currency: "KES",
          clientReference: "x",
        }),
      ),
    );
    expect(e.code).toBe("FundingNotPositioned");
    expect(core.store.state.accounts.get(`wallet:${c2.walletUid}/KES`)?.balance ?? 0).toBe(0);
    expect([...core.store.state.operations.values()].filter((o) => o.tenantId === "other")).toHaveLength(0);
  });

  it("refuses a credit beyond the KYC level's maximum balance", async () => {
    await credit(5_000_000, "cr-a");
    await credit(4_000_000, "cr-a2");
    const e = await refusal(credit(1_000_001, "cr-b"));
    expect(e.code).toBe("MaxBalanceExceeded");
    await credit(1_000_000, "cr-c"); // exactly the maximum is allowed
  });

  it("applies the maximum balance to what the wallet holds after paying its charges", async () => {
    core.deps.catalog = {
      ...core.deps.catalog,
      feeSchedules: [
        feeSchedule("wallet_credit", {
          label: "Credit fee",
          type: "flat",
          amountMinor: 10,
          refundable: false,
        }),
      ],
    };
    await credit(7_000_000, "cr-a"); // holds 6_999_990
    // 6_999_990 + 3_000_021 - 10 = 10_000_001: one over the maximum.
    expect((await refusal(credit(3_000_021, "cr-over"))).code).toBe("MaxBalanceExceeded");
    // 6_999_990 + 3_000_020 - 10 = 10_000_000: exactly the maximum, which the gross amount passes.
    await credit(3_000_020, "cr-fits");
    const balance = await core.run((tx) => getWalletBalance(core.deps, core.ctxFor(acme), tx, walletUid));
    expect(balance.currentMinor).toBe(10_000_000);
  });

  it("refuses (422) a credit whose charges exceed its amount: a credit never takes money out of the wallet", async () => {
    core.deps.catalog = {
      ...core.deps.catalog,
      feeSchedules: [
        feeSchedule(
          "wallet_credit",
          { label: "Credit fee", type: "flat", amountMinor: 100, refundable: false },
          { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Credit fee", refundable: false },
        ),
      ],
    };
    await credit(1_000, "cr-funds"); // holds 884
    const before = core.store.state.operations.size;
    const e = await refusal(credit(115, "cr-small"));
    expect([e.code, e.message, e.details]).toEqual([
      "UnprocessableEntity",
      "The amount does not cover its charges",
      [{ field: "amountMinor", issue: "must be at least the charges of 116" }],
    ]);
    expect(core.store.state.operations.size).toBe(before);
    const balance = () => core.run((tx) => getWalletBalance(core.deps, core.ctxFor(acme), tx, walletUid));
    expect((await balance()).currentMinor).toBe(884);
    // exactly the charges: the wallet receives nothing and keeps what it had
    await credit(116, "cr-even");
    expect((await balance()).currentMinor).toBe(884);
    // a reused clientReference is still 409 first
    expect((await refusal(credit(1, "cr-funds"))).code).toBe("Conflict");
  });

  it("keeps its order of refusals when the charges would take the total past 2^53 - 1: 409 and currency first", async () => {
    const MAX = Number.MAX_SAFE_INTEGER;
    core.deps.catalog = {
      ...core.deps.catalog,
      feeSchedules: [
        feeSchedule("wallet_credit", {
          label: "Credit fee",
          type: "flat",
          amountMinor: 10,
          refundable: false,
        }),
      ],
    };
    await credit(1_000, "cr-taken");
    expect((await refusal(credit(MAX - 5, "cr-taken"))).code).toBe("Conflict");
    const e = await refusal(
      core.run((tx) =>
        creditWallet(core.deps, core.ctxFor(acme), tx, {
          walletUid,
          amountMinor: MAX - 5,
          currency: "USD",
          clientReference: "cr-usd",
        }),
      ),
    );
    expect(e.code).toBe("CurrencyMismatch");
    // and then the charges' own refusal
    expect((await refusal(credit(MAX - 5, "cr-huge"))).message).toBe(
      "The amount with its fees and taxes exceeds the largest amount",
    );
  });

  it("refuses a credit above the single transaction limit", async () => {
    expect((await refusal(credit(7_000_001, "big"))).code).toBe("LimitExceeded");
  });

  it("refuses a reused clientReference with Conflict", async () => {
    await credit(10, "dup");
    expect((await refusal(credit(10, "dup"))).code).toBe("Conflict");
  });

  it("treats another tenant's wallet as nonexistent", async () => {
    const e = await refusal(credit(10, "cr-x", tenantFixture("other")));
    expect(e.code).toBe("NotFound");
  });

  it("refuses another currency and a blocked wallet", async () => {
    const e1 = await refusal(
      core.run((tx) =>
        creditWallet(core.deps, core.ctxFor(acme), tx, {
          walletUid,
          amountMinor: 1,
          currency: "USD",
          clientReference: "c",
        }),
      ),
    );
    expect(e1.code).toBe("CurrencyMismatch");
    await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "credit_blocked"));
    expect((await refusal(credit(1, "blocked"))).code).toBe("WalletNotActive");
    await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "debit_blocked"));
    await credit(1, "debit-blocked-can-receive");
  });

  it("refuses amounts outside 1..2^53-1 even without the HTTP schema", async () => {
    for (const bad of [0, -1, 1.5, 2 ** 53])
      expect((await refusal(credit(bad, `bad-${bad}`))).code).toBe("InvalidRequest");
  });

  it("refuses a clientReference that is not 1-200 characters of storable text, from untyped callers too", async () => {
    const before = core.store.state.journals.length;
    // null or a number would escape the uniqueness that makes a repeated credit a 409.
    for (const bad of [null, undefined, 42, "", "r".repeat(201), "a\u0000b", "a\ud800b", { a: 1 }]) {
      const e = await refusal(credit(10, bad as never));
      expect([e.code, e.details]).toEqual([
        "InvalidRequest",
        [{ field: "clientReference", issue: "invalid clientReference" }],
      ]);
    }
    expect(core.store.state.journals.length).toBe(before);
    // 200 characters are code points: 200 emoji are 400 UTF-16 units.
    await credit(10, "\u{1F600}".repeat(200));
    expect((await refusal(credit(10, "\u{1F600}".repeat(200)))).code).toBe("Conflict");
  });
});

describe("wallet credits with a fee schedule", () => {
  it("charges the wallet_credit schedule, itemized, exactly as quoted (property)", async () => {
    const fc = (await import("fast-check")).default;
    const { quoteFees } = await import("../src/index.js");
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 0, max: 500 }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 10_000, max: 5_000_000 }),
        async (flat, pctBps, vatBps, amount) => {
          const core = createCore();
          core.deps.catalog = {
            ...core.deps.catalog,
            feeSchedules: [
              {
                ruleCode: "credit_fee",
                versionNo: 1,
                operationType: "wallet_credit",
                railCode: null,
                currency: "KES",
                components: [
                  { label: "Service fee", type: "flat", amountMinor: flat, refundable: false },
                  { label: "Levy", type: "percentage", rateBps: pctBps, refundable: false },
                  {
                    label: "VAT",
                    type: "vat",
                    rateBps: vatBps,
                    appliesToLabel: "Service fee",
                    refundable: false,
                  },
                ],
              },
            ],
          };
          const acme = tenantFixture("acme");
          await core.run((tx) => tx.tenants.upsert(acme));
          await core.run((tx) =>
            fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 50_000_000, currency: "KES" }),
          );
          const { walletUid } = await core.run((tx) =>
            onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput()),
          );
          const quote = await core.run((tx) =>
            quoteFees(core.deps, core.ctxFor(acme), tx, {
              operationType: "wallet_credit",
              walletUid,
              amountMinor: amount,
              currency: "KES",
            }),
          );
          const op = await core.run((tx) =>
            creditWallet(core.deps, core.ctxFor(acme), tx, {
              walletUid,
              amountMinor: amount,
              currency: "KES",
              clientReference: "c",
            }),
          );
          expect([op.feeMinor, op.taxMinor]).toEqual([quote.feeMinor, quote.taxMinor]);
          expect(quote.totalMinor).toBe(amount + quote.feeMinor + quote.taxMinor);
          const balance = await core.run((tx) =>
            getWalletBalance(core.deps, core.ctxFor(acme), tx, walletUid),
          );
          expect(balance.availableMinor).toBe(amount - quote.feeMinor - quote.taxMinor);
          expect(core.store.state.accounts.get("fees:acme/KES")?.balance ?? 0).toBe(quote.feeMinor);
          expect(core.store.state.accounts.get("tax:acme/KES")?.balance ?? 0).toBe(quote.taxMinor);
          expect((await core.run((tx) => getTrialBalance(tx))).balanced).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});
