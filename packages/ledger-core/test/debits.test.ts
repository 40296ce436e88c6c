import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { beforeEach, describe, expect, it } from "vitest";
import type {
  Assertion,
  CreateMandateInput,
  CustomerView,
  DebitWalletInput,
  IdGenerator,
  MandateView,
  Tenant,
} from "../src/index.js";
import {
  createMandate,
  createUlidGenerator,
  debitUnderMandate,
  debitWallet,
  expireDueMandates,
  getOperationDetail,
  getReceipt,
  getTrialBalance,
  getWalletBalance,
  revokeMandate,
  setMandateStatus,
} from "../src/index.js";
import type { MandateWorld } from "./support/mandate-fixtures.js";
import {
  BINDING_CANONICAL,
  bindingHash,
  createMandateWorld,
  refusal,
  sha,
} from "./support/mandate-fixtures.js";

const vectors = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/transaction-binding.json", import.meta.url), "utf8"),
);

/** Fee schedule debit_std in the test catalog: flat 1000, 0.5 % processing, 16 % VAT on the flat fee. */
const chargesOn = (amountMinor: number) => {
  const processing = Math.floor((amountMinor * 50 + 5_000) / 10_000);
  return { feeMinor: 1_000 + processing, taxMinor: 160, processing };
};

