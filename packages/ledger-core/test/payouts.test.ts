import { createHash } from "node:crypto";
import { beforeEach, describe, expect, it } from "vitest";
import type {
  Assertion,
  CreatePayoutInput,
  CustomerView,
  FeeQuote,
  PayoutOutcome,
  Tenant,
} from "../src/index.js";
import {
  addIdentifier,
  BINDING_TEMPLATE,
  bindingCanonical,
  buildPayoutInstruction,
  changeCustomerStatus,
  chargesFor,
  createPayout,
  creditWallet,
  entriesOf,
  fundPrefund,
  getOperationDetail,
  getReceipt,
  getTrialBalance,
  getWalletBalance,
  inLockOrder,
  onboardCustomer,
  recordPayoutSubmission,
  reportPayoutResult,
  reverseOperation,
} from "../src/index.js";
import { createFixedClock } from "../src/memory/index.js";
import { createCore, onboardingInput, railsCatalog, refusal, tenantFixture } from "./support/core.js";

const sha = (s: string) => createHash("sha256").update(Buffer.from(s, "utf8")).digest("hex");

const RAIL = "sandbox_mobile";
const APPROVED = ["sandbox_mobile", "sandbox_bank", "sandbox_off", "sandbox_usd"];
const FUNDED = 1_000_000;
// DESIGN payout_std on 50_000: flat 2500 + levy 1.5% (750) = 3250 fee; VAT 16% of 2500 = 400 tax.
const AMOUNT = 50_000;
const FEE = 3_250;
const TAX = 400;

