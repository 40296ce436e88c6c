import fc from "fast-check";
import { expect } from "vitest";
import type { ErrorCode } from "../../src/index.js";
import {
  changeCustomerStatus,
  changeWalletStatus,
  decideKycVersion,
  expireTopups,
  fundPrefund,
  isDomainError,
  receiveRailPayment,
  reportPayoutResult,
  resolveSuspense,
  reverseOperation,
  setMandateStatus,
} from "../../src/index.js";
import { checkInvariants } from "./invariants.js";
import {
  accounts,
  addOp,
  amountRuleHolds,
  available,
  balanceOf,
  type CustomerStatus,
  chargesOf,
  clientReferenceUsed,
  customerOf,
  type Frequency,
  levelOf,
  type MCustomer,
  type MMandate,
  type MOp,
  type Model,
  type MSuspense,
  mandateDebitable,
  mandateDebitsSince,
  mandateStatusNow,
  movementRefusal,
  nextSeq,
  periodStart,
  post,
  postFor,
  type WalletStatus,
} from "./oracle.js";
import {
  assertionFor,
  mandateAgreement,
  type Outcome,
  onboardingBody,
  type RouteName,
  refusalStatus,
  send,
} from "./requests.js";
import { CURRENCY, RAIL, type Real, TENANT_ID } from "./world.js";

type Cmd = fc.AsyncCommand<Model, Real>;
// biome-ignore lint/suspicious/noExplicitAny: views are parsed JSON, checked field by field
type View = any;

/** Every command moves the clock one second first, so the model knows the exact instant of each rule. */
function tick(m: Model, r: Real): void {
  m.nowMs += 1_000;
  r.clock.advanceMs(1_000);
}

const pick = <T>(list: readonly T[], i: number): T => {
  const item = list[i % list.length];
  if (item === undefined) throw new Error("pick from an empty list");
  return item;
};

const describeOutcome = (o: Outcome) =>
  o.kind === "refused" ? `refused ${o.code}` : `${o.status} ${o.replayed ? "(replayed) " : ""}${o.body}`;

/** How often each expected answer came up, by command: printed by the tests to show what was covered. */
export const outcomeTally = new Map<string, number>();
const count = (what: string) => outcomeTally.set(what, (outcomeTally.get(what) ?? 0) + 1);

/** The first answer to a request: 2xx with the view, or the stored refusal with its code. */
function expectOutcome(o: Sent, expected: ErrorCode | "ok"): View {
  count(`${o.route}:${expected}`);
  if (expected === "ok") {
    expect(
      o.kind === "answer" && o.status < 300 && !o.replayed,
      `expected success, got ${describeOutcome(o)}`,
    ).toBe(true);
    return o.kind === "answer" ? JSON.parse(o.body) : null;
  }
  const status = refusalStatus(expected);
  if (status === 400) {
    expect(describeOutcome(o)).toBe(`refused ${expected}`);
    return null;
  }
  expect(
    o.kind === "answer" && o.status === status && !o.replayed && JSON.parse(o.body).error === expected,
    `expected ${expected}, got ${describeOutcome(o)}`,
  ).toBe(true);
  return null;
}

type Sent = Outcome & { route: RouteName };

/** Sends a fresh write and records it for later replays. */
async function write(m: Model, r: Real, route: RouteName, body: unknown): Promise<Sent> {
  const key = `key-${nextSeq(m)}`;
  const text = JSON.stringify(body);
  const outcome = await send(r, route, key, text);
  if (outcome.kind === "answer") {
    m.sent.push({ route, key, body: text, response: { status: outcome.status, body: outcome.body } });
  }
  return { ...outcome, route };
}

/** An operator call (no Idempotency-Key): the value, or the refusal's code. */
async function operator<T>(
  r: Real,
  work: Parameters<Real["uow"]["run"]>[0],
): Promise<T | { refused: ErrorCode }> {
  try {
    return (await r.uow.run(work)) as T;
  } catch (e) {
    if (isDomainError(e)) return { refused: e.code };
    throw e;
  }
}

const refusedWith = (v: unknown): ErrorCode | null =>
  typeof v === "object" && v !== null && "refused" in v ? (v as { refused: ErrorCode }).refused : null;

/** A clientReference: fresh, or (when `reuse`) one an earlier operation of the type already holds. */
function clientReference(m: Model, type: MOp["type"], reuse: number | null): string {
  const used = [...m.ops.values()].flatMap((o) =>
    o.type === type && o.clientReference !== null ? [o.clientReference] : [],
  );
  return reuse !== null && used.length > 0 ? pick(used, reuse) : `ref-${nextSeq(m)}`;
}

abstract class Base implements Cmd {
  abstract check(m: Readonly<Model>): boolean;
  abstract act(m: Model, r: Real): Promise<void>;
  async run(m: Model, r: Real): Promise<void> {
    tick(m, r);
    await this.act(m, r);
    await checkInvariants(m, r);
  }
  abstract toString(): string;
}

const hasCustomers = (m: Readonly<Model>) => m.customers.length > 0;

// --- Customers and KYC ---

