import { beforeEach, describe, expect, it } from "vitest";
import type {
  CreateMandateInput,
  CustomerView,
  DebitUnderMandateInput,
  MandateView,
  Tenant,
} from "../src/index.js";
import {
  createMandate,
  debitUnderMandate,
  getMandate,
  getOperationDetail,
  getReceipt,
  getTrialBalance,
  getWalletBalance,
  listOperations,
  revokeMandate,
  setMandateStatus,
} from "../src/index.js";
import { catalog } from "./support/core.js";
import type { MandateWorld } from "./support/mandate-fixtures.js";
import { createMandateWorld, refusal } from "./support/mandate-fixtures.js";

/** debit_std in the test catalog: flat 1000 + 0.5 % processing; VAT 16 % of the flat fee. */
const totalFor = (amountMinor: number) =>
  amountMinor + 1_000 + Math.floor((amountMinor * 50 + 5_000) / 10_000) + 160;

describe("POST /mandates/{uid}/debits", () => {
  let w: MandateWorld;
  let mandate: MandateView;

  const newMandate = (customer: CustomerView, overrides: Partial<CreateMandateInput> = {}, tenant?: Tenant) =>
    w.core.run((tx) =>
      createMandate(
        w.core.deps,
        w.core.ctxFor(tenant ?? w.acme),
        tx,
        w.mandateInput(customer, { assertion: w.assertionFor(customer.uid), ...overrides }),
      ),
    );
  let refs = 0;
  const input = (overrides: Partial<DebitUnderMandateInput> = {}): DebitUnderMandateInput => ({
    walletUid: w.alice.walletUid,
    amountMinor: 10_000,
    currency: "KES",
    clientReference: `md-${++refs}`,
    ...overrides,
  });
  const debit = (uid: string, i: DebitUnderMandateInput = input(), tenant?: Tenant) =>
    w.core.run((tx) => debitUnderMandate(w.core.deps, w.core.ctxFor(tenant ?? w.acme), tx, uid, i));
  const available = async () =>
    (await w.core.run((tx) => getWalletBalance(w.core.deps, w.core.ctxFor(w.acme), tx, w.alice.walletUid)))
      .availableMinor;
  const snapshot = () => ({
    operations: w.core.store.state.operations.size,
    journals: w.core.store.state.journals.length,
    outbox: w.core.store.state.outbox.length,
  });
  const at = (iso: string) => w.clock.set(iso);

  beforeEach(async () => {
    refs = 0;
    w = await createMandateWorld();
    await w.fund(w.alice.walletUid, 5_000_000);
    mandate = await newMandate(w.alice, { frequency: "ad_hoc" });
  });

  it("debits on the standing mandate alone, with charges itemized and wallet_debit.completed", async () => {
    const before = await available();
    const op = await debit(mandate.uid);
    expect(op).toMatchObject({
      type: "wallet_debit",
      state: "completed",
      amountMinor: 10_000,
      feeMinor: 1_050,
      taxMinor: 160,
    });
    expect(await available()).toBe(before - totalFor(10_000));
    const journal = w.core.store.state.journals.find((j) => j.operationUid === op.uid)!;
    const byAccount = new Map<string, number>();
    for (const e of journal.entries)
      byAccount.set(e.accountKey, (byAccount.get(e.accountKey) ?? 0) + e.amountMinor);
    expect(Object.fromEntries(byAccount)).toEqual({
      [`wallet:${w.alice.walletUid}`]: -totalFor(10_000),
      "beneficiary:POWERCO": 10_000,
      "fees:acme": 1_050,
      "tax:acme": 160,
    });
    expect(journal.entries.map((e) => e.label)).toEqual([
      "amount",
      "amount",
      "Debit fee",
      "Debit fee",
      "Processing",
      "Processing",
      "VAT",
      "VAT",
    ]);
    expect((await w.core.run((tx) => getTrialBalance(tx))).balanced).toBe(true);
    expect(w.core.store.state.operations.get(op.uid)).toMatchObject({
      mandateUid: mandate.uid,
      sourceWalletUid: w.alice.walletUid,
      counterpartyHint: "Power Co",
    });
    expect(w.outbox("wallet_debit.completed").map((e) => e.envelope.data.operation)).toEqual([op]);
  });

  describe("refusals create nothing", () => {
    type Case = [string, () => Promise<[string, DebitUnderMandateInput]>, string];
    const cases: Case[] = [
      ["an unknown mandate", async () => ["man_nope", input()], "NotFound"],
      [
        "another tenant's mandate",
        async () => {
          const olgas = await newMandate(w.olga, {}, w.other);
          return [olgas.uid, input({ walletUid: w.olga.walletUid })];
        },
        "NotFound",
      ],
      [
        "a wallet other than the mandate's",
        async () => [mandate.uid, input({ walletUid: w.bob.walletUid })],
        "UnprocessableEntity",
      ],
      [
        "a pending mandate",
        async () => [(await newMandate(w.alice, { validFrom: "2027-01-01T00:00:00.000Z" })).uid, input()],
        "UnprocessableEntity",
      ],
      [
        "a suspended mandate",
        async () => {
          await w.core.run((tx) => setMandateStatus(w.core.deps, tx, mandate.uid, "suspended"));
          return [mandate.uid, input()];
        },
        "UnprocessableEntity",
      ],
      [
        "a revoked mandate",
        async () => {
          await w.core.run((tx) =>
            revokeMandate(w.core.deps, w.core.ctxFor(w.acme), tx, mandate.uid, { reason: "x" }),
          );
          return [mandate.uid, input()];
        },
        "UnprocessableEntity",
      ],
      [
        "a mandate at its validTo",
        async () => {
          const m = await newMandate(w.alice, { validTo: "2026-11-23T00:00:00.000Z" });
          at("2026-11-23T00:00:00.000Z");
          return [m.uid, input()];
        },
        "UnprocessableEntity",
      ],
      ["another currency", async () => [mandate.uid, input({ currency: "USD" })], "CurrencyMismatch"],
      [
        "an amount above the maximum",
        async () => [mandate.uid, input({ amountMinor: 500_001 })],
        "UnprocessableEntity",
      ],
      [
        "an amount other than the fixed one",
        async () => [
          (await newMandate(w.alice, { amountRule: "fixed", fixedOrMaxAmountMinor: 20_000 })).uid,
          input({ amountMinor: 20_001 }),
        ],
        "UnprocessableEntity",
      ],
      [
        "a frozen wallet",
        async () => {
          await w.core.run((tx) => tx.wallets.setStatus("acme", w.alice.walletUid, "frozen"));
          return [mandate.uid, input()];
        },
        "WalletNotActive",
      ],
      [
        "a suspended customer",
        async () => {
          await w.core.run((tx) => tx.customers.setStatus("acme", w.alice.uid, "suspended"));
          return [mandate.uid, input()];
        },
        "CustomerNotActive",
      ],
      [
        "an amount above the single transaction limit",
        async () => [
          (await newMandate(w.alice, { fixedOrMaxAmountMinor: 9_000_000 })).uid,
          input({ amountMinor: 7_000_001 }),
        ],
        "LimitExceeded",
      ],
      ["an amount of zero", async () => [mandate.uid, input({ amountMinor: 0 })], "InvalidRequest"],
    ];
    it.each(cases)("refuses %s", async (_name, make, code) => {
      const [uid, i] = await make();
      const before = snapshot();
      const balance = await available();
      expect((await refusal(debit(uid, i))).code).toBe(code);
      expect(snapshot()).toEqual(before);
      expect(await available()).toBe(balance);
    });
  });

  it("refuses a clientReference already used by another debit with 409", async () => {
    await debit(mandate.uid, input({ clientReference: "same" }));
    expect((await refusal(debit(mandate.uid, input({ clientReference: "same" })))).code).toBe("Conflict");
  });

  describe("frequency per UTC period", () => {
    const boundary = async (
      frequency: CreateMandateInput["frequency"],
      last: string,
      sameA: string,
      next: string,
    ) => {
      const m = await newMandate(w.alice, { clientReference: frequency, frequency });
      at(sameA);
      await debit(m.uid);
      at(last);
      const e = await refusal(debit(m.uid));
      expect(e.code).toBe("MandateFrequencyExceeded");
      at(next);
      expect((await debit(m.uid)).state).toBe("completed");
      at(next);
      expect((await refusal(debit(m.uid))).code).toBe("MandateFrequencyExceeded");
      return m;
    };

    it("daily: one per UTC day; the last millisecond of the day is still that day", () =>
      boundary("daily", "2026-11-22T23:59:59.999Z", "2026-11-22T10:00:00.000Z", "2026-11-23T00:00:00.000Z"));

    it("on_due_date: one per UTC day", () =>
      boundary(
        "on_due_date",
        "2026-11-22T23:59:59.999Z",
        "2026-11-22T10:00:00.000Z",
        "2026-11-23T00:00:00.000Z",
      ));

    it("weekly: one per ISO week from Monday 00:00 UTC (2026-11-23 is a Monday)", async () => {
      // Monday of the week holding 2026-11-22 (a Sunday) is 2026-11-16.
      const m = await boundary(
        "weekly",
        "2026-11-22T23:59:59.999Z",
        "2026-11-16T00:00:00.000Z",
        "2026-11-23T00:00:00.000Z",
      );
      at("2026-11-29T23:59:59.999Z");
      expect((await refusal(debit(m.uid))).code).toBe("MandateFrequencyExceeded");
      at("2026-11-30T00:00:00.000Z");
      expect((await debit(m.uid)).state).toBe("completed");
    });

    it("monthly: one per calendar month", () =>
      boundary(
        "monthly",
        "2026-11-30T23:59:59.999Z",
        "2026-11-01T00:00:00.000Z",
        "2026-12-01T00:00:00.000Z",
      ));

    it("ad_hoc: no period limit", async () => {
      for (let i = 0; i < 5; i++) expect((await debit(mandate.uid)).state).toBe("completed");
    });

    it("one_time: one debit ever; it completes the mandate, which then refuses and cannot be revoked", async () => {
      const m = await newMandate(w.alice, {
        clientReference: "once",
        frequency: "one_time",
        amountRule: "fixed",
        fixedOrMaxAmountMinor: 10_000,
      });
      await debit(m.uid);
      const read = await w.core.run((tx) => getMandate(w.core.deps, w.core.ctxFor(w.acme), tx, m.uid));
      expect(read.status).toBe("completed");
      at("2027-06-01T00:00:00.000Z");
      expect((await refusal(debit(m.uid))).code).toBe("MandateFrequencyExceeded");
      const e = await refusal(
        w.core.run((tx) => revokeMandate(w.core.deps, w.core.ctxFor(w.acme), tx, m.uid, { reason: "x" })),
      );
      expect(e.code).toBe("Conflict");
      // Completion is not an event the spec lists.
      expect(
        w
          .outbox()
          .filter((x) => x.resourceUid === m.uid)
          .map((x) => x.type),
      ).toEqual(["mandate.created"]);
    });

    it("counts concurrent debits under the wallet's lock: exactly one of two passes", async () => {
      const m = await newMandate(w.alice, { clientReference: "race", frequency: "daily" });
      const results = await Promise.allSettled([debit(m.uid), debit(m.uid)]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const rejected = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
      expect(rejected.reason.code).toBe("MandateFrequencyExceeded");
    });
  });

  it("counts the month's outbound debits of earlier days toward the level's monthly limit, and not the month before's", async () => {
    w.core.deps.catalog = {
      ...catalog,
      kycLevels: catalog.kycLevels.map((l) =>
        l.code === "tier_1" ? { ...l, monthlyOutLimitMinor: 300_000 } : l,
      ),
    };
    const month = (amountMinor: number) => debit(mandate.uid, input({ amountMinor }));
    expect((await month(200_000)).state).toBe("completed");
    at("2026-11-23T10:00:00.000Z");
    // 200 000 out on the 22nd + 200 000 now > 300 000 for November.
    expect((await refusal(month(200_000))).code).toBe("LimitExceeded");
    expect((await month(100_000)).state).toBe("completed");
    at("2026-12-01T00:00:00.000Z");
    expect((await month(250_000)).state).toBe("completed");
  });

  describe("a wallet that cannot fund the debit", () => {
    it("creates the operation created -> failed, posts nothing, fires wallet_debit.failed, and returns it", async () => {
      const m = await newMandate(w.bob, { clientReference: "bob", frequency: "monthly" });
      await w.fund(w.bob.walletUid, totalFor(10_000) - 1);
      const journalsBefore = w.core.store.state.journals.length;
      const op = await debit(m.uid, input({ walletUid: w.bob.walletUid, clientReference: "try-1" }));
      expect(op).toMatchObject({
        type: "wallet_debit",
        state: "failed",
        amountMinor: 10_000,
        feeMinor: 0,
        taxMinor: 0,
        clientReference: "try-1",
        completedAt: "2026-11-22T10:00:00.000Z",
      });
      expect(w.core.store.state.journals.length).toBe(journalsBefore);
      expect(w.core.store.state.operations.get(op.uid)).toMatchObject({
        fundsMovedAt: null,
        feeBreakdown: [],
        mandateUid: m.uid,
      });
      const detail = await w.core.run((tx) =>
        getOperationDetail(w.core.deps, w.core.ctxFor(w.acme), tx, op.uid),
      );
      expect(detail.timeline.map((t) => [t.fromState, t.toState])).toEqual([
        [null, "created"],
        ["created", "failed"],
      ]);
      expect(
        (await refusal(w.core.run((tx) => getReceipt(w.core.deps, w.core.ctxFor(w.acme), tx, op.uid)))).code,
      ).toBe("NotFound");
      expect(w.outbox("wallet_debit.failed").map((e) => e.envelope.data.operation)).toEqual([op]);
      expect(w.outbox("wallet_debit.completed")).toHaveLength(0);
      // The attempt is listed among the tenant's operations.
      const listed = await w.core.run((tx) =>
        listOperations(
          w.core.deps,
          w.core.ctxFor(w.acme),
          tx,
          { state: "failed" },
          {
            page: 1,
            limit: 20,
            sort: [{ field: "createdAt", direction: "DESC" }],
          },
        ),
      );
      expect(listed.data.map((o) => o.uid)).toEqual([op.uid]);

      // The failed attempt does not consume the period; a retry needs a fresh clientReference.
      expect(
        (await refusal(debit(m.uid, input({ walletUid: w.bob.walletUid, clientReference: "try-1" })))).code,
      ).toBe("Conflict");
      await w.fund(w.bob.walletUid, 1);
      const retry = await debit(m.uid, input({ walletUid: w.bob.walletUid, clientReference: "try-2" }));
      expect(retry.state).toBe("completed");
      const bobBalance = await w.core.run((tx) =>
        getWalletBalance(w.core.deps, w.core.ctxFor(w.acme), tx, w.bob.walletUid),
      );
      expect(bobBalance.availableMinor).toBe(0);
      expect(
        (await refusal(debit(m.uid, input({ walletUid: w.bob.walletUid, clientReference: "try-3" })))).code,
      ).toBe("MandateFrequencyExceeded");
    });

    it("a failed one_time attempt leaves the mandate active for a funded retry", async () => {
      const m = await newMandate(w.bob, { clientReference: "bob-once", frequency: "one_time" });
      const failed = await debit(m.uid, input({ walletUid: w.bob.walletUid }));
      expect(failed.state).toBe("failed");
      expect(w.core.store.state.mandates.get(m.uid)!.status).toBe("active");
      await w.fund(w.bob.walletUid, totalFor(10_000));
      expect((await debit(m.uid, input({ walletUid: w.bob.walletUid }))).state).toBe("completed");
      expect(w.core.store.state.mandates.get(m.uid)!.status).toBe("completed");
    });
  });
});