describe("POST /wallet-debits", () => {
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

  /** A request with an assertion bound to exactly its own values (hash computed by the test). */
  const request = (overrides: Partial<DebitWalletInput> = {}, assertion: Partial<Assertion> = {}) => {
    const base = {
      walletUid: w.alice.walletUid,
      mandateUid: mandate.uid,
      amountMinor: 200_000,
      currency: "KES",
      clientReference: "db-1",
      ...overrides,
    };
    const customerUid = assertion.customerUid ?? w.alice.uid;
    return {
      ...base,
      assertion: w.assertionFor(customerUid, {
        transactionBinding: {
          hash: bindingHash({ customerUid, ...base, target: base.mandateUid }),
          algorithm: "sha256",
          canonical: BINDING_CANONICAL,
        },
        ...assertion,
      }),
    };
  };
  const debit = (input: DebitWalletInput, tenant?: Tenant) =>
    w.core.run((tx) => debitWallet(w.core.deps, w.core.ctxFor(tenant ?? w.acme), tx, input));
  const balance = (walletUid = w.alice.walletUid) =>
    w.core.run((tx) => getWalletBalance(w.core.deps, w.core.ctxFor(w.acme), tx, walletUid));
  const snapshot = () => ({
    operations: w.core.store.state.operations.size,
    journals: w.core.store.state.journals.length,
    outbox: w.core.store.state.outbox.length,
  });

  beforeEach(async () => {
    w = await createMandateWorld();
    await w.fund(w.alice.walletUid, 1_000_000);
    mandate = await newMandate(w.alice);
  });

  it("debits amount + fee + tax to the beneficiary with charges itemized, at once", async () => {
    const op = await debit(request());
    const { feeMinor, taxMinor, processing } = chargesOn(200_000);
    expect(op).toMatchObject({
      type: "wallet_debit",
      state: "completed",
      amountMinor: 200_000,
      feeMinor,
      taxMinor,
      currency: "KES",
      clientReference: "db-1",
      completedAt: "2026-11-22T10:00:00.000Z",
    });
    expect((await balance()).availableMinor).toBe(1_000_000 - 200_000 - feeMinor - taxMinor);

    const journals = w.core.store.state.journals.filter((j) => j.operationUid === op.uid);
    expect(journals).toHaveLength(1);
    expect(journals[0]!.kind).toBe("wallet_debit");
    const walletKey = `wallet:${w.alice.walletUid}`;
    expect(journals[0]!.entries).toEqual([
      { accountKey: walletKey, amountMinor: -200_000, label: "amount" },
      { accountKey: "beneficiary:POWERCO", amountMinor: 200_000, label: "amount" },
      { accountKey: walletKey, amountMinor: -1_000, label: "Debit fee" },
      { accountKey: "fees:acme", amountMinor: 1_000, label: "Debit fee" },
      { accountKey: walletKey, amountMinor: -processing, label: "Processing" },
      { accountKey: "fees:acme", amountMinor: processing, label: "Processing" },
      { accountKey: walletKey, amountMinor: -160, label: "VAT" },
      { accountKey: "tax:acme", amountMinor: 160, label: "VAT" },
    ]);
    expect(journals[0]!.entries.reduce((s, e) => s + e.amountMinor, 0)).toBe(0);
    expect((await w.core.run((tx) => getTrialBalance(tx))).balanced).toBe(true);

    const stored = w.core.store.state.operations.get(op.uid)!;
    expect(stored).toMatchObject({
      sourceWalletUid: w.alice.walletUid,
      destinationWalletUid: null,
      mandateUid: mandate.uid,
      customerUid: w.alice.uid,
      counterpartyHint: "Power Co",
    });
    const receipt = await w.core.run((tx) => getReceipt(w.core.deps, w.core.ctxFor(w.acme), tx, op.uid));
    expect(receipt).toMatchObject({
      totalDebitedMinor: 200_000 + feeMinor + taxMinor,
      counterparty: { hint: "Power Co" },
      feeBreakdown: [
        { label: "Debit fee", amountMinor: 1_000 },
        { label: "Processing", amountMinor: processing },
        { label: "VAT", amountMinor: 160 },
      ],
    });
    const detail = await w.core.run((tx) =>
      getOperationDetail(w.core.deps, w.core.ctxFor(w.acme), tx, op.uid),
    );
    expect(detail.timeline.map((t) => [t.fromState, t.toState])).toEqual([
      [null, "created"],
      ["created", "completed"],
    ]);

    const events = w.outbox("wallet_debit.completed");
    expect(events).toHaveLength(1);
    expect(events[0]!.envelope.data).toEqual({ operation: op });
    expect(events[0]!.body).not.toContain("Amina");
  });

  it("reads no monthly outbound sum for a level without a monthly limit (it could pass 2^53 - 1)", async () => {
    // The SQL stores refuse to read a sum past 2^53 - 1 (RangeError): a read nothing needs must
    // not be able to turn every debit of a busy wallet into a 500.
    const uow = w.core.store.uow;
    const run = uow.run.bind(uow);
    const reads: string[] = [];
    uow.run = (work) =>
      run((tx) => {
        const operations = Object.create(tx.operations) as typeof tx.operations;
        operations.sumForWallet = async (walletUid, sinceIso, direction) => {
          reads.push(direction);
          if (direction === "outbound") throw new RangeError("exceeds 2^53-1 and cannot be read exactly");
          return tx.operations.sumForWallet(walletUid, sinceIso, direction);
        };
        return work({ ...tx, operations });
      });
    expect((await debit(request())).state).toBe("completed"); // alice: tier_1, monthlyOutLimitMinor null
    expect(reads).toEqual(["both"]);
  });

  it("lists a component that rounds to zero but posts no zero line", async () => {
    const op = await debit(request({ amountMinor: 99 }));
    expect(op.feeMinor).toBe(1_000);
    expect(w.core.store.state.operations.get(op.uid)!.feeBreakdown).toContainEqual({
      label: "Processing",
      amountMinor: 0,
    });
    const entries = w.core.store.state.journals.find((j) => j.operationUid === op.uid)!.entries;
    expect(entries.map((e) => e.label)).not.toContain("Processing");
    expect(entries).toHaveLength(6);
  });

  it("takes the whole available balance when it covers exactly amount + fee + tax", async () => {
    const { feeMinor, taxMinor } = chargesOn(200_000);
    await newWorldWithBalance(200_000 + feeMinor + taxMinor);
    await debit(request());
    expect((await balance()).availableMinor).toBe(0);
    expect((await w.core.run((tx) => getTrialBalance(tx))).balanced).toBe(true);
  });

  it("refuses InsufficientFunds when the fees tip it over, creating and moving nothing", async () => {
    const { feeMinor, taxMinor } = chargesOn(200_000);
    // 1 minor unit short of amount + fee + tax, though the amount alone is covered.
    await newWorldWithBalance(200_000 + feeMinor + taxMinor - 1);
    const before = snapshot();
    const e = await refusal(debit(request()));
    expect(e.code).toBe("InsufficientFunds");
    expect(snapshot()).toEqual(before);
    expect((await balance()).availableMinor).toBe(200_000 + feeMinor + taxMinor - 1);
  });

  async function newWorldWithBalance(amountMinor: number) {
    w = await createMandateWorld();
    await w.fund(w.alice.walletUid, amountMinor);
    mandate = await newMandate(w.alice);
  }

  it("does not enforce the mandate's frequency", async () => {
    const daily = await newMandate(w.alice, { clientReference: "d", frequency: "daily" });
    await debit(request({ mandateUid: daily.uid, amountMinor: 1_000, clientReference: "d1" }));
    await debit(request({ mandateUid: daily.uid, amountMinor: 1_000, clientReference: "d2" }));
  });

  it("debits under a pending mandate whose validFrom has passed before the job ran", async () => {
    const pending = await newMandate(w.alice, {
      clientReference: "p",
      validFrom: "2026-11-22T10:00:01.000Z",
    });
    expect(pending.status).toBe("pending");
    expect(await refusal(debit(request({ mandateUid: pending.uid })))).toMatchObject({
      code: "UnprocessableEntity",
    });
    w.clock.advanceMs(1_000);
    expect((await debit(request({ mandateUid: pending.uid }))).state).toBe("completed");
  });

  it("accepts a single factor without a binding at or below the two-factor threshold", async () => {
    const op = await debit(
      request(
        { amountMinor: 100_000 },
        { assuranceLevel: "single_factor", factor2Type: undefined, transactionBinding: undefined },
      ),
    );
    expect(op.state).toBe("completed");
  });

  it("validates the assertion on every call (a reused live sourceReference of the customer is audited)", async () => {
    await debit(request({ clientReference: "s1" }, { sourceReference: "login-1" }));
    await debit(request({ clientReference: "s2" }, { sourceReference: "login-1" }));
    expect(w.core.store.state.audit.map((a) => a.action)).toContain("assertion.source_reference_reused");
    const e = await refusal(
      debit(
        request(
          { clientReference: "s3" },
          { authenticatedAt: "2026-11-22T09:50:00.000Z", expiresAt: "2026-11-22T09:59:59.999Z" },
        ),
      ),
    );
    expect(e.code).toBe("AuthorizationInsufficient");
  });

  describe("the mandate's guards", () => {
    it("refuses (422) a debit of another wallet of the customer under the mandate of the first", async () => {
      // A customer may hold several wallets; a consent given for one does not debit another.
      const main = (await w.core.run((tx) => tx.wallets.get("acme", w.alice.walletUid)))!;
      const savingsUid = "wal_savings_of_alice";
      await w.core.run((tx) => tx.wallets.insert({ ...main, uid: savingsUid, purpose: "savings" }));
      await w.fund(savingsUid, 500_000);
      const e = await refusal(
        debit(request({ walletUid: savingsUid, amountMinor: 50_000, clientReference: "other" })),
      );
      expect([e.code, e.details?.[0]?.field]).toEqual(["UnprocessableEntity", "mandateUid"]);
    });

    it("refuses a revoked mandate before it looks at the currency", async () => {
      await w.core.run(async (tx) => {
        const m = (await tx.mandates.get("acme", mandate.uid))!;
        await tx.mandates.update({ ...m, status: "revoked" });
      });
      const e = await refusal(debit(request({ currency: "USD", clientReference: "revoked-usd" })));
      expect(e.code).toBe("UnprocessableEntity");
    });

    it("refuses a one_time mandate's standing debit in a later month after a debit with an assertion", async () => {
      // Its period is all time: a debit through POST /wallet-debits does not complete the mandate.
      const once = await newMandate(w.alice, { frequency: "one_time", clientReference: "once" });
      const first = await debit(
        request({ mandateUid: once.uid, amountMinor: 50_000, clientReference: "once-1" }),
      );
      expect(first.state).toBe("completed");
      w.clock.set("2026-12-02T10:00:00.000Z");
      const e = await refusal(
        w.core.run((tx) =>
          debitUnderMandate(w.core.deps, w.core.ctxFor(w.acme), tx, once.uid, {
            walletUid: w.alice.walletUid,
            amountMinor: 50_000,
            currency: "KES",
            clientReference: "once-2",
          }),
        ),
      );
      expect(e.code).toBe("MandateFrequencyExceeded");
    });
  });

  it("fails with its posting: an embedder's debit is not answered before its journal is written", async () => {
    const e = await refusal(
      w.core.store.uow.run((tx) =>
        debitWallet(
          w.core.deps,
          w.core.ctxFor(w.acme),
          {
            ...tx,
            ledger: {
              ...tx.ledger,
              post: async () => {
                throw new Error("store down");
              },
            },
          },
          request({ clientReference: "post-fails" }),
        ),
      ),
    );
    expect((e as Error).message).toBe("store down");
  });

  describe("refusals create nothing", () => {
    type Case = [string, (t: { w: MandateWorld }) => Promise<DebitWalletInput> | DebitWalletInput, string];
    const cases: Case[] = [
      ["a wallet of another tenant", ({ w }) => request({ walletUid: w.olga.walletUid }), "NotFound"],
      ["an unknown wallet", () => request({ walletUid: "wal_nope" }), "NotFound"],
      ["an unknown mandate", () => request({ mandateUid: "man_nope" }), "NotFound"],
      [
        "another tenant's mandate",
        async ({ w }) => {
          const olgas = await newMandate(w.olga, {}, w.other);
          return request({ mandateUid: olgas.uid });
        },
        "NotFound",
      ],
      [
        "a mandate of another customer",
        async ({ w }) => {
          const bobs = await newMandate(w.bob);
          return request({ mandateUid: bobs.uid });
        },
        "UnprocessableEntity",
      ],
      [
        "a pending mandate",
        async () =>
          request({ mandateUid: (await newMandate(w.alice, { validFrom: "2027-01-01T00:00:00.000Z" })).uid }),
        "UnprocessableEntity",
      ],
      [
        "a suspended mandate",
        async ({ w }) => {
          await w.core.run((tx) => setMandateStatus(w.core.deps, tx, mandate.uid, "suspended"));
          return request();
        },
        "UnprocessableEntity",
      ],
      [
        "a revoked mandate",
        async ({ w }) => {
          await w.core.run((tx) =>
            revokeMandate(w.core.deps, w.core.ctxFor(w.acme), tx, mandate.uid, { reason: "x" }),
          );
          return request();
        },
        "UnprocessableEntity",
      ],
      [
        "a mandate past validTo the expiry job has not reached yet",
        async ({ w }) => {
          const m = await newMandate(w.alice, { validTo: "2026-11-22T10:00:00.001Z" });
          w.clock.advanceMs(1);
          return request({ mandateUid: m.uid });
        },
        "UnprocessableEntity",
      ],
      [
        "an expired mandate",
        async ({ w }) => {
          const m = await newMandate(w.alice, { validTo: "2026-11-22T10:00:00.001Z" });
          w.clock.advanceMs(1);
          await w.core.run((tx) => expireDueMandates(w.core.deps, tx, "2026-11-22T10:00:00.001Z", 10));
          return request({ mandateUid: m.uid });
        },
        "UnprocessableEntity",
      ],
      ["another currency", () => request({ currency: "USD" }), "CurrencyMismatch"],
      ["an amount above the up_to maximum", () => request({ amountMinor: 500_001 }), "UnprocessableEntity"],
      [
        "an amount other than the fixed one",
        async ({ w }) => {
          const fixed = await newMandate(w.alice, { amountRule: "fixed", fixedOrMaxAmountMinor: 150_000 });
          return request({ mandateUid: fixed.uid, amountMinor: 149_999 });
        },
        "UnprocessableEntity",
      ],
      [
        "a beneficiary that stopped collecting",
        ({ w }) => {
          w.core.deps.catalog = {
            ...w.core.deps.catalog,
            beneficiaries: w.core.deps.catalog.beneficiaries.map((b) => ({ ...b, canCollect: false })),
          };
          return request();
        },
        "UnprocessableEntity",
      ],
      [
        "an expired assertion",
        () =>
          request({}, { authenticatedAt: "2026-11-22T09:55:00.000Z", expiresAt: "2026-11-22T10:00:00.000Z" }),
        "AuthorizationInsufficient",
      ],
      [
        "an assertion living over 10 minutes",
        () =>
          request({}, { authenticatedAt: "2026-11-22T09:54:59.999Z", expiresAt: "2026-11-22T10:05:00.000Z" }),
        "AuthorizationInsufficient",
      ],
      [
        "a single factor above the two-factor threshold",
        () => request({}, { assuranceLevel: "single_factor", factor2Type: undefined }),
        "AuthorizationInsufficient",
      ],
      [
        "a binding of another amount",
        () => {
          const r = request();
          return { ...r, amountMinor: 200_001 };
        },
        "AssertionNotBoundToTransaction",
      ],
      [
        "a binding of another clientReference",
        () => ({ ...request(), clientReference: "db-2" }),
        "AssertionNotBoundToTransaction",
      ],
      [
        "a binding naming another target",
        ({ w }) => {
          const r = request();
          const hash = bindingHash({ customerUid: w.alice.uid, ...r, target: "" });
          return {
            ...r,
            assertion: {
              ...r.assertion,
              transactionBinding: { hash, algorithm: "sha256", canonical: BINDING_CANONICAL },
            },
          };
        },
        "AssertionNotBoundToTransaction",
      ],
      [
        "no binding above the threshold",
        () => request({}, { transactionBinding: undefined }),
        "AssertionNotBoundToTransaction",
      ],
      [
        "an assertion of another customer",
        ({ w }) => request({}, { customerUid: w.bob.uid }),
        "UnprocessableEntity",
      ],
      [
        "an identifier that is not the customer's",
        () => request({}, { identifierUid: "idn_nope" }),
        "UnprocessableEntity",
      ],
      [
        "a sourceReference live for another customer",
        async ({ w }) => {
          await newMandate(w.bob, { assertion: w.assertionFor(w.bob.uid, { sourceReference: "taken" }) });
          return request({}, { sourceReference: "taken" });
        },
        "UnprocessableEntity",
      ],
      [
        "a debit_blocked wallet",
        async ({ w }) => {
          await w.core.run((tx) => tx.wallets.setStatus("acme", w.alice.walletUid, "debit_blocked"));
          return request();
        },
        "WalletNotActive",
      ],
      [
        "a restricted customer",
        async ({ w }) => {
          await w.core.run((tx) => tx.customers.setStatus("acme", w.alice.uid, "restricted"));
          return request();
        },
        "CustomerNotActive",
      ],
    ];
    it.each(cases)("refuses %s", async (_name, make, code) => {
      const input = await make({ w });
      const before = snapshot();
      const walletBefore = (await balance()).availableMinor;
      const e = await refusal(debit(input));
      expect(e.code).toBe(code);
      expect(snapshot()).toEqual(before);
      expect((await balance()).availableMinor).toBe(walletBefore);
    });
  });

  it("refuses a clientReference already used by another debit (409), but not one used by a credit", async () => {
    await debit(request());
    const e = await refusal(debit(request({ amountMinor: 1_000 })));
    expect(e.code).toBe("Conflict");
    await debit(request({ clientReference: "fund-1", amountMinor: 1_000 }));
  });

  it("refuses a single debit above the KYC level's single transaction limit", async () => {
    const big = await newMandate(w.alice, { clientReference: "big", fixedOrMaxAmountMinor: 9_000_000 });
    await w.fund(w.alice.walletUid, 7_000_000);
    const e = await refusal(debit(request({ mandateUid: big.uid, amountMinor: 7_000_001 })));
    expect(e.code).toBe("LimitExceeded");
  });
});