class Onboard extends Base {
  constructor(
    readonly tier: "tier_1" | "tier_2",
    readonly prohibited: boolean,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => m.customers.length < 5;
  async act(m: Model, r: Real) {
    const msisdn = `+2547${String(nextSeq(m)).padStart(8, "0")}`;
    const o = await write(
      m,
      r,
      "onboard",
      onboardingBody(msisdn, this.tier, this.prohibited ? "prohibited" : "low"),
    );
    const view = expectOutcome(o, this.prohibited ? "UnprocessableEntity" : "ok");
    if (!view) return;
    const msisdnUid = view.identifiers.find((i: { type: string }) => i.type === "msisdn")?.uid;
    expect(view.kycTierCode).toBe(this.tier);
    m.customers.push({
      uid: view.uid,
      walletUid: view.walletUid,
      msisdnUid,
      status: "active",
      walletStatus: "active",
      tier: this.tier,
      pendingKyc: null,
    });
  }
  toString = () => `Onboard(${this.tier}${this.prohibited ? ", prohibited" : ""})`;
}

/** A new approved level: wallets follow it; one holding more than the new maximum is credit_blocked. */
function approveLevel(c: MCustomer, m: Model, tier: string) {
  c.tier = tier;
  const current = balanceOf(m, accounts.wallet(c.walletUid)) + balanceOf(m, accounts.hold(c.walletUid));
  if (current > levelOf(tier).maxBalanceMinor && c.walletStatus === "active")
    c.walletStatus = "credit_blocked";
}

class SubmitKyc extends Base {
  constructor(
    readonly c: number,
    readonly tier: "tier_1" | "tier_2",
    readonly reviewType: "upgrade" | "downgrade" | "periodic_review",
    readonly prohibited: boolean,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const c = pick(m.customers, this.c);
    const o = await write(m, r, "kyc", {
      customerUid: c.uid,
      input: {
        tierCode: this.tier,
        reviewType: this.reviewType,
        verificationSource: "model",
        sourceReference: `kyc-${nextSeq(m)}`,
        evidence: { check: "passed" },
        riskRating: this.prohibited ? "prohibited" : "low",
      },
    });
    const moves =
      this.reviewType === "periodic_review" ||
      (this.reviewType === "upgrade"
        ? levelOf(this.tier).maxBalanceMinor > levelOf(c.tier).maxBalanceMinor
        : levelOf(this.tier).maxBalanceMinor < levelOf(c.tier).maxBalanceMinor);
    const expected: ErrorCode | "ok" = c.pendingKyc ? "Conflict" : moves ? "ok" : "UnprocessableEntity";
    const view = expectOutcome(o, expected);
    if (!view) return;
    const autoApproved = this.reviewType !== "periodic_review" && this.tier === "tier_1" && !this.prohibited;
    expect(view.state).toBe(autoApproved ? "approved" : "pending");
    if (autoApproved) approveLevel(c, m, this.tier);
    else c.pendingKyc = { uid: view.uid, tier: this.tier };
  }
  toString = () =>
    `SubmitKyc(c${this.c}, ${this.tier}, ${this.reviewType}${this.prohibited ? ", prohibited" : ""})`;
}

class DecideKyc extends Base {
  constructor(
    readonly c: number,
    readonly approve: boolean,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => m.customers.some((c) => c.pendingKyc !== null);
  async act(m: Model, r: Real) {
    const c = pick(
      m.customers.filter((x) => x.pendingKyc !== null),
      this.c,
    );
    const pending = c.pendingKyc;
    if (!pending) throw new Error("unreachable");
    const decided = await operator<{ state: string }>(r, (tx) =>
      decideKycVersion(
        r.deps,
        tx,
        pending.uid,
        this.approve ? "approved" : "rejected",
        this.approve ? null : "no",
      ),
    );
    expect(refusedWith(decided)).toBeNull();
    expect((decided as { state: string }).state).toBe(this.approve ? "approved" : "rejected");
    c.pendingKyc = null;
    if (this.approve) approveLevel(c, m, pending.tier);
  }
  toString = () => `DecideKyc(c${this.c}, ${this.approve ? "approve" : "reject"})`;
}

/**
 * The customer at `i`; with `onIntent`, one whose status change may hold or release an intent:
 * releasing (`blocked` given), the customer of a held intent that `blocked` says is blocked, else
 * (or blocking) the customer of an intent still waiting for its payment, when there is one.
 */
function statusTarget(
  m: Readonly<Model>,
  i: number,
  onIntent: boolean,
  blocked?: (c: MCustomer) => boolean,
): MCustomer {
  if (onIntent) {
    const customersOf = (state: string) =>
      intentsOf(m)
        .filter((o) => o.state === state)
        .map((o) => customerOf(m, o.walletUid));
    const held = blocked ? customersOf("held").filter(blocked) : [];
    const candidates = held.length > 0 ? held : customersOf("pending_provider");
    if (candidates.length > 0) return pick(candidates, i);
  }
  return pick(m.customers, i);
}

class SetCustomerStatus extends Base {
  constructor(
    readonly c: number,
    readonly status: CustomerStatus,
    readonly onIntent = false,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const releasing = this.status === "active" ? (x: MCustomer) => x.status !== "active" : undefined;
    const c = statusTarget(m, this.c, this.onIntent, releasing);
    const result = await operator(r, (tx) => changeCustomerStatus(r.deps, tx, c.uid, this.status));
    expect(refusedWith(result)).toBeNull();
    c.status = this.status;
  }
  toString = () => `SetCustomerStatus(${this.onIntent ? "intent " : "c"}${this.c}, ${this.status})`;
}

class SetWalletStatus extends Base {
  constructor(
    readonly c: number,
    readonly status: WalletStatus,
    readonly onIntent = false,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const releasing = this.status === "active" ? (x: MCustomer) => x.walletStatus !== "active" : undefined;
    const c = statusTarget(m, this.c, this.onIntent, releasing);
    const result = await operator(r, (tx) => changeWalletStatus(r.deps, tx, c.walletUid, this.status));
    // Closing needs an empty wallet: nothing in it, nothing held for a payout.
    const holdsFunds =
      balanceOf(m, accounts.wallet(c.walletUid)) !== 0 || balanceOf(m, accounts.hold(c.walletUid)) !== 0;
    const refused = this.status === "closed" && c.walletStatus !== "closed" && holdsFunds;
    expect(refusedWith(result)).toBe(refused ? "Conflict" : null);
    if (!refused) c.walletStatus = this.status;
  }
  toString = () => `SetWalletStatus(${this.onIntent ? "intent " : "c"}${this.c}, ${this.status})`;
}

// --- Prefund and credits ---

class Fund extends Base {
  constructor(readonly amount: number) {
    super();
  }
  check = () => true;
  async act(m: Model, r: Real) {
    const view = await r.uow.run((tx) =>
      fundPrefund(r.deps, tx, { tenantId: r.ctx.tenant.id, amountMinor: this.amount, currency: CURRENCY }),
    );
    post(m, [[accounts.deposits, accounts.prefund, this.amount]]);
    expect(view.balanceMinor).toBe(balanceOf(m, accounts.prefund));
  }
  toString = () => `Fund(${this.amount})`;
}

/** A credit as sent: what the model needs to predict its answer and apply it. */
interface CreditRequest {
  c: MCustomer;
  amount: number;
  currency: string;
  ref: string;
}

const creditBody = (q: CreditRequest) => ({
  walletUid: q.c.walletUid,
  amountMinor: q.amount,
  currency: q.currency,
  clientReference: q.ref,
});

/**
 * DESIGN order: 409 clientReference, 422 currency, charges above the amount, status, KYC limits,
 * then the prefund; the wallet pays the credit's charges out of what it receives, so they may not
 * exceed it (a credit never lowers the wallet).
 */
const feeAndTax = (type: Parameters<typeof chargesOf>[0], amount: number) => {
  const ch = chargesOf(type, amount);
  return ch.fee + ch.tax;
};

function expectCredit(m: Model, q: CreditRequest): ErrorCode | "ok" {
  const ch = chargesOf("wallet_credit", q.amount);
  return clientReferenceUsed(m, "wallet_credit", q.ref)
    ? "Conflict"
    : q.currency !== CURRENCY
      ? "CurrencyMismatch"
      : ch.fee + ch.tax > q.amount
        ? "UnprocessableEntity"
        : (movementRefusal(m, q.c, "inbound", q.amount, ch.fee + ch.tax) ??
          (balanceOf(m, accounts.prefund) < q.amount ? "FundingNotPositioned" : "ok"));
}

function applyCredit(m: Model, q: CreditRequest, view: View): void {
  const ch = chargesOf("wallet_credit", q.amount);
  expect([view.state, view.feeMinor, view.taxMinor]).toEqual(["completed", ch.fee, ch.tax]);
  const op = addOp(m, {
    uid: view.uid,
    type: "wallet_credit",
    state: "completed",
    amount: q.amount,
    walletUid: q.c.walletUid,
    moved: true,
    clientReference: q.ref,
    mandateUid: null,
  });
  const w = accounts.wallet(q.c.walletUid);
  postFor(m, op, [
    [accounts.prefund, w, q.amount],
    [w, accounts.fees, ch.fee],
    [w, accounts.tax, ch.tax],
  ]);
}

class Credit extends Base {
  constructor(
    readonly c: number,
    readonly amount: number,
    readonly reuseRef: number | null,
    readonly wrongCurrency: boolean,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const q: CreditRequest = {
      c: pick(m.customers, this.c),
      amount: this.amount,
      currency: this.wrongCurrency ? "USD" : CURRENCY,
      ref: clientReference(m, "wallet_credit", this.reuseRef),
    };
    const o = await write(m, r, "credit", creditBody(q));
    const view = expectOutcome(o, expectCredit(m, q));
    if (view) applyCredit(m, q, view);
  }
  toString = () =>
    `Credit(c${this.c}, ${this.amount}${this.reuseRef !== null ? `, reuseRef ${this.reuseRef}` : ""}${this.wrongCurrency ? ", USD" : ""})`;
}

// --- Mandates and debits ---

class CreateMandate extends Base {
  constructor(
    readonly c: number,
    readonly amountRule: "fixed" | "up_to",
    readonly amount: number,
    readonly frequency: Frequency,
    readonly startsInHours: number,
    readonly endsInHours: number | null,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => hasCustomers(m) && m.mandates.length < 6;
  async act(m: Model, r: Real) {
    const c = pick(m.customers, this.c);
    const validFromMs = m.nowMs + this.startsInHours * 3_600_000;
    const validToMs = this.endsInHours === null ? null : m.nowMs + this.endsInHours * 3_600_000;
    const o = await write(m, r, "mandate", {
      customerUid: c.uid,
      walletUid: c.walletUid,
      beneficiaryEntityCode: "POWERCO",
      clientReference: `mandate-${nextSeq(m)}`,
      amountRule: this.amountRule,
      fixedOrMaxAmountMinor: this.amount,
      frequency: this.frequency,
      currency: CURRENCY,
      validFrom: new Date(validFromMs).toISOString(),
      validTo: validToMs === null ? null : new Date(validToMs).toISOString(),
      agreement: mandateAgreement,
      assertion: assertionFor(r, `sess-${nextSeq(m)}`, c.uid),
    });
    // No standing consent for a customer whose life with the tenant ended, nor on a closed wallet.
    const refusal =
      c.status === "closed" || c.status === "deceased"
        ? "CustomerNotActive"
        : c.walletStatus === "closed"
          ? "WalletNotActive"
          : "ok";
    const view = expectOutcome(o, refusal);
    if (!view) return;
    const status = validFromMs <= m.nowMs ? "active" : "pending";
    expect(view.status).toBe(status);
    m.mandates.push({
      uid: view.uid,
      customerUid: c.uid,
      walletUid: c.walletUid,
      amountRule: this.amountRule,
      amount: this.amount,
      frequency: this.frequency,
      status,
      validFromMs,
      validToMs,
    });
  }
  toString = () =>
    `CreateMandate(c${this.c}, ${this.amountRule} ${this.amount}, ${this.frequency}, from +${this.startsInHours}h, to ${this.endsInHours === null ? "none" : `+${this.endsInHours}h`})`;
}

const hasMandates = (m: Readonly<Model>) => m.mandates.length > 0;
const terminal = (m: Readonly<Model>, md: MMandate) =>
  ["revoked", "completed", "expired"].includes(mandateStatusNow(m, md));

class RevokeMandate extends Base {
  constructor(readonly k: number) {
    super();
  }
  check = hasMandates;
  async act(m: Model, r: Real) {
    const md = pick(m.mandates, this.k);
    const o = await write(m, r, "revoke", { mandateUid: md.uid, reason: "customer asked" });
    const view = expectOutcome(o, terminal(m, md) ? "Conflict" : "ok");
    if (!view) return;
    expect(view.status).toBe("revoked");
    md.status = "revoked";
  }
  toString = () => `RevokeMandate(m${this.k})`;
}

class SetMandateStatus extends Base {
  constructor(
    readonly k: number,
    readonly status: "suspended" | "active",
  ) {
    super();
  }
  check = hasMandates;
  async act(m: Model, r: Real) {
    const md = pick(m.mandates, this.k);
    const result = await operator(r, (tx) => setMandateStatus(r.deps, tx, md.uid, this.status));
    const now = mandateStatusNow(m, md);
    const allowed = this.status === "suspended" ? now === "active" || now === "pending" : now === "suspended";
    expect(refusedWith(result)).toBe(allowed ? null : "Conflict");
    // Resumed before validFrom, a mandate is pending again.
    if (allowed) md.status = this.status === "active" && md.validFromMs > m.nowMs ? "pending" : this.status;
  }
  toString = () => `SetMandateStatus(m${this.k}, ${this.status})`;
}

/** What a completed wallet_debit posts: the amount to the beneficiary, the charges to fees and tax. */
function postDebit(m: Model, op: MOp, walletUid: string, amount: number) {
  const ch = chargesOf("wallet_debit", amount);
  postFor(m, op, [
    [accounts.wallet(walletUid), accounts.beneficiary, amount],
    [accounts.wallet(walletUid), accounts.fees, ch.fee],
    [accounts.wallet(walletUid), accounts.tax, ch.tax],
  ]);
}

const debitTotal = (amount: number) => {
  const ch = chargesOf("wallet_debit", amount);
  return amount + ch.fee + ch.tax;
};

/** POST /wallet-debits: the customer authenticates (assertion bound to the mandate); all or nothing. */
class DebitWithAssertion extends Base {
  constructor(
    readonly k: number,
    /** Debit another customer's wallet under this mandate (refused). */
    readonly otherWallet: boolean,
    /** null: the mandate's own amount. */
    readonly amount: number | null,
    readonly reuseRef: number | null,
  ) {
    super();
  }
  check = hasMandates;
  async act(m: Model, r: Real) {
    const md = pick(m.mandates, this.k);
    const other = m.customers.find((x) => x.walletUid !== md.walletUid);
    const c = this.otherWallet && other ? other : customerOf(m, md.walletUid);
    const amount = this.amount ?? md.amount;
    const ref = clientReference(m, "wallet_debit", this.reuseRef);
    const o = await write(m, r, "debit", {
      walletUid: c.walletUid,
      mandateUid: md.uid,
      amountMinor: amount,
      currency: CURRENCY,
      clientReference: ref,
      assertion: assertionFor(r, `sess-${nextSeq(m)}`, c.uid, {
        walletUid: c.walletUid,
        amountMinor: amount,
        target: md.uid,
        clientReference: ref,
      }),
    });
    const expected: ErrorCode | "ok" = clientReferenceUsed(m, "wallet_debit", ref)
      ? "Conflict"
      : md.walletUid !== c.walletUid || !mandateDebitable(m, md) || !amountRuleHolds(md, amount)
        ? "UnprocessableEntity"
        : (movementRefusal(m, c, "outbound", amount) ??
          (available(m, c.walletUid) < debitTotal(amount) ? "InsufficientFunds" : "ok"));
    const view = expectOutcome(o, expected);
    if (!view) return;
    expect(view.state).toBe("completed");
    const op = addOp(m, {
      uid: view.uid,
      type: "wallet_debit",
      state: "completed",
      amount,
      walletUid: c.walletUid,
      moved: true,
      clientReference: ref,
      mandateUid: md.uid,
    });
    postDebit(m, op, c.walletUid, amount);
  }
  toString = () =>
    `DebitWithAssertion(m${this.k}, ${this.amount ?? "mandate amount"}${this.otherWallet ? ", other wallet" : ""}${this.reuseRef !== null ? `, reuseRef ${this.reuseRef}` : ""})`;
}

/** POST /mandates/{uid}/debits: the standing mandate alone; unfunded, the operation is created failed. */
class DebitUnderMandate extends Base {
  constructor(
    readonly k: number,
    /** null: the mandate's own amount. */
    readonly amount: number | null,
    readonly otherWallet: boolean,
    readonly reuseRef: number | null,
  ) {
    super();
  }
  check = hasMandates;
  async act(m: Model, r: Real) {
    const md = pick(m.mandates, this.k);
    const amount = this.amount ?? md.amount;
    const other = m.customers.find((x) => x.walletUid !== md.walletUid);
    const walletUid = this.otherWallet && other ? other.walletUid : md.walletUid;
    const ref = clientReference(m, "wallet_debit", this.reuseRef);
    const o = await write(m, r, "mandateDebit", {
      mandateUid: md.uid,
      input: { walletUid, amountMinor: amount, currency: CURRENCY, clientReference: ref },
    });
    const c = customerOf(m, md.walletUid);
    const since = periodStart(md.frequency, m.nowMs);
    const expected: ErrorCode | "ok" =
      walletUid !== md.walletUid
        ? "UnprocessableEntity"
        : clientReferenceUsed(m, "wallet_debit", ref)
          ? "Conflict"
          : md.frequency === "one_time" && md.status === "completed"
            ? "MandateFrequencyExceeded"
            : !mandateDebitable(m, md) || !amountRuleHolds(md, amount)
              ? "UnprocessableEntity"
              : since !== null && mandateDebitsSince(m, md.uid, since) > 0
                ? "MandateFrequencyExceeded"
                : (movementRefusal(m, c, "outbound", amount) ?? "ok");
    const view = expectOutcome(o, expected);
    if (!view) return;
    const funded = available(m, md.walletUid) >= debitTotal(amount);
    expect(view.state).toBe(funded ? "completed" : "failed");
    const op = addOp(m, {
      uid: view.uid,
      type: "wallet_debit",
      state: funded ? "completed" : "failed",
      amount,
      walletUid: md.walletUid,
      moved: funded,
      clientReference: ref,
      mandateUid: md.uid,
    });
    if (!funded) return;
    postDebit(m, op, md.walletUid, amount);
    if (md.frequency === "one_time") md.status = "completed";
  }
  toString = () =>
    `DebitUnderMandate(m${this.k}, ${this.amount ?? "mandate amount"}${this.otherWallet ? ", other wallet" : ""}${this.reuseRef !== null ? `, reuseRef ${this.reuseRef}` : ""})`;
}

// --- Payouts ---

interface PayoutRequest {
  c: MCustomer;
  amount: number;
  destination: string;
  ref: string;
}

function payoutBody(m: Model, r: Real, q: PayoutRequest) {
  return {
    walletUid: q.c.walletUid,
    destinationIdentifierUid: q.destination,
    amountMinor: q.amount,
    currency: CURRENCY,
    railCode: RAIL,
    clientReference: q.ref,
    assertion: assertionFor(r, `sess-${nextSeq(m)}`, q.c.uid, {
      walletUid: q.c.walletUid,
      amountMinor: q.amount,
      target: q.destination,
      clientReference: q.ref,
    }),
  };
}

/** 409 clientReference, 422 destination, status, KYC limits, then the funds for amount + charges. */
function expectPayout(m: Model, q: PayoutRequest): ErrorCode | "ok" {
  const ch = chargesOf("payout_b2c", q.amount);
  return clientReferenceUsed(m, "payout_b2c", q.ref)
    ? "Conflict"
    : q.destination !== q.c.msisdnUid
      ? "UnprocessableEntity"
      : (movementRefusal(m, q.c, "outbound", q.amount) ??
        (available(m, q.c.walletUid) < q.amount + ch.fee + ch.tax ? "InsufficientFunds" : "ok"));
}

/** Phase 1: the wallet pays amount + charges, the amount waits on the hold account. */
function applyPayout(m: Model, q: PayoutRequest, view: View): void {
  const ch = chargesOf("payout_b2c", q.amount);
  expect([view.state, view.feeMinor, view.taxMinor]).toEqual(["processing", ch.fee, ch.tax]);
  const w = q.c.walletUid;
  const op = addOp(m, {
    uid: view.uid,
    type: "payout_b2c",
    state: "processing",
    amount: q.amount,
    walletUid: w,
    moved: true,
    clientReference: q.ref,
    mandateUid: null,
    refund: { fees: ch.refundFee, tax: ch.refundTax },
    providerState: "initiated",
  });
  postFor(m, op, [
    [accounts.wallet(w), accounts.hold(w), q.amount],
    [accounts.wallet(w), accounts.fees, ch.fee],
    [accounts.wallet(w), accounts.tax, ch.tax],
  ]);
}

class Payout extends Base {
  constructor(
    readonly c: number,
    readonly amount: number,
    readonly foreignDestination: boolean,
    readonly reuseRef: number | null,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const c = pick(m.customers, this.c);
    const other = m.customers.find((x) => x.uid !== c.uid);
    const q: PayoutRequest = {
      c,
      amount: this.amount,
      destination: this.foreignDestination && other ? other.msisdnUid : c.msisdnUid,
      ref: clientReference(m, "payout_b2c", this.reuseRef),
    };
    const o = await write(m, r, "payout", payoutBody(m, r, q));
    const view = expectOutcome(o, expectPayout(m, q));
    if (view) applyPayout(m, q, view);
  }
  toString = () =>
    `Payout(c${this.c}, ${this.amount}${this.foreignDestination ? ", foreign destination" : ""}${this.reuseRef !== null ? `, reuseRef ${this.reuseRef}` : ""})`;
}

const payoutsOf = (m: Readonly<Model>) => [...m.ops.values()].filter((o) => o.type === "payout_b2c");

/** The rail's answer: confirmed settles the hold, failed releases it with the refundable charges. */
class PayoutResult extends Base {
  constructor(
    readonly p: number,
    readonly outcome: "confirmed" | "failed" | "uncertain",
  ) {
    super();
  }
  check = (m: Readonly<Model>) => payoutsOf(m).length > 0;
  async act(m: Model, r: Real) {
    const op = pick(payoutsOf(m), this.p);
    const result = await operator<{ state: string }>(r, (tx) =>
      reportPayoutResult(r.deps, tx, { railCode: RAIL, operationUid: op.uid, outcome: this.outcome }),
    );
    if (op.state !== "processing") {
      const consistent =
        // A reversal presupposes the confirmation: repeating it is consistent.
        (this.outcome === "confirmed" && (op.state === "completed" || op.state === "reversed")) ||
        (this.outcome === "failed" && op.state === "failed");
      expect(refusedWith(result)).toBe(consistent ? null : "Conflict");
      return;
    }
    expect(refusedWith(result)).toBeNull();
    const w = op.walletUid;
    if (this.outcome === "uncertain") {
      op.providerState = "uncertain";
    } else if (this.outcome === "confirmed") {
      op.state = "completed";
      postFor(m, op, [[accounts.hold(w), accounts.clearing, op.amount]]);
    } else {
      op.state = "failed";
      postFor(m, op, [
        [accounts.hold(w), accounts.wallet(w), op.amount],
        [accounts.fees, accounts.wallet(w), op.refund?.fees ?? 0],
        [accounts.tax, accounts.wallet(w), op.refund?.tax ?? 0],
      ]);
    }
    expect((result as { state: string }).state).toBe(op.state);
  }
  toString = () => `PayoutResult(p${this.p}, ${this.outcome})`;
}

// --- Top-ups ---

class TopupIntent extends Base {
  constructor(
    readonly c: number,
    readonly amount: number,
    readonly lifetimeSeconds: number | null,
    readonly reuseRef: number | null,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const c = pick(m.customers, this.c);
    const ref = clientReference(m, "topup_c2b", this.reuseRef);
    const o = await write(m, r, "topup", {
      walletUid: c.walletUid,
      amountMinor: this.amount,
      currency: CURRENCY,
      railCode: RAIL,
      expiresInSeconds: this.lifetimeSeconds,
      clientReference: ref,
    });
    // An intent is issued only when its charges fit in its amount and for a payment the wallet
    // could receive now (statuses, then limits).
    const charges = feeAndTax("topup_c2b", this.amount);
    const expected: ErrorCode | "ok" = clientReferenceUsed(m, "topup_c2b", ref)
      ? "Conflict"
      : charges > this.amount
        ? "UnprocessableEntity"
        : (movementRefusal(m, c, "inbound", this.amount, charges) ?? "ok");
    const view = expectOutcome(o, expected);
    if (!view) return;
    const expiresAtMs = m.nowMs + (this.lifetimeSeconds ?? 3_600) * 1_000;
    expect(view.state).toBe("pending_provider");
    expect(view.expiresAt).toBe(new Date(expiresAtMs).toISOString());
    expect(view.intentReference).toMatch(/^\d{12}$/);
    addOp(m, {
      uid: view.uid,
      type: "topup_c2b",
      state: "pending_provider",
      amount: this.amount,
      walletUid: c.walletUid,
      moved: false,
      clientReference: ref,
      mandateUid: null,
      intent: { reference: view.intentReference, expiresAtMs, charges: chargesOf("topup_c2b", this.amount) },
    });
  }
  toString = () =>
    `TopupIntent(c${this.c}, ${this.amount}, ${this.lifetimeSeconds ?? "default"} s${this.reuseRef !== null ? `, reuseRef ${this.reuseRef}` : ""})`;
}

/** Top-up intents (a top-up applied from suspense is no intent: no payment can match it). */
const intentsOf = (m: Readonly<Model>) =>
  [...m.ops.values()].filter((o) => o.type === "topup_c2b" && o.intent !== undefined);

/**
 * `live`: the exact payment of an intent still waiting for it (when there is one); `refusable`:
 * of such an intent whose wallet the model says cannot take it now (else as `live`); `blocked`: as
 * `live`, after the operator blocked the wallet or suspended the customer. The last two reach `held`.
 */
type PaymentMode =
  | "exact"
  | "live"
  | "refusable"
  | "blocked"
  | "wrongAmount"
  | "wrongCurrency"
  | "badReference"
  | "repeat";

/** The intent's own payment, now: would its wallet refuse it (status, limits, charges not covered)? */
function walletRefuses(m: Readonly<Model>, op: MOp): boolean {
  const charges = op.intent ? op.intent.charges.fee + op.intent.charges.tax : 0;
  return (
    movementRefusal(m, customerOf(m, op.walletUid), "inbound", op.amount, charges) !== null ||
    available(m, op.walletUid) + op.amount - charges < 0
  );
}

/** The operator blocks the intent's wallet (credit_blocked or frozen) or suspends its customer. */
async function blockParty(m: Model, r: Real, op: MOp, i: number): Promise<void> {
  const c = customerOf(m, op.walletUid);
  const how = i % 3;
  const done = await operator(r, (tx) =>
    how === 2
      ? changeCustomerStatus(r.deps, tx, c.uid, "suspended")
      : changeWalletStatus(r.deps, tx, c.walletUid, how === 0 ? "credit_blocked" : "frozen"),
  );
  expect(refusedWith(done)).toBeNull();
  if (how === 2) c.status = "suspended";
  else c.walletStatus = how === 0 ? "credit_blocked" : "frozen";
}

/** An inbound payment on the rail: it completes its intent, or goes to suspense; never both, never twice. */
class RailPayment extends Base {
  constructor(
    readonly i: number,
    readonly mode: PaymentMode,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => (this.mode === "repeat" ? m.payments.size > 0 : intentsOf(m).length > 0);
  async act(m: Model, r: Real) {
    if (this.mode === "repeat") {
      const [providerReference, first] = pick([...m.payments.entries()], this.i);
      const report = (details: { reference: string; amountMinor: number; currency: string }) =>
        r.uow.run((tx) => receiveRailPayment(r.deps, tx, { railCode: RAIL, providerReference, ...details }));
      const { answer, ...details } = first;
      const again = await report(details);
      expect(JSON.stringify(again), "a payment reported twice keeps its first outcome").toBe(answer);
      // Other details under the same provider reference: refused, and nothing changes.
      const other = await report({ ...details, amountMinor: details.amountMinor + 1 }).then(
        () => "accepted",
        (e: unknown) => (e as { code?: string }).code,
      );
      expect(other, "a provider reference reused for another payment").toBe("Conflict");
      return;
    }
    const live = intentsOf(m).filter(
      (o) => o.state === "pending_provider" && o.intent !== undefined && m.nowMs < o.intent.expiresAtMs,
    );
    const refusable = live.filter((o) => walletRefuses(m, o));
    const op = pick(
      this.mode === "refusable" && refusable.length > 0
        ? refusable
        : this.mode !== "exact" &&
            this.mode !== "wrongAmount" &&
            this.mode !== "wrongCurrency" &&
            live.length > 0
          ? live
          : intentsOf(m),
      this.i,
    );
    const exact =
      this.mode !== "wrongAmount" && this.mode !== "wrongCurrency" && this.mode !== "badReference";
    if (this.mode === "blocked" && op.state === "pending_provider") await blockParty(m, r, op, this.i);
    const intent = op.intent;
    if (!intent) throw new Error("an intent has its reference");
    const amount = this.mode === "wrongAmount" ? op.amount + 1 : op.amount;
    const currency = this.mode === "wrongCurrency" ? "USD" : CURRENCY;
    const reference = this.mode === "badReference" ? "12345" : intent.reference;
    const providerReference = `prv-${nextSeq(m)}`;
    const result = await r.uow.run((tx) =>
      receiveRailPayment(r.deps, tx, {
        railCode: RAIL,
        reference,
        amountMinor: amount,
        currency,
        providerReference,
      }),
    );
    const c = customerOf(m, op.walletUid);
    const charges = intent.charges.fee + intent.charges.tax;
    // The intent's own payment: in time, exact; then only the wallet decides between match and hold.
    const owns = exact && op.state === "pending_provider" && m.nowMs < intent.expiresAtMs;
    const matches =
      owns &&
      movementRefusal(m, c, "inbound", amount, charges) === null &&
      available(m, op.walletUid) + amount - charges >= 0;
    expect(result.matched, `payment ${this.mode} on ${op.state} intent`).toBe(matches);
    count(`payment:${matches ? "matched" : owns ? "held" : "suspense"}`);
    if (matches) {
      expect(result.operationUid).toBe(op.uid);
      op.state = "completed";
      op.movedAtMs = m.nowMs;
      postFor(m, op, [
        [accounts.clearing, accounts.wallet(op.walletUid), amount],
        [accounts.wallet(op.walletUid), accounts.fees, intent.charges.fee],
        [accounts.wallet(op.walletUid), accounts.tax, intent.charges.tax],
      ]);
    } else {
      expect(result.operationUid).toBeNull();
      expect(result.suspenseUid).toMatch(/^sus_/);
      post(m, [[accounts.clearing, accounts.suspense, amount]], currency);
      // Refused for the wallet: the intent is held with its payment, waiting for the operator.
      if (owns) op.state = "held";
      // A well-formed reference names the intent (whatever its state), and so its tenant.
      const named = this.mode !== "badReference";
      m.suspense.push({
        uid: result.suspenseUid as string,
        amount,
        currency,
        status: "open",
        intentUid: named ? op.uid : null,
        tenantId: named ? TENANT_ID : null,
        holds: owns,
        appliedOpUid: null,
      });
    }
    m.payments.set(providerReference, {
      reference,
      amountMinor: amount,
      currency,
      answer: JSON.stringify(result),
    });
  }
  toString = () => `RailPayment(i${this.i}, ${this.mode})`;
}

// --- Suspense ---

type ResolveMode = "refund" | "applyIntended" | "applyOther";
/**
 * Which items to pick from: all, the open ones, or the open ones holding a held intent, those whose
 * wallet can take the payment now first (each when there are any).
 */
type ResolvePick = "any" | "open" | "holding";

/** The intent an item settles: the one it holds, while that intent is still `held`. */
const heldBy = (m: Readonly<Model>, item: MSuspense): MOp | null => {
  const op = item.holds && item.intentUid !== null ? m.ops.get(item.intentUid) : undefined;
  return op?.state === "held" ? op : null;
};

/**
 * The operator resolves a suspense item (written from docs/decisions.md "Payment rails"): 409 when
 * it is not open; refund sends it back to the rail (a held intent fails, no charges); apply needs
 * the payment's currency, the intent's tenant, for a held intent its own wallet (422), and a wallet
 * that can receive it (statuses, limits, maximum balance net of charges) and cover the charges.
 * A held intent completes with its quoted charges; any other item becomes a new completed top-up
 * with no charges.
 */
class ResolveSuspense extends Base {
  constructor(
    readonly s: number,
    readonly among: ResolvePick,
    readonly mode: ResolveMode,
    readonly c: number,
    /** Applying: the operator first makes the wallet and its customer active (each when not). */
    readonly reactivate: boolean,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => m.suspense.length > 0;
  async act(m: Model, r: Real) {
    const open = m.suspense.filter((x) => x.status === "open");
    const holding = open.filter((x) => heldBy(m, x) !== null);
    const receivable = holding.filter((x) => {
      const intent = heldBy(m, x);
      return intent !== null && !walletRefuses(m, intent);
    });
    const among =
      this.among === "holding" && receivable.length > 0
        ? receivable
        : this.among === "holding" && holding.length > 0
          ? holding
          : this.among !== "any" && open.length > 0
            ? open
            : m.suspense;
    const item = pick(among, this.s);
    const held = heldBy(m, item);
    const intended = item.intentUid === null ? undefined : m.ops.get(item.intentUid)?.walletUid;
    const others = m.customers.filter((x) => x.walletUid !== intended);
    const target =
      this.mode === "refund"
        ? null
        : this.mode === "applyIntended" && intended !== undefined
          ? customerOf(m, intended)
          : pick(others.length > 0 ? others : m.customers, this.c);
    if (target !== null && this.reactivate) {
      if (target.status !== "active") {
        const done = await operator(r, (tx) => changeCustomerStatus(r.deps, tx, target.uid, "active"));
        expect(refusedWith(done)).toBeNull();
        target.status = "active";
      }
      if (target.walletStatus !== "active") {
        const done = await operator(r, (tx) => changeWalletStatus(r.deps, tx, target.walletUid, "active"));
        expect(refusedWith(done)).toBeNull();
        target.walletStatus = "active";
      }
    }
    const result = await operator<View>(r, (tx) =>
      resolveSuspense(
        r.deps,
        tx,
        item.uid,
        target === null ? { action: "refund" } : { action: "apply", walletUid: target.walletUid },
      ),
    );

    const charges = held?.intent ? held.intent.charges : { fee: 0, tax: 0 };
    const expected: ErrorCode | "ok" =
      item.status !== "open"
        ? "Conflict"
        : target === null
          ? "ok"
          : item.currency !== CURRENCY
            ? "CurrencyMismatch"
            : item.tenantId !== null && item.tenantId !== TENANT_ID
              ? "UnprocessableEntity"
              : held !== null && held.walletUid !== target.walletUid
                ? "UnprocessableEntity"
                : (movementRefusal(m, target, "inbound", item.amount, charges.fee + charges.tax) ??
                  (available(m, target.walletUid) + item.amount - charges.fee - charges.tax < 0
                    ? "InsufficientFunds"
                    : "ok"));
    const reopened = item.status === "open" && item.holds && !held;
    const kind = `${target === null ? "refund" : target.walletUid === intended ? "applyIntended" : "applyOther"}${held ? "Held" : ""}`;
    if (reopened) count(`resolve:reopened:${expected}`);
    count(`resolve:${kind}:${expected}`);
    expect(refusedWith(result), `resolve ${kind} of a ${item.status} item`).toBe(
      expected === "ok" ? null : expected,
    );
    if (expected !== "ok") return;
    const view = result as View;
    expect([view.uid, view.status, view.amountMinor, view.currency, view.tenantId]).toEqual([
      item.uid,
      target === null ? "refunded" : "applied",
      item.amount,
      item.currency,
      item.tenantId,
    ]);

    if (target === null) {
      post(m, [[accounts.suspense, accounts.clearing, item.amount]], item.currency);
      if (held) {
        held.state = "failed";
        held.providerState = "reversed";
      }
      item.status = "refunded";
      expect(view.resolution).toEqual({ action: "refund", walletUid: null, operationUid: null });
      return;
    }
    const w = accounts.wallet(target.walletUid);
    if (!held) expect(view.resolution?.operationUid).toMatch(/^op_/);
    const op =
      held ??
      addOp(m, {
        uid: view.resolution?.operationUid,
        type: "topup_c2b",
        state: "completed",
        amount: item.amount,
        walletUid: target.walletUid,
        moved: true,
        clientReference: null,
        mandateUid: null,
        providerState: "reconciled",
      });
    expect(view.resolution).toEqual({ action: "apply", walletUid: target.walletUid, operationUid: op.uid });
    expect(m.ops.has(op.uid)).toBe(true);
    if (held) {
      held.state = "completed";
      held.movedAtMs = m.nowMs;
      held.providerState = "reconciled";
    }
    postFor(m, op, [
      [accounts.suspense, w, item.amount],
      [w, accounts.fees, charges.fee],
      [w, accounts.tax, charges.tax],
    ]);
    item.status = "applied";
    item.appliedOpUid = op.uid;
  }
  toString = () =>
    `ResolveSuspense(s${this.s} ${this.among}, ${this.mode}${this.mode === "applyOther" ? ` c${this.c}` : ""}${this.reactivate && this.mode !== "refund" ? ", reactivate" : ""})`;
}

// --- Operator reversal ---

/**
 * The operator reverses any operation: a completed one gives back, net per account, whatever it
 * moved (one journal), unless a wallet (or the prefund) no longer holds what goes back out of it;
 * a reversed one answers as is; anything else is 409, and so is one whose wallet is closed. A
 * top-up applied from suspense gives its money back to suspense, and its item opens again.
 */
class Reverse extends Base {
  constructor(
    readonly o: number,
    /**
     * Pick among the top-ups applied from suspense (when there are any), for an even `o` among the
     * held intents applied (when there are any).
     */
    readonly applied = false,
  ) {
    super();
  }
  check = (m: Readonly<Model>) => m.ops.size > 0;
  async act(m: Model, r: Real) {
    const fromSuspense = m.suspense.flatMap((s) => {
      const op = s.appliedOpUid === null ? undefined : m.ops.get(s.appliedOpUid);
      return op ? [op] : [];
    });
    const heldApplied = fromSuspense.filter((o) => o.intent !== undefined);
    const op = pick(
      this.applied && this.o % 2 === 0 && heldApplied.length > 0
        ? heldApplied
        : this.applied && fromSuspense.length > 0
          ? fromSuspense
          : [...m.ops.values()],
      this.o,
    );
    const result = await operator<{ state: string }>(r, (tx) => reverseOperation(r.deps, tx, op.uid));
    if (op.state === "reversed" || op.state !== "completed") {
      expect(refusedWith(result)).toBe(op.state === "reversed" ? null : "Conflict");
      return;
    }
    const applied = m.suspense.find((s) => s.appliedOpUid === op.uid);
    // Nothing moves into or out of a closed wallet.
    if (customerOf(m, op.walletUid).walletStatus === "closed") {
      if (applied)
        count(`reverse:${applied.intentUid === op.uid ? "appliedHeldIntent" : "appliedTopup"}:Conflict`);
      expect(refusedWith(result)).toBe("Conflict");
      return;
    }
    const net = new Map<string, number>();
    for (const [from, to, amount] of op.moves) {
      net.set(from, (net.get(from) ?? 0) - amount);
      net.set(to, (net.get(to) ?? 0) + amount);
    }
    const protectedKey = (key: string) => key.startsWith("wallet:") || key === accounts.prefund;
    const uncovered = [...net].some(
      ([key, moved]) => moved > 0 && protectedKey(key) && balanceOf(m, key) - moved < 0,
    );
    expect(refusedWith(result)).toBe(uncovered ? "InsufficientFunds" : null);
    if (applied) {
      const what = applied.intentUid === op.uid ? "appliedHeldIntent" : "appliedTopup";
      count(`reverse:${what}:${uncovered ? "InsufficientFunds" : "ok"}`);
    }
    if (uncovered) return;
    // Back where it came from: each account gives up what it received, net.
    post(
      m,
      [...net].filter(([, moved]) => moved > 0).flatMap(([key, moved]) => [[key, REVERSAL_POOL, moved]]),
    );
    post(
      m,
      [...net].filter(([, moved]) => moved < 0).flatMap(([key, moved]) => [[REVERSAL_POOL, key, -moved]]),
    );
    m.journals--; // the two steps above are one journal
    op.state = "reversed";
    if (op.providerState !== undefined) op.providerState = "reversed";
    // A top-up applied from suspense: its money went back to suspense (op.moves), its item reopens.
    if (applied) {
      applied.status = "open";
      applied.appliedOpUid = null;
    }
    expect((result as { state: string }).state).toBe("reversed");
  }
  toString = () => `Reverse(o${this.o}${this.applied ? ", applied from suspense" : ""})`;
}

/** A pass-through the model's reversal routes money through; it always nets back to zero. */
const REVERSAL_POOL = "model:reversal-pool";

class ExpireTopups extends Base {
  check = () => true;
  async act(m: Model, r: Real) {
    const expired = await r.uow.run((tx) => expireTopups(r.deps, tx, new Date(m.nowMs).toISOString(), 1000));
    const due = intentsOf(m).filter(
      (o) => o.state === "pending_provider" && o.intent !== undefined && o.intent.expiresAtMs <= m.nowMs,
    );
    expect(expired).toBe(due.length);
    for (const o of due) o.state = "failed";
  }
  toString = () => "ExpireTopups";
}

class Advance extends Base {
  constructor(readonly hours: number) {
    super();
  }
  check = () => true;
  async act(m: Model, r: Real) {
    m.nowMs += this.hours * 3_600_000;
    r.clock.advanceMs(this.hours * 3_600_000);
  }
  toString = () => `Advance(${this.hours}h)`;
}

// --- Idempotency ---

/** The same key and the same bytes again: the first answer, byte for byte, and nothing posted. */
class Replay extends Base {
  constructor(readonly s: number) {
    super();
  }
  check = (m: Readonly<Model>) => m.sent.length > 0;
  async act(m: Model, r: Real) {
    const sent = pick(m.sent, this.s);
    const o = await send(r, sent.route as RouteName, sent.key, sent.body);
    expect(o).toEqual({ kind: "answer", replayed: true, ...sent.response });
  }
  toString = () => `Replay(s${this.s})`;
}

/** The same key for another request: IdempotencyKeyReused, not stored, nothing posted. */
class ReuseKey extends Base {
  constructor(readonly s: number) {
    super();
  }
  check = (m: Readonly<Model>) => m.sent.length > 0;
  async act(m: Model, r: Real) {
    const sent = pick(m.sent, this.s);
    const o = await send(r, sent.route as RouteName, sent.key, `${sent.body} `);
    expect(o).toEqual({ kind: "refused", code: "IdempotencyKeyReused" });
  }
  toString = () => `ReuseKey(s${this.s})`;
}

// --- Races: fc.scheduler decides which transaction starts next ---

interface RacePlanItem {
  kind: "credit" | "payout";
  amount: number;
  /** How many times the same request (same key, same bytes) is sent at once. */
  copies: number;
  /** Reuse the clientReference of the previous request of the same kind, under another key. */
  sharedRef: boolean;
}

type RaceRequest = { key: string; body: string } & (
  | { route: "credit"; q: CreditRequest }
  | { route: "payout"; q: PayoutRequest }
);

/** Heap's algorithm: every order of `items` (a handful at most). */
function permutations<T>(items: T[]): T[][] {
  const out: T[][] = [];
  const a = [...items];
  const go = (k: number) => {
    if (k <= 1) {
      out.push([...a]);
      return;
    }
    for (let i = 0; i < k; i++) {
      go(k - 1);
      const j = k % 2 === 0 ? i : 0;
      [a[j], a[k - 1]] = [a[k - 1] as T, a[j] as T];
    }
  };
  go(a.length);
  return out;
}

const answerCode = (o: Outcome): string =>
  o.kind === "refused" ? o.code : o.status < 300 ? "ok" : (JSON.parse(o.body).error as string);

/**
 * Concurrent credits and payouts on one wallet, some sent several times at once under one key,
 * some sharing a clientReference under different keys, in an order the scheduler picks. Checks:
 * each key executed exactly once (the copies got the same stored answer, or 409 while it ran);
 * the answers are those of SOME serial order of the executed requests (linearizability against
 * the model); balances and invariants hold afterwards.
 */
class Race extends Base {
  constructor(
    readonly c: number,
    readonly plan: RacePlanItem[],
    readonly scheduler: fc.Scheduler,
  ) {
    super();
  }
  check = hasCustomers;
  async act(m: Model, r: Real) {
    const c = pick(m.customers, this.c);
    const requests: RaceRequest[] = [];
    for (const p of this.plan) {
      const previous = requests.filter((x) => x.route === p.kind).at(-1);
      const ref = p.sharedRef && previous ? previous.q.ref : `ref-${nextSeq(m)}`;
      const key = `key-${nextSeq(m)}`;
      if (p.kind === "credit") {
        const q: CreditRequest = { c, amount: p.amount, currency: CURRENCY, ref };
        requests.push({ route: "credit", key, body: JSON.stringify(creditBody(q)), q });
      } else {
        const q: PayoutRequest = { c, amount: p.amount, destination: c.msisdnUid, ref };
        requests.push({ route: "payout", key, body: JSON.stringify(payoutBody(m, r, q)), q });
      }
    }
    const s = this.scheduler;
    const scheduled: Real = {
      ...r,
      uow: {
        run: (work) => s.schedule(Promise.resolve(), "transaction").then(() => r.uow.run(work)),
        autocommit: (work) => s.schedule(Promise.resolve(), "transaction").then(() => r.uow.autocommit(work)),
      },
    };
    const sends = requests.flatMap((q, i) =>
      Array.from({ length: this.plan[i]?.copies ?? 1 }, () =>
        send(scheduled, q.route, q.key, q.body).then((o) => ({ q, o })),
      ),
    );
    const results = await s.waitFor(Promise.all(sends));

    // Exactly one execution per key; its copies replay it or found it running.
    const executed: { q: RaceRequest; o: Outcome & { kind: "answer" } }[] = [];
    for (const q of requests) {
      const answers = results.filter((x) => x.q === q).map((x) => x.o);
      const firsts = answers.filter(
        (o): o is Outcome & { kind: "answer" } => o.kind === "answer" && !o.replayed,
      );
      expect(
        firsts.length,
        `${q.route} ${q.key} executed once: ${answers.map(describeOutcome).join(" | ")}`,
      ).toBe(1);
      const first = firsts[0] as Outcome & { kind: "answer" };
      for (const o of answers) {
        if (o === first) continue;
        const same = o.kind === "answer" && o.replayed && o.status === first.status && o.body === first.body;
        const running = o.kind === "refused" && o.code === "IdempotencyKeyInUse";
        expect(same || running, `copy of ${q.key}: ${describeOutcome(o)}`).toBe(true);
      }
      executed.push({ q, o: first });
      m.sent.push({
        route: q.route,
        key: q.key,
        body: q.body,
        response: { status: first.status, body: first.body },
      });
    }

    // Some serial order of the executed requests must explain every answer.
    for (const order of permutations(executed)) {
      const trial = structuredClone(m);
      const explains = order.every(({ q, o }) => {
        const expected = q.route === "credit" ? expectCredit(trial, q.q) : expectPayout(trial, q.q);
        if (answerCode(o) !== expected) return false;
        if (expected === "ok") {
          const view = JSON.parse(o.body);
          if (q.route === "credit") applyCredit(trial, q.q, view);
          else applyPayout(trial, q.q, view);
        }
        return true;
      });
      if (explains) {
        Object.assign(m, trial);
        for (const { o } of executed) count(`race:${answerCode(o)}`);
        return;
      }
    }
    throw new Error(
      `no serial order explains the answers: ${executed.map(({ q, o }) => `${q.route} ${q.q.amount} -> ${answerCode(o)}`).join(", ")}`,
    );
  }
  toString = () =>
    `Race(c${this.c}, ${this.plan
      .map(
        (p) =>
          `${p.kind} ${p.amount}${p.copies > 1 ? ` x${p.copies}` : ""}${p.sharedRef ? " sharedRef" : ""}`,
      )
      .join(", ")}) ${this.scheduler.toString()}`;
}

// --- Arbitraries ---

const idx = fc.nat({ max: 50 });
/** Mostly small amounts, sometimes around the limits of the levels. */
const amount = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1, max: 60_000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 60_000, max: 300_000 }) },
  { weight: 2, arbitrary: fc.integer({ min: 300_000, max: 1_200_000 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1, 57, 58, 99, 100, 115, 116, 100_000, 100_001, 700_000, 700_001, 1_000_000),
  },
);
/** Outbound amounts: usually within what a credited wallet holds. */
const smallAmount = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 60_000 }) },
  { weight: 1, arbitrary: amount },
);
/** A debit's amount: the mandate's own (null) most of the time, else any. */
const debitAmount = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: smallAmount },
);
/** Usually a fresh clientReference; sometimes one an earlier operation already holds. */
const maybeReuse = fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: idx });

