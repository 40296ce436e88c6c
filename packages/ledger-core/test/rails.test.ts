import { beforeEach, describe, expect, it } from "vitest";
import type {
  CustomerView,
  FeeComponent,
  FeeSchedule,
  OperationView,
  RailPaymentInput,
  Tenant,
} from "../src/index.js";
import {
  createTopupIntent,
  creditWallet,
  expireTopups,
  fundPrefund,
  getOperationDetail,
  getReceipt,
  getTrialBalance,
  getWalletBalance,
  listOperations,
  listSuspense,
  listWalletTransactions,
  onboardCustomer,
  receiveRailPayment,
  resolveSuspense,
  reverseOperation,
} from "../src/index.js";
import {
  catalog,
  createCore,
  feeSchedule,
  onboardingInput,
  railsCatalog,
  refusal,
  tenantFixture,
} from "./support/core.js";

const RAIL = "sandbox_mobile";
/** A topup_c2b fee schedule of these components, on any rail. */
const topupSchedule = (...components: FeeComponent[]): FeeSchedule => feeSchedule("topup_c2b", ...components);

const APPROVED = ["sandbox_mobile", "sandbox_bank"];
const AMOUNT = 25_000;
const PAGE = { page: 1, limit: 20, sort: [{ field: "createdAt" as const, direction: "DESC" as const }] };