describe("transaction binding vectors", () => {
  const vector = vectors.cases.find((c: { route: string }) => c.route === "POST /wallet-debits");

  it("the vector's hash is the SHA-256 of its canonical string", () => {
    expect(sha(vector.canonical)).toBe(vector.hash);
    expect(
      bindingHash({
        customerUid: vector.customerUid,
        walletUid: vector.walletUid,
        amountMinor: vector.amountMinor,
        currency: vector.currency,
        target: vector.target,
        clientReference: vector.clientReference,
      }),
    ).toBe(vector.hash);
  });

  /** Ids the vector names: the first customer, wallet and mandate get them; the rest are ULIDs. */
  const vectorIds = (): IdGenerator => {
    const fallback = createUlidGenerator(
      { now: () => new Date("2026-11-22T10:00:00.000Z") },
      { bytes: (n) => randomBytes(n) },
    );
    const fixed = new Map<string, string>([
      ["customer", vector.customerUid],
      ["wallet", vector.walletUid],
      ["mandate", vector.target],
    ]);
    return {
      next(kind) {
        const id = fixed.get(kind);
        fixed.delete(kind);
        return id ?? fallback.next(kind);
      },
    };
  };

  it("a debit quoting the vector's hash is accepted for exactly the vector's request", async () => {
    const w = await createMandateWorld({ ids: vectorIds() });
    expect([w.alice.uid, w.alice.walletUid]).toEqual([vector.customerUid, vector.walletUid]);
    await w.fund(w.alice.walletUid, 2_000_000);
    const mandate = await w.core.run((tx) =>
      createMandate(
        w.core.deps,
        w.core.ctxFor(w.acme),
        tx,
        w.mandateInput(w.alice, { fixedOrMaxAmountMinor: 1_000_000 }),
      ),
    );
    expect(mandate.uid).toBe(vector.target);
    const input = (overrides: Partial<DebitWalletInput> = {}): DebitWalletInput => ({
      walletUid: vector.walletUid,
      mandateUid: vector.target,
      amountMinor: vector.amountMinor,
      currency: vector.currency,
      clientReference: vector.clientReference,
      assertion: w.assertionFor(vector.customerUid, {
        transactionBinding: { hash: vector.hash, algorithm: "sha256", canonical: BINDING_CANONICAL },
      }),
      ...overrides,
    });
    const debit = (i: DebitWalletInput) =>
      w.core.run((tx) => debitWallet(w.core.deps, w.core.ctxFor(w.acme), tx, i));
    // The same hash for any other value is refused.
    expect((await refusal(debit(input({ amountMinor: vector.amountMinor - 1 })))).code).toBe(
      "AssertionNotBoundToTransaction",
    );
    expect((await refusal(debit(input({ clientReference: "db-10" })))).code).toBe(
      "AssertionNotBoundToTransaction",
    );
    const op = await debit(input());
    expect(op).toMatchObject({
      state: "completed",
      amountMinor: vector.amountMinor,
      clientReference: "db-1",
    });
  });
});