const onboardArb = fc
  .tuple(fc.constantFrom("tier_1" as const, "tier_2" as const), fc.nat({ max: 5 }))
  .map(([t, p]) => new Onboard(t, p === 0));
const fundArb = fc.integer({ min: 1, max: 3_000_000 }).map((a) => new Fund(a));
const creditArb = fc
  .tuple(idx, amount, maybeReuse, fc.nat({ max: 12 }))
  .map(([c, a, reuse, usd]) => new Credit(c, a, reuse, usd === 0));
const createMandateArb = fc
  .tuple(
    idx,
    fc.constantFrom("fixed" as const, "up_to" as const),
    smallAmount,
    fc.constantFrom<Frequency>("daily", "weekly", "monthly", "one_time", "ad_hoc", "on_due_date"),
    fc.constantFrom(-1, -1, 0, 2),
    fc.constantFrom(null, null, null, 3, 48, 24 * 40),
  )
  .map(([c, rule, a, f, from, to]) => new CreateMandate(c, rule, a, f, from, to));
const revokeMandateArb = idx.map((k) => new RevokeMandate(k));
const setMandateStatusArb = fc
  .tuple(idx, fc.constantFrom("suspended" as const, "active" as const))
  .map(([k, s]) => new SetMandateStatus(k, s));