describe("payouts", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let customer: CustomerView;
  let walletUid: string;
  let msisdnUid: string;

  const ctx = () => core.ctxFor(acme);
  const balance = () => core.run((tx) => getWalletBalance(core.deps, ctx(), tx, walletUid));
  const account = (key: string) => core.store.state.accounts.get(`${key}/KES`)?.balance ?? 0;
  const balanced = async () => expect((await core.run((tx) => getTrialBalance(tx))).balanced).toBe(true);
  const payoutOps = () => [...core.store.state.operations.values()].filter((o) => o.type === "payout_b2c");
  const events = (type: string) =>
    core.store.state.outbox.filter((e) => e.type === type).map((e) => JSON.parse(e.body));

  const assertionFor = (input: Omit<CreatePayoutInput, "assertion">, overrides: Partial<Assertion> = {}) => ({
    customerUid: customer.uid,
    assuranceLevel: "two_factor" as const,
    factor1Type: "pin",
    factor2Type: "otp",
    authenticatedAt: "2026-11-22T09:59:00.000Z",
    expiresAt: "2026-11-22T10:05:00.000Z",
    channelCode: "app",
    sourceReference: `sess-${input.clientReference}`,
    transactionBinding: {
      hash: sha(
        bindingCanonical({
          customerUid: customer.uid,
          walletUid: input.walletUid,
          amountMinor: input.amountMinor,
          currency: input.currency,
          target: input.destinationIdentifierUid,
          clientReference: input.clientReference,
        }),
      ),
      algorithm: "sha256" as const,
      canonical: BINDING_TEMPLATE,
    },
    ...overrides,
  });

  /** A valid request, with fields overridden; the assertion is bound to the final values. */
  const request = (
    overrides: Partial<Omit<CreatePayoutInput, "assertion">> = {},
    assertion: Partial<Assertion> = {},
  ): CreatePayoutInput => {
    const base = {
      walletUid,
      destinationIdentifierUid: msisdnUid,
      amountMinor: AMOUNT,
      currency: "KES",
      railCode: RAIL,
      clientReference: "po-1",
      ...overrides,
    };
    return { ...base, assertion: assertionFor(base, assertion) };
  };
  const payout = (input: CreatePayoutInput, tenant = acme) =>
    core.run((tx) => createPayout(core.deps, core.ctxFor(tenant), tx, input));
  const report = (
    operationUid: string,
    outcome: PayoutOutcome,
    providerReference?: string,
    railCode = RAIL,
  ) =>
    core.run((tx) =>
      reportPayoutResult(core.deps, tx, { railCode, operationUid, outcome, providerReference }),
    );

  beforeEach(async () => {
    core = createCore();
    core.deps.catalog = railsCatalog();
    acme = tenantFixture("acme", { approvedRails: APPROVED });
    await core.run((tx) => tx.tenants.upsert(acme));
    await core.run((tx) => tx.tenants.upsert(tenantFixture("other", { approvedRails: APPROVED })));
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 50_000_000, currency: "KES" }),
    );
    customer = await core.run((tx) => onboardCustomer(core.deps, ctx(), tx, onboardingInput()));
    walletUid = customer.walletUid;
    msisdnUid = customer.identifiers.find((i) => i.type === "msisdn")!.uid;
    await core.run((tx) =>
      creditWallet(core.deps, ctx(), tx, {
        walletUid,
        amountMinor: FUNDED,
        currency: "KES",
        clientReference: "fund",
      }),
    );
  });

  describe("phase 1", () => {
    it("debits amount + fee + tax with charges itemized and holds the amount", async () => {
      const op = await payout(request());
      expect(op).toMatchObject({
        type: "payout_b2c",
        state: "processing",
        amountMinor: AMOUNT,
        feeMinor: FEE,
        taxMinor: TAX,
        currency: "KES",
        clientReference: "po-1",
        completedAt: null,
      });
      expect(await balance()).toMatchObject({
        availableMinor: FUNDED - AMOUNT - FEE - TAX,
        heldMinor: AMOUNT,
        currentMinor: FUNDED - FEE - TAX,
      });
      expect(account("fees:acme")).toBe(FEE);
      expect(account("tax:acme")).toBe(TAX);

      const journals = core.store.state.journals.filter((j) => j.operationUid === op.uid);
      expect(journals).toHaveLength(1);
      expect(journals[0]!.kind).toBe("payout_hold");
      const w = `wallet:${walletUid}`;
      expect(journals[0]!.entries).toEqual([
        { accountKey: w, amountMinor: -AMOUNT, label: "amount" },
        { accountKey: `${w}:hold`, amountMinor: AMOUNT, label: "amount" },
        { accountKey: w, amountMinor: -2500, label: "Transfer fee" },
        { accountKey: "fees:acme", amountMinor: 2500, label: "Transfer fee" },
        { accountKey: w, amountMinor: -750, label: "Levy" },
        { accountKey: "fees:acme", amountMinor: 750, label: "Levy" },
        { accountKey: w, amountMinor: -400, label: "VAT" },
        { accountKey: "tax:acme", amountMinor: 400, label: "VAT" },
      ]);

      const detail = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, op.uid));
      expect(detail.timeline.map((t) => [t.fromState, t.toState, t.actorType])).toEqual([
        [null, "created", "api_client"],
        ["created", "processing", "system"],
      ]);
      expect(detail.provider).toEqual({ state: "initiated", reference: null, lastUpdatedAt: op.createdAt });
      const stored = core.store.state.operations.get(op.uid)!;
      expect(stored.counterpartyHint).toBe("+2547******78");
      expect(stored.feeBreakdown).toEqual([
        { label: "Transfer fee", amountMinor: 2500 },
        { label: "Levy", amountMinor: 750 },
        { label: "VAT", amountMinor: 400 },
      ]);
      expect(stored.fundsMovedAt).toBe(op.createdAt);

      const receipt = await core.run((tx) => getReceipt(core.deps, ctx(), tx, op.uid));
      expect(receipt).toMatchObject({
        occurredAt: op.createdAt,
        totalDebitedMinor: AMOUNT + FEE + TAX,
        counterparty: { hint: "+2547******78" },
        references: { clientReference: "po-1", providerReference: null, journalUids: [journals[0]!.uid] },
        state: "processing",
      });
      expect(core.store.state.outbox.filter((e) => e.type.startsWith("payout."))).toHaveLength(0);
      await balanced();
    });

    it("records the assertion's sourceReference and counts toward the outbound limits", async () => {
      await payout(request());
      expect(core.store.state.assertionUses.map((u) => u.sourceReference)).toContain("sess-po-1");
      const since = "2026-11-01T00:00:00.000Z";
      expect(await core.run((tx) => tx.operations.sumForWallet(walletUid, since, "outbound"))).toBe(AMOUNT);
    });

    it("pays out the largest amount the available balance covers, and refuses one minor unit more", async () => {
      const total = (a: number) => chargesFor(core.deps.catalog, "payout_b2c", "KES", RAIL, a).totalMinor;
      let amount = FUNDED;
      while (total(amount) > FUNDED) amount--;
      const over = await refusal(payout(request({ amountMinor: amount + 1, clientReference: "over" })));
      expect(over.code).toBe("InsufficientFunds");
      await payout(request({ amountMinor: amount, clientReference: "max" }));
      expect((await balance()).availableMinor).toBe(FUNDED - total(amount));
      expect((await balance()).availableMinor).toBeLessThan(total(amount + 1) - total(amount));
      await balanced();
    });
  });

  describe("phase-1 refusals, in the spec's order", () => {
    const expectNothingMoved = async () => {
      expect(payoutOps()).toHaveLength(0);
      expect(await balance()).toMatchObject({ availableMinor: FUNDED, heldMinor: 0 });
    };

    it("404 for a wallet outside the account, before anything else", async () => {
      const other = tenantFixture("other", { approvedRails: APPROVED });
      const e = await refusal(payout(request({ currency: "USD", railCode: "nope" }), other));
      expect(e.code).toBe("NotFound");
      expect((await refusal(payout(request({ walletUid: "wal_missing" })))).code).toBe("NotFound");
    });

    it("409 for a clientReference another payout holds, before currency and rail; a credit's is free", async () => {
      await payout(request({ clientReference: "dup" }));
      const e = await refusal(payout(request({ clientReference: "dup", currency: "USD", railCode: "nope" })));
      expect(e.code).toBe("Conflict");
      await payout(request({ clientReference: "fund" })); // used by a credit, not by a payout
    });

    it("422 CurrencyMismatch before the rail checks", async () => {
      const e = await refusal(payout(request({ currency: "USD", railCode: "nope" })));
      expect(e.code).toBe("CurrencyMismatch");
      await expectNothingMoved();
    });

    it("the same generic 422 for a rail unapproved, unknown, inactive, without payouts or in another currency", async () => {
      await core.run((tx) => tx.tenants.upsert({ ...acme, approvedRails: [...APPROVED, "ghost"] }));
      const messages = new Set<string>();
      for (const railCode of [
        "sandbox_collect_off",
        "ghost",
        "nope",
        "sandbox_off",
        "sandbox_bank",
        "sandbox_usd",
      ]) {
        // a bad destination too: the rail is checked first
        const e = await refusal(payout(request({ railCode, destinationIdentifierUid: "idn_missing" })));
        expect(e.code, railCode).toBe("UnprocessableEntity");
        messages.add(e.message);
      }
      expect([...messages]).toEqual(["The request cannot be processed for this account"]);
      await expectNothingMoved();
    });

    it("422 for a destination that is not a payout-eligible identifier of the wallet's customer", async () => {
      const documentUid = customer.identifiers.find((i) => i.class === "identity_document")!.uid;
      const unverified = await core.run((tx) =>
        addIdentifier(core.deps, ctx(), tx, customer.uid, {
          class: "contact",
          type: "email",
          value: "amina@example.com",
          verificationStatus: "pending",
        }),
      );
      const stranger = await core.run((tx) =>
        onboardCustomer(
          core.deps,
          ctx(),
          tx,
          onboardingInput({
            identifiers: [
              {
                class: "contact",
                type: "msisdn",
                value: "+254700000001",
                isPrimary: true,
                verificationStatus: "verified",
              },
            ],
          }),
        ),
      );
      const retired = await core.run((tx) =>
        addIdentifier(core.deps, ctx(), tx, customer.uid, {
          class: "contact",
          type: "email",
          value: "old@example.com",
          verificationStatus: "verified",
          verifiedAt: "2026-01-01T00:00:00.000Z",
        }),
      );
      await core.run(async (tx) => {
        const i = (await tx.identifiers.get("acme", retired.uid))!;
        await tx.identifiers.update({ ...i, validTo: "2026-11-01T00:00:00.000Z" });
      });
      for (const destinationIdentifierUid of [
        documentUid,
        unverified.uid,
        stranger.identifiers[0]!.uid,
        retired.uid,
        "idn_missing",
      ]) {
        // an expired assertion too: the destination is checked first
        const e = await refusal(
          payout(request({ destinationIdentifierUid }, { expiresAt: "2026-11-22T09:59:30.000Z" })),
        );
        expect(e.code, destinationIdentifierUid).toBe("UnprocessableEntity");
        expect(e.message).toMatch(/destination/);
      }
      await expectNothingMoved();
    });

    it("refuses an assertion not bound to this request, or single-factor above the threshold", async () => {
      const unbound = request({ clientReference: "a" });
      unbound.assertion.transactionBinding!.hash = sha("something else");
      expect((await refusal(payout(unbound))).code).toBe("AssertionNotBoundToTransaction");

      // bound to another destination
      const other = request({ clientReference: "b", destinationIdentifierUid: "idn_other" });
      const e = await refusal(payout({ ...other, destinationIdentifierUid: msisdnUid }));
      expect(e.code).toBe("AssertionNotBoundToTransaction");

      const big = request(
        { clientReference: "c", amountMinor: 200_000 },
        { assuranceLevel: "single_factor", factor2Type: undefined },
      );
      expect((await refusal(payout(big))).code).toBe("AuthorizationInsufficient");
      const forOther = request({ clientReference: "d" }, { customerUid: "cus_other" });
      expect((await refusal(payout(forOther))).code).toBe("UnprocessableEntity");
      await expectNothingMoved();
      expect(core.store.state.assertionUses).toHaveLength(0);
    });

    it("checks wallet status and KYC limits after the assertion, before funds", async () => {
      await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "debit_blocked"));
      // also more than the wallet holds: the status is checked first
      const blocked = await refusal(payout(request({ amountMinor: 2_000_000 })));
      expect(blocked.code).toBe("WalletNotActive");
      // with a broken assertion, the assertion is refused first
      const unbound = request();
      unbound.assertion.transactionBinding!.hash = sha("x");
      expect((await refusal(payout(unbound))).code).toBe("AssertionNotBoundToTransaction");

      await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "active"));
      const tooBig = await refusal(payout(request({ amountMinor: 7_000_001 })));
      expect(tooBig.code).toBe("LimitExceeded");
      await core.run((tx) => tx.customers.setStatus("acme", customer.uid, "suspended"));
      expect((await refusal(payout(request()))).code).toBe("CustomerNotActive");
      await expectNothingMoved();
    });

    it("the binding, then the KYC limits, then the two-factor threshold, then funds (each pair broken at once)", async () => {
      const single = { assuranceLevel: "single_factor" as const, factor2Type: undefined };
      // single-factor above the threshold and bound to another amount: the binding first
      const unbound = request({ clientReference: "o-1", amountMinor: 200_000 }, single);
      unbound.assertion.transactionBinding!.hash = sha("x");
      expect((await refusal(payout(unbound))).code).toBe("AssertionNotBoundToTransaction");
      // ... or not bound at all, which above the threshold is required
      const bare = request({ clientReference: "o-2", amountMinor: 200_000 }, single);
      delete bare.assertion.transactionBinding;
      expect((await refusal(payout(bare))).code).toBe("AssertionNotBoundToTransaction");
      // single-factor above the threshold and over the level's single-transaction maximum: the limits
      const overLimit = request({ clientReference: "o-3", amountMinor: 7_000_001 }, single);
      expect((await refusal(payout(overLimit))).code).toBe("LimitExceeded");
      // single-factor above the threshold and more than the wallet holds: the threshold
      const overFunds = request({ clientReference: "o-4", amountMinor: FUNDED + 1 }, single);
      expect((await refusal(payout(overFunds))).code).toBe("AuthorizationInsufficient");
      await expectNothingMoved();
      expect(core.store.state.assertionUses).toHaveLength(0);
    });

    it("refuses InsufficientFunds when available cannot cover amount + fee + tax", async () => {
      const e = await refusal(payout(request({ amountMinor: FUNDED - 1_000 })));
      expect(e.code).toBe("InsufficientFunds");
      await expectNothingMoved();
      await balanced();
    });
  });

  describe("fee quotes", () => {
    const storeQuote = (overrides: Partial<FeeQuote> = {}) => {
      const c = chargesFor(core.deps.catalog, "payout_b2c", "KES", RAIL, AMOUNT);
      const quote: FeeQuote = {
        quoteId: `quo_${Math.random().toString(36).slice(2)}`,
        tenantId: "acme",
        operationType: "payout_b2c",
        walletUid,
        currency: "KES",
        amountMinor: AMOUNT,
        feeMinor: c.feeMinor,
        taxMinor: c.taxMinor,
        totalMinor: c.totalMinor,
        breakdown: c.breakdown,
        ruleVersion: { uid: "fsv_payout_std_1", ruleCode: "payout_std", versionNo: 1 },
        railCode: RAIL,
        validUntil: "2026-11-22T10:05:00.000Z",
        createdAt: "2026-11-22T10:00:00.000Z",
        ...overrides,
      };
      return core.run(async (tx) => {
        await tx.quotes.insert(quote);
        return quote.quoteId;
      });
    };
    const usedQuote = (uid: string) => core.store.state.operations.get(uid)!.details?.feeQuoteId;

    it("uses a valid quote issued for this very request", async () => {
      const quoteId = await storeQuote();
      const op = await payout(request({ feeQuoteId: quoteId }));
      expect(op).toMatchObject({ feeMinor: FEE, taxMinor: TAX });
      expect(usedQuote(op.uid)).toBe(quoteId);
    });

    it.each<[string, Partial<FeeQuote>]>([
      ["expired", { validUntil: "2026-11-22T09:59:59.999Z" }],
      ["for another amount", { amountMinor: AMOUNT + 1 }],
      ["for another rail", { railCode: null }],
      ["for another operation type", { operationType: "wallet_debit" }],
      ["for another wallet", { walletUid: "wal_other" }],
      ["of another tenant", { tenantId: "other" }],
      ["that no longer equals a fresh computation", { feeMinor: 1, totalMinor: AMOUNT + 1 + TAX }],
    ])("ignores a quote %s and computes the charges fresh, never refusing", async (_, overrides) => {
      const quoteId = await storeQuote(overrides);
      const op = await payout(request({ feeQuoteId: quoteId }));
      expect(op).toMatchObject({ state: "processing", feeMinor: FEE, taxMinor: TAX });
      expect(usedQuote(op.uid)).toBeNull();
      expect(account("fees:acme")).toBe(FEE);
    });

    it("ignores an unknown quote id", async () => {
      const op = await payout(request({ feeQuoteId: "quo_unknown" }));
      expect(usedQuote(op.uid)).toBeNull();
    });

    // A quote whose totals still match but whose lines differ (here the non-refundable levy marked
    // refundable) must not be used: its lines would decide what a failed payout gives back, and the
    // levy would be refunded out of fee income.
    it("ignores a quote whose totals match but whose lines differ; a failure keeps the levy", async () => {
      const fresh = chargesFor(core.deps.catalog, "payout_b2c", "KES", RAIL, AMOUNT).breakdown;
      const quoteId = await storeQuote({ breakdown: fresh.map((l) => ({ ...l, refundable: true })) });
      const op = await payout(request({ feeQuoteId: quoteId }));
      expect(usedQuote(op.uid)).toBeNull();
      await report(op.uid, "failed");
      // 2 500 fee + 400 VAT come back; the 750 levy is kept.
      expect((await balance()).availableMinor).toBe(FUNDED - 750);
      expect(account("fees:acme")).toBe(750);
    });

    // A quote is valid until its validUntil, not at it.
    it("does not use a quote at the very instant of its validUntil", async () => {
      core.deps.clock = createFixedClock("2026-11-22T10:00:01.000Z");
      const quoteId = await storeQuote({ validUntil: "2026-11-22T10:00:01.000Z" });
      const op = await payout(request({ feeQuoteId: quoteId }));
      expect(usedQuote(op.uid)).toBeNull();
    });
  });

  describe("phase 2: results", () => {
    let opUid: string;
    beforeEach(async () => {
      opUid = (await payout(request())).uid;
    });
    const journalsOfOp = () => core.store.state.journals.filter((j) => j.operationUid === opUid);

    it("confirmed: the hold settles to the rail's clearing account", async () => {
      const d = await report(opUid, "confirmed", "PRV-1");
      expect(d).toMatchObject({ state: "completed", provider: { state: "confirmed", reference: "PRV-1" } });
      expect(d.completedAt).not.toBeNull();
      expect(d.timeline.map((t) => [t.toState, t.actorType])).toEqual([
        ["created", "api_client"],
        ["processing", "system"],
        ["completed", "provider"],
      ]);
      const settle = journalsOfOp()[1]!;
      expect(settle.kind).toBe("payout_settle");
      expect(settle.entries).toEqual([
        { accountKey: `wallet:${walletUid}:hold`, amountMinor: -AMOUNT, label: "amount" },
        { accountKey: "rail:sandbox_mobile:clearing", amountMinor: AMOUNT, label: "amount" },
      ]);
      expect(await balance()).toMatchObject({
        heldMinor: 0,
        availableMinor: FUNDED - AMOUNT - FEE - TAX,
        currentMinor: FUNDED - AMOUNT - FEE - TAX,
      });
      const [event] = events("payout.confirmed");
      expect(event.dedupKey).toBe(`${opUid}:payout.confirmed:1`);
      expect(event.data.operation).toMatchObject({ uid: opUid, state: "completed" });
      const receipt = await core.run((tx) => getReceipt(core.deps, ctx(), tx, opUid));
      expect(receipt.references.providerReference).toBe("PRV-1");
      expect(receipt.references.journalUids).toHaveLength(2);
      await balanced();
    });

    it("failed: the amount and the refundable charges return; the non-refundable levy is kept", async () => {
      const d = await report(opUid, "failed", "PRV-2");
      expect(d).toMatchObject({ state: "failed", provider: { state: "failed", reference: "PRV-2" } });
      expect(d.completedAt).not.toBeNull();
      const release = journalsOfOp()[1]!;
      expect(release.kind).toBe("payout_release");
      const w = `wallet:${walletUid}`;
      expect(release.entries).toEqual([
        { accountKey: `${w}:hold`, amountMinor: -AMOUNT, label: "amount" },
        { accountKey: w, amountMinor: AMOUNT, label: "amount" },
        { accountKey: "fees:acme", amountMinor: -2500, label: "Transfer fee" },
        { accountKey: w, amountMinor: 2500, label: "Transfer fee" },
        { accountKey: "tax:acme", amountMinor: -400, label: "VAT" },
        { accountKey: w, amountMinor: 400, label: "VAT" },
      ]);
      expect(await balance()).toMatchObject({
        heldMinor: 0,
        availableMinor: FUNDED - 750,
        currentMinor: FUNDED - 750,
      });
      expect(account("fees:acme")).toBe(750);
      expect(account("tax:acme")).toBe(0);
      expect(account("rail:sandbox_mobile:clearing")).toBe(0);
      expect(events("payout.failed")[0].data.operation).toMatchObject({ uid: opUid, state: "failed" });
      // a failed payout no longer counts toward the limits
      expect(
        await core.run((tx) => tx.operations.sumForWallet(walletUid, "2026-11-01T00:00:00.000Z", "outbound")),
      ).toBe(0);
      await balanced();
    });

    it("failed with only non-refundable charges returns the amount alone", async () => {
      core.deps.catalog = railsCatalog({
        feeSchedules: [
          {
            ruleCode: "payout_fixed",
            versionNo: 1,
            operationType: "payout_b2c",
            railCode: RAIL,
            currency: "KES",
            components: [{ label: "Fixed", type: "flat", amountMinor: 99, refundable: false }],
          },
        ],
      });
      const op = await payout(request({ clientReference: "po-fixed" }));
      expect(op.feeMinor).toBe(99);
      await report(op.uid, "failed");
      expect(account("fees:acme")).toBe(FEE + 99); // the first payout's charges are still there
      const release = core.store.state.journals.filter((j) => j.operationUid === op.uid)[1]!;
      expect(release.entries.map((e) => e.label)).toEqual(["amount", "amount"]);
      await balanced();
    });

    it("uncertain: nothing moves, the payout stays processing until a later result resolves it", async () => {
      const before = await balance();
      const receipt = () => core.run((tx) => getReceipt(core.deps, ctx(), tx, opUid));
      const processing = await receipt();
      // An uncertain result carrying the rail's reference changes neither the receipt nor its hash.
      const d = await report(opUid, "uncertain", "PRV-U");
      expect(await receipt()).toEqual(processing);
      expect(d.provider).toMatchObject({ reference: "PRV-U" });
      expect(d).toMatchObject({ state: "processing", completedAt: null, provider: { state: "uncertain" } });
      expect(journalsOfOp()).toHaveLength(1);
      expect(await balance()).toEqual(before);
      expect(events("payout.uncertain")).toHaveLength(1);

      // a second uncertain changes nothing and says nothing
      await report(opUid, "uncertain");
      expect(events("payout.uncertain")).toHaveLength(1);
      // ... but a reference it brings is kept (no event either), and the receipt still waits.
      const again = await report(opUid, "uncertain", "PRV-U2");
      expect(again.provider).toMatchObject({ state: "uncertain", reference: "PRV-U2" });
      expect(events("payout.uncertain")).toHaveLength(1);
      expect(await receipt()).toEqual(processing);

      const done = await report(opUid, "confirmed", "PRV-3");
      expect(done).toMatchObject({
        state: "completed",
        provider: { state: "confirmed", reference: "PRV-3" },
      });
      expect((await receipt()).references.providerReference).toBe("PRV-3");
      expect(done.timeline.map((t) => t.toState)).toEqual(["created", "processing", "completed"]);
      expect(core.store.state.outbox.filter((e) => e.resourceUid === opUid).map((e) => e.type)).toEqual([
        "payout.uncertain",
        "payout.confirmed",
      ]);
      expect((await balance()).heldMinor).toBe(0);
      await balanced();
    });

    it("uncertain then failed releases the hold", async () => {
      await report(opUid, "uncertain");
      await report(opUid, "failed");
      expect(await balance()).toMatchObject({ heldMinor: 0, availableMinor: FUNDED - 750 });
      await balanced();
    });

    it("a repeated result is idempotent; a contradicting one is 409", async () => {
      const first = await report(opUid, "confirmed", "PRV-4");
      const journals = core.store.state.journals.length;
      const outbox = core.store.state.outbox.length;
      expect(await report(opUid, "confirmed", "PRV-4")).toEqual(first);
      expect(await report(opUid, "confirmed")).toEqual(first); // no reference: still the same result
      // The same outcome under another provider reference is not a repeat.
      expect((await refusal(report(opUid, "confirmed", "PRV-OTHER"))).code).toBe("Conflict");
      expect(core.store.state.journals.length).toBe(journals);
      expect(core.store.state.outbox.length).toBe(outbox);
      expect((await refusal(report(opUid, "failed"))).code).toBe("Conflict");
      expect((await refusal(report(opUid, "uncertain"))).code).toBe("Conflict");
      expect(core.store.state.journals.length).toBe(journals);
      await balanced();
    });

    it("a failed payout stays failed: confirmed later is 409, failed again is a no-op", async () => {
      await report(opUid, "failed");
      const balanceAfter = await balance();
      expect((await refusal(report(opUid, "confirmed"))).code).toBe("Conflict");
      expect((await report(opUid, "failed")).state).toBe("failed");
      expect(await balance()).toEqual(balanceAfter);
      expect(events("payout.failed")).toHaveLength(1);
    });

    it("404 for an unknown operation, another rail's payout or an operation that is not a payout", async () => {
      expect((await refusal(report("op_missing", "confirmed"))).code).toBe("NotFound");
      expect((await refusal(report(opUid, "confirmed", undefined, "sandbox_bank"))).code).toBe("NotFound");
      const credit = [...core.store.state.operations.values()].find((o) => o.type === "wallet_credit")!;
      expect((await refusal(report(credit.uid, "confirmed"))).code).toBe("NotFound");
      expect(core.store.state.operations.get(opUid)!.state).toBe("processing");
    });

    it("builds the rail instruction with the clear destination and records the submission", async () => {
      const instruction = await core.run((tx) => buildPayoutInstruction(core.deps, tx, RAIL, opUid));
      expect(instruction).toEqual({
        operationUid: opUid,
        railCode: RAIL,
        amountMinor: AMOUNT,
        currency: "KES",
        destination: { type: "msisdn", value: "+254712345678" },
        reference: "po-1",
      });
      const d = await core.run((tx) =>
        recordPayoutSubmission(core.deps, tx, {
          railCode: RAIL,
          operationUid: opUid,
          providerReference: "SUB-1",
        }),
      );
      expect(d.provider).toMatchObject({ state: "pending", reference: "SUB-1" });
      // the reference survives a result that names none
      expect((await report(opUid, "confirmed")).provider).toMatchObject({
        state: "confirmed",
        reference: "SUB-1",
      });
      // a submission answer arriving after the result changes nothing
      const late = await core.run((tx) =>
        recordPayoutSubmission(core.deps, tx, {
          railCode: RAIL,
          operationUid: opUid,
          providerReference: "LATE",
        }),
      );
      expect(late.provider).toMatchObject({ state: "confirmed", reference: "SUB-1" });
    });
  });

  describe("operator reversal (completed -> reversed, with a reversing journal)", () => {
    const reverse = (uid: string) => core.run((tx) => reverseOperation(core.deps, tx, uid));
    /** Tops the wallet up from the rail's clearing account, as top-ups would, to stage a balance. */
    const stageFromClearing = (amountMinor: number) =>
      core.run((tx) =>
        tx.ledger.post({
          uid: "jrn_stage",
          tenantId: "acme",
          operationUid: "op_stage",
          currency: "KES",
          kind: "stage",
          createdAt: "2026-11-22T10:00:00.000Z",
          entries: entriesOf([
            { from: `rail:${RAIL}:clearing`, to: `wallet:${walletUid}`, amountMinor, label: "stage" },
          ]),
        }),
      );

    // The reversal's range check: a wallet brought to exactly 2^53 - 1 is within range.
    it("reverses a payout that brings the wallet to exactly 2^53 - 1", async () => {
      const first = await payout(request({ clientReference: "max-1" }));
      await report(first.uid, "confirmed");
      const target = Number.MAX_SAFE_INTEGER - (AMOUNT + FEE + TAX);
      const topUp = target - (await balance()).currentMinor;
      await stageFromClearing(topUp);
      const reversed = await core.run((tx) => reverseOperation(core.deps, tx, first.uid));
      expect(reversed.state).toBe("reversed");
      expect((await balance()).currentMinor).toBe(Number.MAX_SAFE_INTEGER);
    });

    // The shared accounts are locked in the one lock order, not the journal's: a reversed payout's
    // come as fees, tax, rail clearing, a top-up's as rail clearing, fees, tax, and two such
    // transactions on Postgres would wait for each other (a deadlock).
    it("locks the shared accounts of a posting in the one lock order, the posted (last) one last", async () => {
      const first = await payout(request({ clientReference: "order-1" }));
      await report(first.uid, "confirmed");
      const locks: string[][] = [];
      let posted: string[] = [];
      await core.store.uow.run((tx) =>
        reverseOperation(
          core.deps,
          {
            ...tx,
            ledger: {
              ...tx.ledger,
              lockAccounts: (currency, keys) => {
                locks.push([...keys]);
                return tx.ledger.lockAccounts(currency, keys);
              },
              post: (j) => {
                posted = j.entries.map((e) => e.accountKey);
                return tx.ledger.post(j);
              },
            },
          },
          first.uid,
        ),
      );
      const shared = locks.at(-1)!;
      expect(shared).toEqual(inLockOrder("KES", shared));
      const last = inLockOrder(
        "KES",
        posted.filter((k) => !k.startsWith("wallet:")),
      ).at(-1)!;
      expect(shared).not.toContain(last);
      expect(inLockOrder("KES", [...shared, last]).at(-1)).toBe(last);
    });

    const journalsOf = (uid: string) => core.store.state.journals.filter((j) => j.operationUid === uid);
    const credit = (amountMinor: number, clientReference: string) =>
      core.run((tx) =>
        creditWallet(core.deps, ctx(), tx, { walletUid, amountMinor, currency: "KES", clientReference }),
      );

    it("puts a credit back into the prefund; a second reversal answers the same and posts nothing", async () => {
      const prefund = account("tenant:acme:prefund");
      const op = await credit(5_000, "rev-1");
      const reversed = await reverse(op.uid);
      expect(reversed).toMatchObject({ uid: op.uid, state: "reversed", completedAt: op.completedAt });
      expect(reversed.timeline.map((t) => [t.fromState, t.toState, t.actorType])).toEqual([
        [null, "created", "api_client"],
        ["created", "completed", "system"],
        ["completed", "reversed", "admin"],
      ]);
      expect((await balance()).availableMinor).toBe(FUNDED);
      expect(account("tenant:acme:prefund")).toBe(prefund);
      const journals = journalsOf(op.uid);
      expect(journals.map((j) => j.kind)).toEqual(["wallet_credit", "reversal"]);
      expect(journals[1]!.entries).toEqual([
        { accountKey: "tenant:acme:prefund", amountMinor: 5_000, label: "reversal" },
        { accountKey: `wallet:${walletUid}`, amountMinor: -5_000, label: "reversal" },
      ]);
      expect(await reverse(op.uid)).toEqual(reversed);
      expect(journalsOf(op.uid)).toHaveLength(2);
      const receipt = await core.run((tx) => getReceipt(core.deps, ctx(), tx, op.uid));
      expect(receipt).toMatchObject({
        state: "reversed",
        references: { journalUids: journals.map((j) => j.uid) },
      });
      await balanced();
    });

    it("returns a confirmed payout's amount and charges to the wallet; the rail's repeat is still consistent", async () => {
      const op = await payout(request());
      await report(op.uid, "confirmed", "SUB-9");
      expect(account(`rail:${RAIL}:clearing`)).toBe(AMOUNT);
      const reversed = await reverse(op.uid);
      expect(reversed).toMatchObject({
        state: "reversed",
        provider: { state: "reversed", reference: "SUB-9" },
      });
      expect(await balance()).toMatchObject({ availableMinor: FUNDED, heldMinor: 0 });
      for (const key of [`rail:${RAIL}:clearing`, "fees:acme", "tax:acme"]) expect(account(key)).toBe(0);
      // The rail repeating its confirmation changes nothing (a reversal presupposes it).
      expect((await report(op.uid, "confirmed")).state).toBe("reversed");
      expect(journalsOf(op.uid).map((j) => j.kind)).toEqual(["payout_hold", "payout_settle", "reversal"]);
      await balanced();
    });

    it("409 when it would put money back into a closed customer's wallet (stranded there)", async () => {
      const op = await payout(request());
      await report(op.uid, "confirmed");
      // Emptied: the payout's amount and charges credited back, then the first credit taken back.
      await credit(AMOUNT + FEE + TAX, "refill");
      const fund = [...core.store.state.operations.values()].find((o) => o.clientReference === "fund")!;
      await reverse(fund.uid);
      expect(await balance()).toMatchObject({ availableMinor: 0, heldMinor: 0 });
      const setStatus = (status: "closed" | "active") =>
        core.run((tx) => changeCustomerStatus(core.deps, tx, customer.uid, status));
      await setStatus("closed");
      const e = await refusal(reverse(op.uid));
      expect([e.code, e.message]).toEqual([
        "Conflict",
        "The operation's customer is closed: reopen it before reversing the operation",
      ]);
      expect(await balance()).toMatchObject({ availableMinor: 0, heldMinor: 0 });
      // Reopened, the reversal goes through.
      await setStatus("active");
      expect((await reverse(op.uid)).state).toBe("reversed");
      expect((await balance()).availableMinor).toBe(AMOUNT + FEE + TAX);
      await balanced();
    });

    it("422 when it would take a wallet's current balance (available + held) past 2^53 - 1", async () => {
      const first = await payout(request({ clientReference: "max-1" }));
      await report(first.uid, "confirmed");
      await payout(request({ clientReference: "max-2" })); // in flight: AMOUNT held
      // Top the wallet up from the rail's clearing (as top-ups would) so available + held = 2^53 - 1.
      const topUp = Number.MAX_SAFE_INTEGER - AMOUNT - (await balance()).availableMinor;
      await stageFromClearing(topUp);
      expect((await balance()).currentMinor).toBe(Number.MAX_SAFE_INTEGER);
      const e = await refusal(reverse(first.uid));
      expect([e.code, e.message]).toEqual([
        "UnprocessableEntity",
        "The reversal would take the wallet's balance past 2^53 - 1 minor units, the largest amount the ledger holds",
      ]);
      expect(core.store.state.operations.get(first.uid)!.state).toBe("completed");
      expect(journalsOf(first.uid).map((j) => j.kind)).toEqual(["payout_hold", "payout_settle"]);
      expect((await balance()).currentMinor).toBe(Number.MAX_SAFE_INTEGER);
      await balanced();
    });

    it("422 InsufficientFunds when the wallet no longer holds it; 409 before completion; 404 unknown", async () => {
      const spent = await credit(100_000, "rev-spent");
      // 1_000_000 + 15_000 levy + 2_500 fee + 400 VAT out of 1_100_000: 82_100 left.
      const op = await payout(request({ amountMinor: 1_000_000 }));
      const before = { wallet: await balance(), state: core.store.state.operations.get(spent.uid)!.state };
      expect((await refusal(reverse(spent.uid))).code).toBe("InsufficientFunds");
      expect(await balance()).toEqual(before.wallet);
      expect(core.store.state.operations.get(spent.uid)!.state).toBe("completed");
      expect(journalsOf(spent.uid)).toHaveLength(1);

      expect((await refusal(reverse(op.uid))).code).toBe("Conflict"); // processing
      await report(op.uid, "failed");
      expect((await refusal(reverse(op.uid))).code).toBe("Conflict"); // failed
      expect((await refusal(reverse("op_nobody"))).code).toBe("NotFound");
      await balanced();
    });
  });
});