describe("inbound rail payments, expiry and suspense", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let customer: CustomerView;
  let walletUid: string;
  let offsetMs: number;
  let providerSeq: number;

  const ctx = (tenant = acme) => core.ctxFor(tenant);
  const advanceSeconds = (s: number) => {
    offsetMs += s * 1000;
  };
  const balance = (uid = walletUid, tenant = acme) =>
    core.run((tx) => getWalletBalance(core.deps, ctx(tenant), tx, uid));
  const account = (key: string, currency = "KES") =>
    core.store.state.accounts.get(`${key}/${currency}`)?.balance ?? 0;
  const balanced = async () => expect((await core.run((tx) => getTrialBalance(tx))).balanced).toBe(true);
  const events = (type: string) =>
    core.store.state.outbox.filter((e) => e.type === type).map((e) => JSON.parse(e.body));
  const stored = (uid: string) => core.store.state.operations.get(uid)!;
  const suspenseItem = (uid: string | null) => core.store.state.suspense.get(uid!)!;
  const fund = (amountMinor: number) =>
    core.run((tx) => fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor, currency: "KES" }));
  const credit = (amountMinor: number, clientReference: string) =>
    core.run((tx) =>
      creditWallet(core.deps, ctx(), tx, { walletUid, amountMinor, currency: "KES", clientReference }),
    );

  const intent = (overrides: Record<string, unknown> = {}, tenant = acme) =>
    core.run((tx) =>
      createTopupIntent(core.deps, ctx(tenant), tx, {
        walletUid,
        amountMinor: AMOUNT,
        currency: "KES",
        railCode: RAIL,
        clientReference: `tu-${providerSeq++}`,
        ...overrides,
      }),
    );
  const pay = (i: OperationView | null, overrides: Partial<RailPaymentInput> = {}) =>
    core.run((tx) =>
      receiveRailPayment(core.deps, tx, {
        railCode: RAIL,
        reference: i?.intentReference ?? "000000000000",
        amountMinor: i?.amountMinor ?? AMOUNT,
        currency: "KES",
        providerReference: `PAY-${providerSeq++}`,
        ...overrides,
      }),
    );

  beforeEach(async () => {
    core = createCore();
    const base = core.deps.clock;
    offsetMs = 0;
    providerSeq = 1;
    core.deps.clock = { now: () => new Date(base.now().getTime() + offsetMs) };
    core.deps.catalog = railsCatalog();
    acme = tenantFixture("acme", { approvedRails: APPROVED });
    await core.run((tx) => tx.tenants.upsert(acme));
    await core.run((tx) => tx.tenants.upsert(tenantFixture("other", { approvedRails: APPROVED })));
    customer = await core.run((tx) => onboardCustomer(core.deps, ctx(), tx, onboardingInput()));
    walletUid = customer.walletUid;
  });

  describe("matching", () => {
    it("credits the wallet from the rail's clearing account, completes the top-up, emits topup.confirmed", async () => {
      const i = await intent();
      const result = await pay(i, { providerReference: "MPESA-1" });
      expect(result).toEqual({ matched: true, operationUid: i.uid, suspenseUid: null });
      expect(await balance()).toMatchObject({ currentMinor: AMOUNT, availableMinor: AMOUNT, heldMinor: 0 });
      expect(account("rail:sandbox_mobile:clearing")).toBe(-AMOUNT);

      const journals = core.store.state.journals.filter((j) => j.operationUid === i.uid);
      expect(journals).toHaveLength(1);
      expect(journals[0]).toMatchObject({ kind: "topup_credit", tenantId: "acme" });
      expect(journals[0]!.entries).toEqual([
        { accountKey: "rail:sandbox_mobile:clearing", amountMinor: -AMOUNT, label: "amount" },
        { accountKey: `wallet:${walletUid}`, amountMinor: AMOUNT, label: "amount" },
      ]);

      const detail = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, i.uid));
      expect(detail).toMatchObject({
        state: "completed",
        intentReference: i.intentReference,
        provider: { state: "confirmed", reference: "MPESA-1" },
      });
      expect(detail.completedAt).not.toBeNull();
      expect(detail.timeline.map((t) => [t.toState, t.actorType])).toEqual([
        ["created", "api_client"],
        ["pending_provider", "system"],
        ["completed", "provider"],
      ]);
      expect(stored(i.uid).fundsMovedAt).toBe(detail.completedAt);
      const [event] = events("topup.confirmed");
      expect(event.dedupKey).toBe(`${i.uid}:topup.confirmed:1`);
      expect(event.data.operation).toMatchObject({
        uid: i.uid,
        state: "completed",
        intentReference: i.intentReference,
      });
      const receipt = await core.run((tx) => getReceipt(core.deps, ctx(), tx, i.uid));
      expect(receipt).toMatchObject({
        type: "topup_c2b",
        totalDebitedMinor: AMOUNT,
        references: { providerReference: "MPESA-1", journalUids: [journals[0]!.uid] },
        state: "completed",
      });
      // the rail payment is recorded with its outcome
      expect(core.store.state.railPayments.get(`${RAIL}/MPESA-1`)).toMatchObject({
        reference: i.intentReference,
        operationUid: i.uid,
        suspenseUid: null,
      });
      await balanced();
    });

    it("credits the same provider payment once: a repeat returns the first outcome and posts nothing; other details under its reference are 409", async () => {
      const i = await intent();
      const first = await pay(i, { providerReference: "DUP-1" });
      const journals = core.store.state.journals.length;
      const outbox = core.store.state.outbox.length;
      expect(await pay(i, { providerReference: "DUP-1" })).toEqual(first);
      expect(core.store.state.journals.length).toBe(journals);
      expect(core.store.state.outbox.length).toBe(outbox);
      expect((await balance()).currentMinor).toBe(AMOUNT);

      // an unmatched one repeated keeps pointing at the same suspense item
      const lost = await pay(null, { providerReference: "DUP-2" });
      expect(await pay(null, { providerReference: "DUP-2" })).toEqual(lost);
      // The same provider reference with another amount, currency or reference is not a retry:
      // the provider's error is the operator's to see, not a payment to drop in silence.
      for (const other of [{ amountMinor: 1 }, { currency: "USD" }, { reference: "123456789012" }]) {
        const refused = await refusal(pay(null, { providerReference: "DUP-2", ...other }));
        expect(refused.code, JSON.stringify(other)).toBe("Conflict");
        expect((await refusal(pay(i, { providerReference: "DUP-1", ...other }))).code).toBe("Conflict");
      }
      expect(core.store.state.suspense.size).toBe(1);
      expect(account("suspense:sandbox_mobile")).toBe(AMOUNT);
      await balanced();
    });

    it("charges a topup_c2b fee schedule fixed when the intent was issued", async () => {
      core.deps.catalog = railsCatalog({
        feeSchedules: [
          topupSchedule(
            { label: "Collection fee", type: "flat", amountMinor: 100, refundable: false },
            { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Collection fee", refundable: false },
          ),
        ],
      });
      const i = await intent();
      expect(i).toMatchObject({ feeMinor: 100, taxMinor: 16 });
      core.deps.catalog = railsCatalog(); // the schedule changes after issuing: the intent's charges hold
      await pay(i);
      expect((await balance()).availableMinor).toBe(AMOUNT - 116);
      expect(account("fees:acme")).toBe(100);
      expect(account("tax:acme")).toBe(16);
      const entries = core.store.state.journals.find((j) => j.operationUid === i.uid)!.entries;
      expect(entries.map((e) => [e.accountKey, e.amountMinor, e.label])).toEqual([
        ["rail:sandbox_mobile:clearing", -AMOUNT, "amount"],
        [`wallet:${walletUid}`, AMOUNT, "amount"],
        [`wallet:${walletUid}`, -100, "Collection fee"],
        ["fees:acme", 100, "Collection fee"],
        [`wallet:${walletUid}`, -16, "VAT"],
        ["tax:acme", 16, "VAT"],
      ]);
      await balanced();
    });

    it("404 for a rail outside the catalog", async () => {
      expect((await refusal(pay(null, { railCode: "ghost" }))).code).toBe("NotFound");
    });
  });

  describe("unmatched payments go to suspense", () => {
    const expectSuspended = async (
      result: Awaited<ReturnType<typeof pay>>,
      reason: string,
      tenantId: string | null,
      amountMinor = AMOUNT,
      currency = "KES",
    ) => {
      expect(result).toMatchObject({ matched: false, operationUid: null });
      expect(result.suspenseUid).toMatch(/^sus_/);
      expect(suspenseItem(result.suspenseUid)).toMatchObject({
        reason,
        tenantId,
        amountMinor,
        currency,
        status: "open",
        railCode: RAIL,
        resolution: null,
        resolvedAt: null,
      });
      const journal = core.store.state.journals.at(-1)!;
      expect(journal).toMatchObject({
        kind: "payment_unmatched",
        operationUid: null,
        currency,
        tenantId: tenantId ?? "",
      });
      expect(journal.entries).toEqual([
        { accountKey: "rail:sandbox_mobile:clearing", amountMinor: -amountMinor, label: "amount" },
        { accountKey: "suspense:sandbox_mobile", amountMinor, label: "amount" },
      ]);
      await balanced();
    };

    it("a wrong amount: not credited, the intent stays pending and still matches the right payment", async () => {
      const i = await intent();
      await expectSuspended(await pay(i, { amountMinor: AMOUNT - 1 }), "amount_mismatch", "acme", AMOUNT - 1);
      await expectSuspended(await pay(i, { amountMinor: AMOUNT + 1 }), "amount_mismatch", "acme", AMOUNT + 1);
      expect(stored(i.uid).state).toBe("pending_provider");
      expect((await balance()).currentMinor).toBe(0);
      expect((await pay(i)).matched).toBe(true);
      expect((await balance()).currentMinor).toBe(AMOUNT);
    });

    it("a wrong currency", async () => {
      const i = await intent();
      await expectSuspended(await pay(i, { currency: "USD" }), "currency_mismatch", "acme", AMOUNT, "USD");
      expect(account("suspense:sandbox_mobile", "USD")).toBe(AMOUNT);
    });

    it("an unknown or malformed reference", async () => {
      const i = await intent();
      const ref = i.intentReference!;
      // a valid Luhn reference nobody holds
      const unknown = ref === "000000000000" ? "000000000182" : "000000000000";
      await expectSuspended(await pay(null, { reference: unknown }), "unknown_reference", null);
      const typo = `${ref.slice(0, 11)}${(Number(ref[11]) + 1) % 10}`;
      await expectSuspended(await pay(null, { reference: typo }), "invalid_reference", null);
      await expectSuspended(await pay(null, { reference: "hello" }), "invalid_reference", null);
    });

    it("a reference issued on another rail", async () => {
      const i = await intent();
      const r = await pay(i, { railCode: "sandbox_bank" });
      expect(suspenseItem(r.suspenseUid)).toMatchObject({
        reason: "rail_mismatch",
        tenantId: "acme",
        railCode: "sandbox_bank",
      });
      expect(account("suspense:sandbox_bank")).toBe(AMOUNT);
      expect(stored(i.uid).state).toBe("pending_provider");
      await balanced();
    });

    it("a payment at or after expiresAt, even before the expiry job ran", async () => {
      const i = await intent({ expiresInSeconds: 60 });
      advanceSeconds(60);
      await expectSuspended(await pay(i), "expired", "acme");
      expect(stored(i.uid).state).toBe("pending_provider");
    });

    it("a second payment for an intent already paid", async () => {
      const i = await intent();
      await pay(i);
      await expectSuspended(await pay(i), "intent_closed", "acme");
      expect((await balance()).currentMinor).toBe(AMOUNT);
    });

    it("a wallet or customer that can no longer receive: the intent is held with its payment", async () => {
      for (const status of ["credit_blocked", "frozen", "closed"] as const) {
        const i = await intent();
        await core.run((tx) => tx.wallets.setStatus("acme", walletUid, status));
        await expectSuspended(await pay(i), "wallet_cannot_receive", "acme");
        expect(stored(i.uid).state).toBe("held");
        await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "active"));
      }
      const i = await intent();
      await core.run((tx) => tx.customers.setStatus("acme", customer.uid, "suspended"));
      await expectSuspended(await pay(i), "wallet_cannot_receive", "acme");
      expect(stored(i.uid).state).toBe("held");
      await core.run((tx) => tx.customers.setStatus("acme", customer.uid, "active"));
      // Its payment came: another one quoting it is not the intent's, and is not credited.
      await expectSuspended(await pay(i), "intent_closed", "acme");
      expect((await balance()).currentMinor).toBe(0);
    });

    it("the maximum balance applies to what the wallet holds after the top-up's charges", async () => {
      await fund(20_000_000);
      await credit(6_000_000, "c1");
      core.deps.catalog = railsCatalog({
        feeSchedules: [
          topupSchedule({ label: "Collection fee", type: "flat", amountMinor: 100, refundable: false }),
        ],
      });
      // 6_000_000 + 4_000_101 - 100 = 10_000_001: one over; the intent is refused.
      expect((await refusal(intent({ amountMinor: 4_000_101 }))).code).toBe("MaxBalanceExceeded");
      // 6_000_000 + 4_000_100 - 100 = 10_000_000: issued, and its payment credits the wallet.
      const i = await intent({ amountMinor: 4_000_100 });
      expect(await pay(i)).toMatchObject({ matched: true, suspenseUid: null });
      expect((await balance()).currentMinor).toBe(10_000_000);
      await balanced();
    });

    it("a credit beyond the KYC level's maximum balance or limits, reached after the intent was issued", async () => {
      await fund(20_000_000);
      // Both could be received when issued; the credits below use up the room before they are paid.
      const i = await intent({ amountMinor: 10_001 });
      const big = await intent({ amountMinor: 6_000_000 });
      for (const [amountMinor, clientReference] of [
        [6_000_000, "c1"],
        [3_990_000, "c2"],
      ] as const) {
        await credit(amountMinor, clientReference);
      }
      await expectSuspended(await pay(i), "max_balance_exceeded", "acme", 10_001); // 9_990_000 + 10_001
      await expectSuspended(await pay(big), "limit_exceeded", "acme", 6_000_000); // 15_990_000 today
      expect((await balance()).currentMinor).toBe(9_990_000);
    });

    // Intents that moved no money do not inflate the daily aggregate (nor count twice at the match).
    it("pending intents do not count toward the daily limit before their payment arrives", async () => {
      const intents = [];
      for (let n = 0; n < 3; n++) intents.push(await intent({ amountMinor: 5_000_000 }));
      // tier_1: 15_000_000 a day; the first payment is the day's first accepted movement
      expect((await pay(intents[0]!)).matched).toBe(true);
    });

    it("a payment counts toward the limits of the day it arrives, not the day its intent was issued", async () => {
      // tier_1 with room to hold it all: the daily aggregate (15_000_000) is the only limit in play.
      const tier1 = { ...catalog.kycLevels[0]!, maxBalanceMinor: 100_000_000 };
      core.deps.catalog = railsCatalog({ kycLevels: [tier1, ...catalog.kycLevels.slice(1)] });
      await fund(20_000_000);
      advanceSeconds(13 * 3600 + 59 * 60); // 2026-11-22T23:59
      const late = await intent({ amountMinor: 7_000_000 });
      advanceSeconds(120); // 2026-11-23T00:01
      expect((await pay(late)).matched).toBe(true);
      await credit(7_000_000, "same-day-1"); // 14_000_000 moved today
      const err = await refusal(credit(2_000_000, "same-day-2"));
      expect(err.code).toBe("LimitExceeded");
      expect((await balance()).currentMinor).toBe(14_000_000);
    });

    it("charges the wallet could not cover (an intent issued before its charges had to fit in its amount)", async () => {
      const i = await intent({ amountMinor: 100 });
      await core.run(async (tx) => {
        const op = (await tx.operations.get("acme", i.uid))!;
        const charges = [
          { label: "Fee", type: "flat" as const, amountMinor: 500, refundable: false, appliesToLabel: null },
        ];
        await tx.operations.update({ ...op, feeMinor: 500, details: { ...op.details, charges } });
      });
      await expectSuspended(await pay(i), "charges_not_covered", "acme", 100);
    });
  });

  describe("expiry job", () => {
    it("expires pending intents past expiresAt, once, with topup.expired", async () => {
      const soon = await intent({ expiresInSeconds: 60 });
      const later = await intent({ expiresInSeconds: 600 });
      const paid = await intent({ expiresInSeconds: 60 });
      await pay(paid);
      advanceSeconds(120);
      const asOf = core.deps.clock.now().toISOString();
      expect(await core.run((tx) => expireTopups(core.deps, tx, asOf, 100))).toBe(1);
      const d = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, soon.uid));
      expect(d).toMatchObject({ state: "failed", provider: { state: "failed" } });
      expect(d.completedAt).not.toBeNull();
      expect(d.timeline.map((t) => [t.toState, t.actorType]).at(-1)).toEqual(["failed", "system"]);
      expect(stored(later.uid).state).toBe("pending_provider");
      expect(stored(paid.uid).state).toBe("completed");
      const expired = events("topup.expired");
      expect(expired).toHaveLength(1);
      expect(expired[0].data.operation).toMatchObject({ uid: soon.uid, state: "failed" });

      // idempotent
      expect(await core.run((tx) => expireTopups(core.deps, tx, asOf, 100))).toBe(0);
      expect(events("topup.expired")).toHaveLength(1);

      // a payment after expiry goes to suspense, naming the tenant
      const r = await pay(soon);
      expect(suspenseItem(r.suspenseUid)).toMatchObject({ reason: "expired", tenantId: "acme" });
      expect(stored(soon.uid).state).toBe("failed");
      expect((await balance()).currentMinor).toBe(AMOUNT);
      await balanced();
    });

    it("an expired intent shows no charges: none were taken", async () => {
      core.deps.catalog = railsCatalog({
        feeSchedules: [
          topupSchedule({ label: "Collection fee", type: "flat", amountMinor: 300, refundable: false }),
        ],
      });
      const i = await intent({ expiresInSeconds: 60 });
      expect(i.feeMinor).toBe(300);
      advanceSeconds(120);
      const asOf = core.deps.clock.now().toISOString();
      expect(await core.run((tx) => expireTopups(core.deps, tx, asOf, 100))).toBe(1);
      const d = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, i.uid));
      expect(d).toMatchObject({ state: "failed", feeMinor: 0, taxMinor: 0 });
      expect(stored(i.uid).feeBreakdown).toEqual([]);
      expect(events("topup.expired")[0].data.operation).toMatchObject({ feeMinor: 0, taxMinor: 0 });
      expect(account("fees:acme")).toBe(0);
    });

    it("takes at most `limit` per run and uses asOf, not the clock", async () => {
      for (let n = 0; n < 3; n++) await intent({ expiresInSeconds: 60 });
      const early = new Date(Date.parse(core.deps.clock.now().toISOString()) + 30_000).toISOString();
      expect(await core.run((tx) => expireTopups(core.deps, tx, early, 10))).toBe(0);
      const asOf = new Date(Date.parse(early) + 60_000).toISOString();
      expect(await core.run((tx) => expireTopups(core.deps, tx, asOf, 2))).toBe(2);
      expect(await core.run((tx) => expireTopups(core.deps, tx, asOf, 2))).toBe(1);
      expect(await core.run((tx) => expireTopups(core.deps, tx, asOf, 2))).toBe(0);
    });

    it("whichever commits first wins: a payment before the job leaves nothing to expire", async () => {
      const i = await intent({ expiresInSeconds: 60 });
      const asOf = new Date(Date.parse(i.expiresAt!) + 1).toISOString();
      // the job and the payment race; the memory store serializes them in call order
      const [paid, expiredCount] = await Promise.all([
        pay(i),
        core.run((tx) => expireTopups(core.deps, tx, asOf, 10)),
      ]);
      expect(paid.matched).toBe(true);
      expect(expiredCount).toBe(0);
      expect(stored(i.uid).state).toBe("completed");

      const j = await intent({ expiresInSeconds: 60 });
      const asOf2 = new Date(Date.parse(j.expiresAt!) + 1).toISOString();
      const [count, late] = await Promise.all([
        core.run((tx) => expireTopups(core.deps, tx, asOf2, 10)),
        pay(j),
      ]);
      expect(count).toBe(1);
      expect(late.matched).toBe(false);
      expect(stored(j.uid).state).toBe("failed");
      await balanced();
    });
  });

  it("refuses (422) a payment that would take the rail's suspense past 2^53 - 1, recording nothing", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const first = await pay(null, { amountMinor: max, providerReference: "HUGE-1" });
    expect(first.suspenseUid).not.toBeNull();
    const before = {
      payments: core.store.state.railPayments.size,
      suspense: core.store.state.suspense.size,
      journals: core.store.state.journals.length,
    };
    const refused = await refusal(pay(null, { amountMinor: max, providerReference: "HUGE-2" }));
    expect(refused.code).toBe("UnprocessableEntity");
    expect({
      payments: core.store.state.railPayments.size,
      suspense: core.store.state.suspense.size,
      journals: core.store.state.journals.length,
    }).toEqual(before);
    await balanced();
  });

  describe("suspense resolution", () => {
    let itemUid: string;
    beforeEach(async () => {
      const i = await intent();
      itemUid = (await pay(i, { amountMinor: 30_000, providerReference: "WRONG-AMT" })).suspenseUid!;
    });
    const resolve = (action: Parameters<typeof resolveSuspense>[3], uid = itemUid) =>
      core.run((tx) => resolveSuspense(core.deps, tx, uid, action));

    it("lists items, by status", async () => {
      const lost = (await pay(null, { providerReference: "LOST" })).suspenseUid!;
      const all = await core.run((tx) => listSuspense(core.deps, tx));
      expect(all.data.map((x) => x.uid)).toEqual([itemUid, lost]);
      expect(all.data[0]).toMatchObject({
        providerReference: "WRONG-AMT",
        amountMinor: 30_000,
        reason: "amount_mismatch",
      });
      await resolve({ action: "refund" }, lost);
      expect(
        (await core.run((tx) => listSuspense(core.deps, tx, { status: "open" }))).data.map((x) => x.uid),
      ).toEqual([itemUid]);
      expect(
        (await core.run((tx) => listSuspense(core.deps, tx, { status: "refunded" }))).data.map((x) => x.uid),
      ).toEqual([lost]);
    });

    it("refund: the money goes back out through the rail", async () => {
      const item = await resolve({ action: "refund" });
      expect(item).toMatchObject({
        status: "refunded",
        resolution: { action: "refund", walletUid: null, operationUid: null },
      });
      expect(item.resolvedAt).not.toBeNull();
      const journal = core.store.state.journals.at(-1)!;
      expect(journal).toMatchObject({ kind: "suspense_refund", tenantId: "acme" });
      expect(journal.entries).toEqual([
        { accountKey: "suspense:sandbox_mobile", amountMinor: -30_000, label: "amount" },
        { accountKey: "rail:sandbox_mobile:clearing", amountMinor: 30_000, label: "amount" },
      ]);
      expect(account("suspense:sandbox_mobile")).toBe(0);
      expect(account("rail:sandbox_mobile:clearing")).toBe(0);
      expect((await refusal(resolve({ action: "refund" }))).code).toBe("Conflict");
      expect((await refusal(resolve({ action: "apply", walletUid }))).code).toBe("Conflict");
      await balanced();
    });

    it("apply: credits the wallet as a completed top-up the statement shows", async () => {
      const item = await resolve({ action: "apply", walletUid });
      expect(item.status).toBe("applied");
      const opUid = item.resolution!.operationUid!;
      expect(item.resolution).toEqual({ action: "apply", walletUid, operationUid: opUid });
      expect(await balance()).toMatchObject({ currentMinor: 30_000, availableMinor: 30_000 });
      expect(account("suspense:sandbox_mobile")).toBe(0);
      const journal = core.store.state.journals.at(-1)!;
      expect(journal).toMatchObject({ kind: "suspense_apply", operationUid: opUid, tenantId: "acme" });
      expect(journal.entries).toEqual([
        { accountKey: "suspense:sandbox_mobile", amountMinor: -30_000, label: "amount" },
        { accountKey: `wallet:${walletUid}`, amountMinor: 30_000, label: "amount" },
      ]);
      const d = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, opUid));
      expect(d).toMatchObject({
        type: "topup_c2b",
        state: "completed",
        amountMinor: 30_000,
        feeMinor: 0,
        provider: { state: "reconciled", reference: "WRONG-AMT" },
      });
      expect(d.intentReference).toBeUndefined();
      expect(d.timeline.map((t) => t.actorType)).toEqual(["admin", "admin"]);
      const statement = await core.run((tx) =>
        listOperations(core.deps, ctx(), tx, { walletUid, type: "topup_c2b", state: "completed" }, PAGE),
      );
      expect(statement.data.map((o) => o.uid)).toEqual([opUid]);
      expect(events("topup.confirmed").map((e) => e.data.operation.uid)).toEqual([opUid]);
      expect(
        (await core.run((tx) => getReceipt(core.deps, ctx(), tx, opUid))).references.providerReference,
      ).toBe("WRONG-AMT");
      expect((await refusal(resolve({ action: "refund" }))).code).toBe("Conflict");
      await balanced();
    });

    it("an operator reversal of an applied top-up puts the money back in suspense and reopens the item", async () => {
      const applied = await resolve({ action: "apply", walletUid });
      const opUid = applied.resolution!.operationUid!;
      const reversed = await core.run((tx) => reverseOperation(core.deps, tx, opUid));
      expect(reversed.state).toBe("reversed");
      expect(await balance()).toMatchObject({ currentMinor: 0 });
      expect(account("suspense:sandbox_mobile")).toBe(30_000);
      const open = (await core.run((tx) => listSuspense(core.deps, tx, { status: "open" }))).data;
      expect(open).toEqual([
        expect.objectContaining({ uid: applied.uid, status: "open", resolvedAt: null, resolution: null }),
      ]);
      // It can be settled again: here, back to the payer.
      expect((await resolve({ action: "refund" })).status).toBe("refunded");
      expect(account("suspense:sandbox_mobile")).toBe(0);
      await balanced();
    });

    it("apply refuses a wallet that cannot receive it, leaving the item open", async () => {
      await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "credit_blocked"));
      expect((await refusal(resolve({ action: "apply", walletUid }))).code).toBe("WalletNotActive");
      await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "active"));
      await fund(10_000_000);
      await credit(5_000_000, "c1");
      await credit(4_980_000, "c2");
      expect((await refusal(resolve({ action: "apply", walletUid }))).code).toBe("MaxBalanceExceeded");
      expect(suspenseItem(itemUid).status).toBe("open");
      expect(account("suspense:sandbox_mobile")).toBe(30_000);
      expect(
        [...core.store.state.operations.values()].filter((o) => o.provider?.state === "reconciled"),
      ).toHaveLength(0);
      await balanced();
    });

    it("apply refuses another tenant's wallet when the payment named a tenant, and another currency", async () => {
      const other = tenantFixture("other", { approvedRails: APPROVED });
      const stranger = await core.run((tx) => onboardCustomer(core.deps, ctx(other), tx, onboardingInput()));
      const e = await refusal(resolve({ action: "apply", walletUid: stranger.walletUid }));
      expect(e.code).toBe("UnprocessableEntity");
      // an item that named no tenant may go to any tenant's wallet
      const lost = (await pay(null, { providerReference: "LOST" })).suspenseUid!;
      expect((await resolve({ action: "apply", walletUid: stranger.walletUid }, lost)).status).toBe(
        "applied",
      );
      expect((await balance(stranger.walletUid, other)).currentMinor).toBe(AMOUNT);

      const usd = (await pay(null, { providerReference: "USD", currency: "USD" })).suspenseUid!;
      expect((await refusal(resolve({ action: "apply", walletUid }, usd))).code).toBe("CurrencyMismatch");
      await balanced();
    });

    it("404 for an unknown item or wallet", async () => {
      expect((await refusal(resolve({ action: "refund" }, "sus_missing"))).code).toBe("NotFound");
      expect((await refusal(resolve({ action: "apply", walletUid: "wal_missing" }))).code).toBe("NotFound");
    });
  });

  describe("an intent held with its payment (the wallet could not receive it)", () => {
    const FEE = 300;
    let held: OperationView;
    let itemUid: string;
    beforeEach(async () => {
      core.deps.catalog = railsCatalog({
        feeSchedules: [
          topupSchedule({ label: "Collection fee", type: "flat", amountMinor: FEE, refundable: false }),
        ],
      });
      held = await intent({ expiresInSeconds: 60 });
      await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "frozen"));
      itemUid = (await pay(held, { providerReference: "HELD-1" })).suspenseUid!;
    });
    const resolve = (action: Parameters<typeof resolveSuspense>[3]) =>
      core.run((tx) => resolveSuspense(core.deps, tx, itemUid, action));
    const unfreeze = () => core.run((tx) => tx.wallets.setStatus("acme", walletUid, "active"));

    it("waits for the operator: no event, no second payment, no expiry", async () => {
      const d = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, held.uid));
      expect(d).toMatchObject({
        state: "held",
        feeMinor: FEE,
        provider: { state: "confirmed", reference: "HELD-1" },
      });
      expect(d.timeline.map((t) => [t.toState, t.actorType])).toEqual([
        ["created", "api_client"],
        ["pending_provider", "system"],
        ["held", "provider"],
      ]);
      expect(events("topup.confirmed")).toEqual([]);
      // Listed on the statement from the hold on (a closed period keeps its rows when it settles).
      const statement = await core.run((tx) =>
        listWalletTransactions(core.deps, ctx(), tx, walletUid, {}, PAGE),
      );
      expect(statement.data.map((i) => [i.operationUid, i.state])).toContainEqual([held.uid, "held"]);
      await unfreeze();
      // The payer pays again: not the intent's payment any more, so not credited (no double top-up).
      const again = await pay(held, { providerReference: "HELD-2" });
      expect([again.matched, suspenseItem(again.suspenseUid).reason]).toEqual([false, "intent_closed"]);
      advanceSeconds(3600);
      expect(
        await core.run((tx) => expireTopups(core.deps, tx, core.deps.clock.now().toISOString(), 100)),
      ).toBe(0);
      expect(stored(held.uid).state).toBe("held");
      expect(events("topup.expired")).toEqual([]);
      expect((await balance()).currentMinor).toBe(0);
      await balanced();
    });

    it("apply completes the intent itself, with its charges and topup.confirmed", async () => {
      // Still frozen: refused, and nothing changes.
      expect((await refusal(resolve({ action: "apply", walletUid }))).code).toBe("WalletNotActive");
      expect([suspenseItem(itemUid).status, stored(held.uid).state]).toEqual(["open", "held"]);
      await unfreeze();
      const item = await resolve({ action: "apply", walletUid });
      expect(item).toMatchObject({
        status: "applied",
        resolution: { action: "apply", walletUid, operationUid: held.uid },
      });
      expect(await balance()).toMatchObject({ currentMinor: AMOUNT - FEE });
      expect(account("suspense:sandbox_mobile")).toBe(0);
      const journal = core.store.state.journals.at(-1)!;
      expect(journal).toMatchObject({ kind: "suspense_apply", operationUid: held.uid });
      expect(journal.entries).toEqual([
        { accountKey: "suspense:sandbox_mobile", amountMinor: -AMOUNT, label: "amount" },
        { accountKey: `wallet:${walletUid}`, amountMinor: AMOUNT, label: "amount" },
        { accountKey: `wallet:${walletUid}`, amountMinor: -FEE, label: "Collection fee" },
        { accountKey: "fees:acme", amountMinor: FEE, label: "Collection fee" },
      ]);
      const d = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, held.uid));
      expect(d).toMatchObject({
        state: "completed",
        clientReference: held.clientReference,
        feeMinor: FEE,
        provider: { state: "reconciled", reference: "HELD-1" },
      });
      expect(events("topup.confirmed").map((e) => e.data.operation.uid)).toEqual([held.uid]);
      expect((await core.run((tx) => getReceipt(core.deps, ctx(), tx, held.uid))).operationUid).toBe(
        held.uid,
      );
      // An operator reversal puts the money back in suspense and reopens the item.
      await core.run((tx) => reverseOperation(core.deps, tx, held.uid));
      expect([suspenseItem(itemUid).status, account("suspense:sandbox_mobile")]).toEqual(["open", AMOUNT]);
      await balanced();
    });

    it("apply refuses another wallet: the payment is the intent's", async () => {
      await unfreeze();
      const base = onboardingInput();
      const second = await core.run((tx) =>
        onboardCustomer(
          core.deps,
          ctx(),
          tx,
          onboardingInput({
            identifiers: [{ ...base.identifiers[0]!, value: "+254700000999" }],
            kyc: { ...base.kyc, sourceReference: "kyc-ref-2" },
          }),
        ),
      );
      const e = await refusal(resolve({ action: "apply", walletUid: second.walletUid }));
      expect([e.code, e.details?.[0]?.field]).toEqual(["UnprocessableEntity", "walletUid"]);
      expect([suspenseItem(itemUid).status, stored(held.uid).state]).toEqual(["open", "held"]);
    });

    it("refund fails the intent: provider reversed, no charges, no event", async () => {
      expect((await resolve({ action: "refund" })).status).toBe("refunded");
      const d = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, held.uid));
      expect(d).toMatchObject({
        state: "failed",
        feeMinor: 0,
        taxMinor: 0,
        provider: { state: "reversed", reference: "HELD-1" },
      });
      expect([events("topup.confirmed"), events("topup.expired")]).toEqual([[], []]);
      expect(account("suspense:sandbox_mobile")).toBe(0);
      // It was paid, not expired: a later payment quoting it is `intent_closed`.
      const later = await pay(held, { providerReference: "HELD-3" });
      expect(suspenseItem(later.suspenseUid).reason).toBe("intent_closed");
      await balanced();
    });
  });
});