const debitArb = fc
  .tuple(idx, fc.nat({ max: 4 }), debitAmount, maybeReuse)
  .map(([k, other, a, reuse]) => new DebitWithAssertion(k, other === 0, a, reuse));
const mandateDebitArb = fc
  .tuple(idx, debitAmount, fc.nat({ max: 8 }), maybeReuse)
  .map(([k, a, other, reuse]) => new DebitUnderMandate(k, a, other === 0, reuse));
const payoutArb = fc
  .tuple(idx, smallAmount, fc.nat({ max: 8 }), maybeReuse)
  .map(([c, a, foreign, reuse]) => new Payout(c, a, foreign === 0, reuse));
const payoutResultArb = fc
  .tuple(idx, fc.constantFrom("confirmed" as const, "failed" as const, "uncertain" as const))
  .map(([p, o]) => new PayoutResult(p, o));
const reverseArb = fc.tuple(idx, fc.nat({ max: 3 })).map(([o, applied]) => new Reverse(o, applied === 0));
/** A top-up's amount: sometimes below its charges (116), which refuses the intent (422). */
const topupAmount = fc.oneof(
  { weight: 5, arbitrary: amount },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }) },
);
const topupArb = fc
  .tuple(idx, topupAmount, fc.constantFrom(null, 60, 3_600, 86_400), maybeReuse)
  .map(([c, a, life, reuse]) => new TopupIntent(c, a, life, reuse));
const paymentArb = fc
  .tuple(
    idx,
    fc.constantFrom<PaymentMode>(
      "exact",
      "exact",
      "live",
      "live",
      "refusable",
      "refusable",
      "blocked",
      "blocked",
      "wrongAmount",
      "wrongCurrency",
      "badReference",
      "repeat",
    ),
  )
  .map(([i, mode]) => new RailPayment(i, mode));
const resolveArb = fc
  .tuple(
    idx,
    fc.constantFrom<ResolvePick>("any", "open", "open", "holding", "holding"),
    fc.constantFrom<ResolveMode>(
      "refund",
      "refund",
      "applyIntended",
      "applyIntended",
      "applyIntended",
      "applyOther",
    ),
    idx,
    fc.nat({ max: 2 }),
  )
  .map(([s, among, mode, c, reactivate]) => new ResolveSuspense(s, among, mode, c, reactivate === 0));
const expireArb = fc.constant(null).map(() => new ExpireTopups());
const advanceArb = fc.constantFrom(1, 2, 6, 25, 24 * 8, 24 * 35).map((h) => new Advance(h));
const submitKycArb = fc
  .tuple(
    idx,
    fc.constantFrom("tier_1" as const, "tier_2" as const),
    fc.constantFrom("upgrade" as const, "downgrade" as const, "periodic_review" as const),
    fc.boolean(),
  )
  .map(([c, t, rt, p]) => new SubmitKyc(c, t, rt, p));
const decideKycArb = fc.tuple(idx, fc.boolean()).map(([c, a]) => new DecideKyc(c, a));
const customerStatusArb = fc
  .tuple(idx, fc.constantFrom<CustomerStatus>("active", "active", "active", "restricted", "suspended"))
  .map(([c, s]) => new SetCustomerStatus(c, s));
const walletStatusArb = fc
  .tuple(
    idx,
    fc.constantFrom<WalletStatus>(
      "active",
      "active",
      "active",
      "active",
      "debit_blocked",
      "credit_blocked",
      "frozen",
      "dormant",
      "closed",
    ),
  )
  .map(([c, s]) => new SetWalletStatus(c, s));
/** A status change on the wallet or customer of a waiting or held intent: it holds or releases it. */
const intentStatusArb = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .tuple(idx, fc.constantFrom<WalletStatus>("active", "active", "credit_blocked", "frozen"))
      .map(([c, s]) => new SetWalletStatus(c, s, true)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(idx, fc.constantFrom<CustomerStatus>("active", "suspended"))
      .map(([c, s]) => new SetCustomerStatus(c, s, true)),
  },
);
const raceArb = fc
  .tuple(
    idx,
    fc.array(
      fc.record({
        kind: fc.constantFrom("credit" as const, "payout" as const, "payout" as const),
        amount: fc.integer({ min: 1, max: 400_000 }),
        copies: fc.constantFrom(1, 1, 2, 3),
        sharedRef: fc.nat({ max: 4 }).map((x) => x === 0),
      }),
      { minLength: 2, maxLength: 4 },
    ),
    fc.scheduler(),
  )
  .map(([c, plan, s]) => new Race(c, plan, s));
const replayArb = idx.map((s) => new Replay(s));
const reuseKeyArb = idx.map((s) => new ReuseKey(s));

/** fc.commands picks uniformly among the list: money movements are listed more than once to weigh more. */
export const commandArbitraries: fc.Arbitrary<Cmd>[] = [
  onboardArb,
  fundArb,
  creditArb,
  creditArb,
  creditArb,
  createMandateArb,
  revokeMandateArb,
  setMandateStatusArb,
  debitArb,
  debitArb,
  mandateDebitArb,
  mandateDebitArb,
  payoutArb,
  payoutArb,
  payoutResultArb,
  payoutResultArb,
  reverseArb,
  topupArb,
  topupArb,
  paymentArb,
  paymentArb,
  paymentArb,
  resolveArb,
  resolveArb,
  resolveArb,
  expireArb,
  advanceArb,
  submitKycArb,
  decideKycArb,
  customerStatusArb,
  walletStatusArb,
  intentStatusArb,
  replayArb,
  reuseKeyArb,
  raceArb,
  raceArb,
];

/**
 * Two customers onboarded and credited through the same commands a run generates, so every run
 * can move money from its first command.
 */
export async function seedCustomers(m: Model, r: Real): Promise<void> {
  await new Onboard("tier_1", false).run(m, r);
  await new Onboard("tier_2", false).run(m, r);
  await new Credit(0, 400_000, null, false).run(m, r);
  await new Credit(1, 900_000, null, false).run(m, r);
}

export type { Cmd };
