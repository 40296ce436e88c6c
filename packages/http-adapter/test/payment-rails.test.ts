import type { Catalog, FeeSchedule, Journal, OutboxEvent, Rail, Tenant, Tx } from "@wallet/ledger-core";
import { expireTopups } from "@wallet/ledger-core";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { customerViewSchema } from "../src/customers/schemas.js";
import { feeQuoteViewSchema } from "../src/fees/schemas.js";
import {
  operationDetailViewSchema,
  operationViewSchema,
  receiptViewSchema,
} from "../src/operations/schemas.js";
import {
  railPaymentResultSchema,
  suspenseItemViewSchema,
  suspenseListSchema,
} from "../src/operator/rail-schemas.js";
import { trialBalanceViewSchema } from "../src/operator/schemas.js";
import { topupDetailViewSchema, topupViewSchema } from "../src/topups/schemas.js";
import { walletBalanceSchema } from "../src/wallets/schemas.js";
import {
  ADMIN,
  catalog,
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  sha256Hex,
  TENANT,
} from "./support/fixture.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

// --- The catalog of this suite: the DESIGN.md section 9 rail and payout fee schedule, plus rails
// each missing one capability. Set on the harness only, so other suites keep the shared catalog.

const RAIL = "sandbox_mobile";
const sandboxRail: Rail = {
  code: RAIL,
  kind: "sandbox",
  currency: "KES",
  status: "active",
  payouts: true,
  payins: true,
  // Not the 3600 default, so a test can tell the rail's lifetime from the fallback.
  intentLifetimeSeconds: 1800,
  payerInstructions: "Pay with reference {reference}",
};
const rails: Rail[] = [
  sandboxRail,
  {
    ...sandboxRail,
    code: "sandbox_bank",
    payouts: false,
    intentLifetimeSeconds: null,
    payerInstructions: null,
  },
  { ...sandboxRail, code: "sandbox_collect_off", payins: false },
  { ...sandboxRail, code: "sandbox_off", status: "inactive" },
  { ...sandboxRail, code: "sandbox_unapproved" },
];
/** Approved for the tenants: every rail above but sandbox_unapproved, and one the catalog lacks. */
const APPROVED = ["sandbox_mobile", "sandbox_bank", "sandbox_collect_off", "sandbox_off", "ghost"];

const payoutFeeSchedule: FeeSchedule = {
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
/** The shared catalog with this suite's rails and payout schedule in place of any of the same name. */
const railCatalog: Catalog = {
  ...catalog,
  rails: [...rails, ...catalog.rails.filter((r) => !rails.some((mine) => mine.code === r.code))],
  feeSchedules: [...catalog.feeSchedules.filter((s) => s.operationType !== "payout_b2c"), payoutFeeSchedule],
};

/** The schedule above, computed independently: levy 1.5% rounded half up, VAT 16% of the flat fee. */
const levyOf = (amountMinor: number) => Math.floor((amountMinor * 150 + 5_000) / 10_000);
const feeOf = (amountMinor: number) => 2_500 + levyOf(amountMinor);
const TAX = 400;

const FUNDED = 1_000_000;
const AMOUNT = 50_000;
const FEE = feeOf(AMOUNT); // 3 250
const WEBHOOK: Tenant["webhook"] = {
  url: "http://127.0.0.1:9/hooks",
  enabled: true,
  events: [],
  secrets: [],
};
const BINDING_TEMPLATE =
  "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference";

/** Luhn, written from the textbook: from the right, every second digit (not the check digit) doubled. */
function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A well-formed reference (valid check digit) that no intent holds. */
function unknownReference(payload = "12345678901"): string {
  for (let c = 0; c <= 9; c++) if (luhnValid(`${payload}${c}`)) return `${payload}${c}`;
  throw new Error("unreachable: one check digit always fits");
}

type Delay = { ticks: number } | { ms: number };

/** Runs `work` after `delay`: a number of microtask ticks or of milliseconds. */
async function after<T>(delay: Delay, work: () => Promise<T>): Promise<T> {
  if ("ms" in delay) await new Promise((resolve) => setTimeout(resolve, delay.ms));
  else for (let i = 0; i < delay.ticks; i++) await Promise.resolve();
  return work();
}

interface PayoutRequest {
  walletUid: string;
  destinationIdentifierUid: string;
  amountMinor: number;
  currency: string;
  railCode: string;
  clientReference: string;
  feeQuoteId?: string;
}

describe.each(storeKinds())("payment rails (payouts, top-ups, suspense) on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let customerUid: string;
  let walletUid: string;
  let msisdnUid: string;
  let documentUid: string;
  let seq = 0;

  const run = <T>(work: (tx: Tx) => Promise<T>) => store.uow.run(work);
  const json = async <S extends v.GenericSchema>(schema: S, res: Response, status: number) => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return v.parse(schema, JSON.parse(text));
  };
  const errorOf = async (res: Response) =>
    (await res.json()) as { error: string; message: string; details?: { field: string; issue: string }[] };

  const balance = async (uid = walletUid, t = acme) =>
    json(walletBalanceSchema, await h.call(t, "GET", `${TENANT}/wallets/${uid}/balance`), 200);
  const expectBalanced = async () => {
    const tb = await json(trialBalanceViewSchema, await h.admin("GET", `${ADMIN}/ledger/trial-balance`), 200);
    expect(tb.balanced).toBe(true);
    for (const c of tb.currencies) expect(c.netMinor).toBe(0);
  };
  const accounts = (...keys: string[]) => run((tx) => tx.ledger.balances("KES", keys));
  const journalsOf = (operationUid: string, tenantId = "acme"): Promise<Journal[]> =>
    run((tx) => tx.ledger.journalsOf(tenantId, operationUid));
  const eventsOf = async (resourceUid: string): Promise<OutboxEvent[]> =>
    (await run((tx) => tx.outbox.list("acme"))).filter((e) => e.resourceUid === resourceUid);
  const storedOperation = (uid: string) => run((tx) => tx.operations.get("acme", uid));
  const payoutCount = async () =>
    (
      await run((tx) =>
        tx.operations.list(
          { tenantId: "acme", type: "payout_b2c" },
          { page: 1, limit: 100, sort: [{ field: "createdAt", direction: "ASC" }] },
        ),
      )
    ).total;
  const detail = async (uid: string, t = acme) =>
    json(operationDetailViewSchema, await h.call(t, "GET", `${TENANT}/operations/${uid}`), 200);
  const receipt = async (uid: string) =>
    json(receiptViewSchema, await h.call(acme, "GET", `${TENANT}/operations/${uid}/receipt`), 200);

  // --- payouts

  /** The assertion of a customer who authenticated half a minute ago, bound to `r` as the test computes it. */
  const assertionFor = (r: PayoutRequest, overrides: Record<string, unknown> = {}) => {
    const now = h.clock.now().getTime();
    const canonical = [
      customerUid,
      r.walletUid,
      String(r.amountMinor),
      r.currency,
      r.destinationIdentifierUid,
      r.clientReference,
    ].join("|");
    return {
      customerUid,
      assuranceLevel: "two_factor",
      factor1Type: "pin",
      factor2Type: "otp",
      authenticatedAt: new Date(now - 30_000).toISOString(),
      expiresAt: new Date(now + 300_000).toISOString(),
      channelCode: "mobile_app",
      sourceReference: `sess-${r.clientReference}`,
      transactionBinding: { hash: sha256Hex(canonical), algorithm: "sha256", canonical: BINDING_TEMPLATE },
      ...overrides,
    };
  };
  const payoutRequest = (overrides: Partial<PayoutRequest> = {}): PayoutRequest => ({
    walletUid,
    destinationIdentifierUid: msisdnUid,
    amountMinor: AMOUNT,
    currency: "KES",
    railCode: RAIL,
    clientReference: `po-${++seq}`,
    ...overrides,
  });
  /** POST /payouts with the request and an assertion bound to `boundTo` (default: the request itself). */
  const payout = (
    r: PayoutRequest,
    opts: { boundTo?: PayoutRequest; assertion?: Record<string, unknown>; tenant?: SeededTenant } = {},
  ) =>
    h.call(opts.tenant ?? acme, "POST", `${TENANT}/payouts`, {
      body: { ...r, assertion: assertionFor(opts.boundTo ?? r, opts.assertion) },
    });
  const processingPayout = async (r = payoutRequest()) => {
    const op = await json(operationViewSchema, await payout(r), 202);
    expect(op.state).toBe("processing");
    return op;
  };
  const report = (operationUid: string, outcome: string, providerReference?: string, railCode = RAIL) =>
    h.admin("POST", `${ADMIN}/rails/${railCode}/payout-results`, {
      operationUid,
      outcome,
      ...(providerReference === undefined ? {} : { providerReference }),
    });

  // --- top-ups

  const intent = async (overrides: Record<string, unknown> = {}, t = acme) =>
    h.call(t, "POST", `${TENANT}/topup-intents`, {
      body: {
        walletUid,
        amountMinor: 25_000,
        currency: "KES",
        railCode: RAIL,
        clientReference: `tu-${++seq}`,
        ...overrides,
      },
    });
  const pendingIntent = async (overrides: Record<string, unknown> = {}) =>
    json(topupViewSchema, await intent(overrides), 201);
  const pay = (body: {
    reference: string;
    amountMinor: number;
    currency?: string;
    providerReference?: string;
  }) =>
    h.admin("POST", `${ADMIN}/rails/${RAIL}/payments`, {
      currency: "KES",
      providerReference: `PAY-${++seq}`,
      ...body,
    });
  const payResult = async (body: Parameters<typeof pay>[0]) =>
    json(railPaymentResultSchema, await pay(body), 200);
  const topupDetail = async (uid: string) =>
    json(topupDetailViewSchema, await h.call(acme, "GET", `${TENANT}/topup-intents/${uid}`), 200);
  const suspense = async (query = "") =>
    json(suspenseListSchema, await h.admin("GET", `${ADMIN}/suspense${query}`), 200);
  const resolve = (uid: string, body: unknown) => h.admin("POST", `${ADMIN}/suspense/${uid}/resolve`, body);

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    h.deps.core.catalog = railCatalog;
    acme = await seedTenant(store.uow, { id: "acme", approvedRails: APPROVED, webhook: WEBHOOK });
    globex = await seedTenant(store.uow, { id: "globex", approvedRails: APPROVED, webhook: WEBHOOK });
    for (const tenantId of ["acme", "globex"]) {
      const funded = await h.admin("POST", `${ADMIN}/tenants/${tenantId}/prefund`, {
        amountMinor: 50_000_000,
        currency: "KES",
      });
      expect(funded.status).toBe(200);
    }
    const customer = await json(
      customerViewSchema,
      await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() }),
      201,
    );
    customerUid = customer.uid;
    walletUid = customer.walletUid;
    msisdnUid = customer.identifiers.find((i) => i.type === "msisdn")!.uid;
    documentUid = customer.identifiers.find((i) => i.class === "identity_document")!.uid;
    const credited = await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
      body: { walletUid, amountMinor: FUNDED, currency: "KES", clientReference: "fund" },
    });
    expect(credited.status).toBe(201);
  });
  afterEach(async () => {
    // Whatever a test did, the ledger still balances.
    try {
      await expectBalanced();
    } finally {
      await store.close();
    }
  });

  describe("POST /payouts (phase 1)", () => {
    it("202 processing: the wallet pays amount + fee + tax, itemized, and the amount is held", async () => {
      const r = payoutRequest({ clientReference: "po-main" });
      // Built once: a retry under the same key must send the same bytes.
      const sent = { ...r, assertion: assertionFor(r) };
      const post = () =>
        h.call(acme, "POST", `${TENANT}/payouts`, { body: sent, idempotencyKey: "payout-key-1" });
      const res = await post();
      expect(res.headers.get("Idempotent-Replayed")).toBe("false");
      const body = await res.text();
      expect(res.status, body).toBe(202);
      const op = v.parse(operationViewSchema, JSON.parse(body));
      expect(op).toMatchObject({
        type: "payout_b2c",
        state: "processing",
        amountMinor: AMOUNT,
        feeMinor: FEE,
        taxMinor: TAX,
        currency: "KES",
        clientReference: "po-main",
        completedAt: null,
      });
      expect(FEE).toBe(3_250);

      expect(await balance()).toMatchObject({
        heldMinor: AMOUNT,
        currentMinor: FUNDED - FEE - TAX,
        availableMinor: FUNDED - AMOUNT - FEE - TAX,
      });
      const journals = await journalsOf(op.uid);
      expect(journals).toHaveLength(1);
      const w = `wallet:${walletUid}`;
      expect(journals[0]!.entries).toEqual([
        { accountKey: w, amountMinor: -AMOUNT, label: "amount" },
        { accountKey: `${w}:hold`, amountMinor: AMOUNT, label: "amount" },
        { accountKey: w, amountMinor: -2_500, label: "Transfer fee" },
        { accountKey: "fees:acme", amountMinor: 2_500, label: "Transfer fee" },
        { accountKey: w, amountMinor: -750, label: "Levy" },
        { accountKey: "fees:acme", amountMinor: 750, label: "Levy" },
        { accountKey: w, amountMinor: -400, label: "VAT" },
        { accountKey: "tax:acme", amountMinor: 400, label: "VAT" },
      ]);
      const d = await detail(op.uid);
      expect(d.timeline.map((t) => [t.fromState, t.toState, t.actorType])).toEqual([
        [null, "created", "api_client"],
        ["created", "processing", "system"],
      ]);
      expect(d.provider).toMatchObject({ state: "initiated", reference: null });

      const rc = await receipt(op.uid);
      expect(rc).toMatchObject({
        operationUid: op.uid,
        type: "payout_b2c",
        occurredAt: op.createdAt,
        totalDebitedMinor: AMOUNT + FEE + TAX,
        counterparty: { hint: "+2547******78" },
        references: { clientReference: "po-main", providerReference: null, journalUids: [journals[0]!.uid] },
        feeBreakdown: [
          { label: "Transfer fee", amountMinor: 2_500 },
          { label: "Levy", amountMinor: 750 },
          { label: "VAT", amountMinor: 400 },
        ],
        state: "processing",
      });
      expect(await eventsOf(op.uid)).toEqual([]);

      // The same key replays the stored 202 and posts nothing.
      const again = await post();
      expect(again.status).toBe(202);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(await again.text()).toBe(body);
      expect(await journalsOf(op.uid)).toHaveLength(1);
      expect((await balance()).heldMinor).toBe(AMOUNT);
      await expectBalanced();
    });

    it("pays out the largest amount whose total the available balance covers; one minor unit more is InsufficientFunds", async () => {
      // amount + feeOf(amount) + TAX == FUNDED exactly at 982 365 (levy 14 735).
      const exact = 982_365;
      expect(exact + feeOf(exact) + TAX).toBe(FUNDED);
      const over = await payout(payoutRequest({ amountMinor: exact + 1 }));
      expect(over.status).toBe(422);
      expect((await errorOf(over)).error).toBe("InsufficientFunds");
      // the amount alone is covered: it is the charges that are not
      const short = await payout(payoutRequest({ amountMinor: FUNDED - 1_000 }));
      expect((await errorOf(short)).error).toBe("InsufficientFunds");
      expect(await payoutCount()).toBe(0);
      expect(await balance()).toMatchObject({ availableMinor: FUNDED, heldMinor: 0 });

      await processingPayout(payoutRequest({ amountMinor: exact }));
      expect(await balance()).toMatchObject({ availableMinor: 0, heldMinor: exact });
      await expectBalanced();
    });

    it("one generic 422 for a rail not approved, unknown, inactive or unable to pay out; nothing moves", async () => {
      const bodies = new Set<string>();
      for (const railCode of ["sandbox_unapproved", "ghost", "nope", "sandbox_off", "sandbox_bank"]) {
        // a bad destination too: the rail is checked first
        const res = await payout(payoutRequest({ railCode, destinationIdentifierUid: documentUid }));
        expect(res.status, railCode).toBe(422);
        bodies.add(await res.text());
      }
      expect(bodies.size).toBe(1);
      const [only] = [...bodies];
      expect(JSON.parse(only!)).toMatchObject({ error: "UnprocessableEntity" });
      expect(only).not.toMatch(/sandbox|ghost|nope|inactive|payout/i);
      expect(await payoutCount()).toBe(0);
      expect(await balance()).toMatchObject({ availableMinor: FUNDED, heldMinor: 0 });
    });

    it("422 for a destination that is not a payout-eligible contact identifier of the wallet's customer", async () => {
      const pending = await h.call(acme, "POST", `${TENANT}/customers/${customerUid}/identifiers`, {
        body: {
          class: "contact",
          type: "email",
          value: "w.kamau@example.com",
          verificationStatus: "pending",
        },
      });
      expect(pending.status).toBe(201);
      const pendingUid = ((await pending.json()) as { uid: string }).uid;
      const stranger = await json(
        customerViewSchema,
        await h.call(acme, "POST", `${TENANT}/customers`, {
          body: onboardingBody(
            {
              identifiers: [
                {
                  class: "contact",
                  type: "msisdn",
                  value: "+254700000002",
                  isPrimary: true,
                  verificationStatus: "verified",
                },
              ],
            },
            "+254700000002",
          ),
        }),
        201,
      );
      for (const destinationIdentifierUid of [
        documentUid,
        pendingUid,
        stranger.identifiers[0]!.uid,
        "idn_missing",
      ]) {
        const res = await payout(payoutRequest({ destinationIdentifierUid }));
        expect(res.status, destinationIdentifierUid).toBe(422);
        expect(await errorOf(res)).toMatchObject({
          error: "UnprocessableEntity",
          details: [{ field: "destinationIdentifierUid" }],
        });
      }
      expect(await payoutCount()).toBe(0);
    });

    it("422 AssertionNotBoundToTransaction for a binding to another destination, amount or reference", async () => {
      const r = payoutRequest();
      for (const boundTo of [
        { ...r, destinationIdentifierUid: documentUid },
        { ...r, amountMinor: AMOUNT + 1 },
        { ...r, clientReference: "another" },
        // a binding with the target left empty (the rule for routes without one)
        { ...r, destinationIdentifierUid: "" },
      ]) {
        const res = await payout(r, { boundTo });
        expect(res.status).toBe(422);
        expect((await errorOf(res)).error).toBe("AssertionNotBoundToTransaction");
      }
      // above the two-factor threshold a binding is required
      const big = payoutRequest({ amountMinor: 200_000 });
      const unbound = await payout(big, { assertion: { transactionBinding: undefined } });
      expect((await errorOf(unbound)).error).toBe("AssertionNotBoundToTransaction");
      expect(await payoutCount()).toBe(0);
      // the very same request with the binding computed right is accepted
      await processingPayout(r);
    });

    it("the two-factor threshold: single_factor up to it, a second factor above it", async () => {
      const above = await payout(payoutRequest({ amountMinor: 100_001 }), {
        assertion: { assuranceLevel: "single_factor", factor2Type: undefined },
      });
      expect(above.status).toBe(422);
      expect((await errorOf(above)).error).toBe("AuthorizationInsufficient");
      expect(await payoutCount()).toBe(0);
      const at = await json(
        operationViewSchema,
        await payout(payoutRequest({ amountMinor: 100_000 }), {
          assertion: {
            assuranceLevel: "single_factor",
            factor2Type: undefined,
            transactionBinding: undefined,
          },
        }),
        202,
      );
      expect(at.amountMinor).toBe(100_000);
    });

    it("the KYC level's single-transaction limit, before funds", async () => {
      const res = await payout(payoutRequest({ amountMinor: 7_000_001 }));
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("LimitExceeded");
      expect(await payoutCount()).toBe(0);
    });

    it("404 for another tenant's wallet, 409 for a clientReference another payout holds", async () => {
      const theirs = await payout(payoutRequest(), { tenant: globex });
      expect(theirs.status).toBe(404);
      const r = payoutRequest({ clientReference: "dup" });
      await processingPayout(r);
      const dup = await payout({ ...r, amountMinor: AMOUNT + 1 });
      expect(dup.status).toBe(409);
      expect((await errorOf(dup)).error).toBe("Conflict");
      expect(await payoutCount()).toBe(1);
    });

    it("400 for malformed fields, naming each; nothing is created", async () => {
      const r = payoutRequest();
      const cases: [string, (b: Record<string, unknown>) => void][] = [
        ["railCode", (b) => (b.railCode = "r".repeat(65))],
        ["feeQuoteId", (b) => (b.feeQuoteId = "q".repeat(65))],
        ["clientReference", (b) => delete b.clientReference],
        ["assertion", (b) => delete b.assertion],
        [
          "assertion.factor1Type",
          (b) => ((b.assertion as Record<string, unknown>).factor1Type = "f".repeat(33)),
        ],
        [
          "assertion.assuranceLevel",
          (b) => ((b.assertion as Record<string, unknown>).assuranceLevel = "three"),
        ],
        ["amountMinor", (b) => (b.amountMinor = 1.5)],
        ["destination", (b) => (b.destination = "x")],
      ];
      for (const [field, mutate] of cases) {
        const body: Record<string, unknown> = { ...r, assertion: assertionFor(r) };
        mutate(body);
        const res = await h.call(acme, "POST", `${TENANT}/payouts`, { body });
        expect(res.status, field).toBe(400);
        expect((await errorOf(res)).details?.map((d) => d.field)).toContain(field);
      }
      expect(await payoutCount()).toBe(0);
    });
  });

  describe("fee quotes on payouts", () => {
    const quote = async (amountMinor = AMOUNT) =>
      json(
        feeQuoteViewSchema,
        await h.call(acme, "POST", `${TENANT}/fees/quote`, {
          body: { operationType: "payout_b2c", walletUid, amountMinor, currency: "KES", railCode: RAIL },
        }),
        200,
      );
    const quoteUsed = async (uid: string) => (await storedOperation(uid))?.details?.feeQuoteId ?? null;

    it("uses a valid quote issued for this request", async () => {
      const q = await quote();
      expect(q).toMatchObject({ feeMinor: FEE, taxMinor: TAX, totalMinor: AMOUNT + FEE + TAX });
      const op = await processingPayout(payoutRequest({ feeQuoteId: q.quoteId }));
      expect(op).toMatchObject({ feeMinor: FEE, taxMinor: TAX });
      expect(await quoteUsed(op.uid)).toBe(q.quoteId);
    });

    it("ignores a stale quote, one for another amount or an unknown id, computing the charges fresh", async () => {
      const forOther = await quote(AMOUNT + 10_000);
      const stale = await quote();
      h.clock.advanceMs(301_000);
      for (const feeQuoteId of [stale.quoteId, forOther.quoteId, "quo_unknown"]) {
        const op = await processingPayout(payoutRequest({ feeQuoteId }));
        expect(op).toMatchObject({ feeMinor: FEE, taxMinor: TAX });
        expect(await quoteUsed(op.uid)).toBeNull();
      }
      expect((await accounts("fees:acme")).get("fees:acme")).toBe(3 * FEE);
      await expectBalanced();
    });
  });

  describe("payout results through the operator API (phase 2)", () => {
    it("confirmed: the hold settles to the rail's clearing account; completed; payout.confirmed", async () => {
      const op = await processingPayout();
      const d = await json(operationDetailViewSchema, await report(op.uid, "confirmed", "PRV-1"), 200);
      expect(d).toMatchObject({
        uid: op.uid,
        state: "completed",
        provider: { state: "confirmed", reference: "PRV-1" },
      });
      expect(d.completedAt).not.toBeNull();
      expect(d.timeline.map((t) => [t.toState, t.actorType])).toEqual([
        ["created", "api_client"],
        ["processing", "system"],
        ["completed", "provider"],
      ]);
      // the tenant sees the same
      expect(await detail(op.uid)).toEqual(d);

      const journals = await journalsOf(op.uid);
      expect(journals).toHaveLength(2);
      expect(journals[1]!.entries).toEqual([
        { accountKey: `wallet:${walletUid}:hold`, amountMinor: -AMOUNT, label: "amount" },
        { accountKey: `rail:${RAIL}:clearing`, amountMinor: AMOUNT, label: "amount" },
      ]);
      const left = FUNDED - AMOUNT - FEE - TAX;
      expect(await balance()).toMatchObject({ heldMinor: 0, currentMinor: left, availableMinor: left });

      const events = await eventsOf(op.uid);
      expect(events.map((e) => [e.type, e.dedupKey])).toEqual([
        ["payout.confirmed", `${op.uid}:payout.confirmed:1`],
      ]);
      expect(JSON.parse(events[0]!.body).data.operation).toMatchObject({ uid: op.uid, state: "completed" });

      const rc = await receipt(op.uid);
      expect(rc).toMatchObject({
        state: "completed",
        occurredAt: d.completedAt,
        references: { providerReference: "PRV-1", journalUids: journals.map((j) => j.uid) },
      });
      expect(await receipt(op.uid)).toEqual(rc);

      // the same result again posts nothing; a contradicting one is 409
      expect(await json(operationDetailViewSchema, await report(op.uid, "confirmed", "PRV-1"), 200)).toEqual(
        d,
      );
      const contradiction = await report(op.uid, "failed");
      expect(contradiction.status).toBe(409);
      expect((await errorOf(contradiction)).error).toBe("Conflict");
      expect(await journalsOf(op.uid)).toHaveLength(2);
      expect(await eventsOf(op.uid)).toHaveLength(1);
      await expectBalanced();
    });

    it("failed: the amount and the refundable charges return; the levy is kept; payout.failed", async () => {
      const op = await processingPayout();
      const d = await json(operationDetailViewSchema, await report(op.uid, "failed", "PRV-2"), 200);
      expect(d).toMatchObject({ state: "failed", provider: { state: "failed", reference: "PRV-2" } });
      expect(d.completedAt).not.toBeNull();
      const w = `wallet:${walletUid}`;
      expect((await journalsOf(op.uid))[1]!.entries).toEqual([
        { accountKey: `${w}:hold`, amountMinor: -AMOUNT, label: "amount" },
        { accountKey: w, amountMinor: AMOUNT, label: "amount" },
        { accountKey: "fees:acme", amountMinor: -2_500, label: "Transfer fee" },
        { accountKey: w, amountMinor: 2_500, label: "Transfer fee" },
        { accountKey: "tax:acme", amountMinor: -400, label: "VAT" },
        { accountKey: w, amountMinor: 400, label: "VAT" },
      ]);
      expect(await balance()).toMatchObject({
        heldMinor: 0,
        currentMinor: FUNDED - 750,
        availableMinor: FUNDED - 750,
      });
      expect(Object.fromEntries(await accounts("fees:acme", "tax:acme", `rail:${RAIL}:clearing`))).toEqual({
        "fees:acme": 750,
        "tax:acme": 0,
        [`rail:${RAIL}:clearing`]: 0,
      });
      const events = await eventsOf(op.uid);
      expect(events.map((e) => e.type)).toEqual(["payout.failed"]);
      expect(JSON.parse(events[0]!.body).data.operation).toMatchObject({ uid: op.uid, state: "failed" });
      expect(await receipt(op.uid)).toMatchObject({
        state: "failed",
        references: { providerReference: "PRV-2" },
      });
      expect((await report(op.uid, "confirmed")).status).toBe(409);
      await expectBalanced();
    });

    it("uncertain: nothing moves and the payout stays processing until a later result; events in order", async () => {
      const op = await processingPayout();
      const before = await balance();
      const u = await json(operationDetailViewSchema, await report(op.uid, "uncertain"), 200);
      expect(u).toMatchObject({
        state: "processing",
        completedAt: null,
        provider: { state: "uncertain", reference: null },
      });
      expect(await journalsOf(op.uid)).toHaveLength(1);
      expect(await balance()).toMatchObject({
        heldMinor: before.heldMinor,
        currentMinor: before.currentMinor,
        availableMinor: before.availableMinor,
      });
      // a second uncertain says nothing new
      expect((await report(op.uid, "uncertain")).status).toBe(200);
      const done = await json(operationDetailViewSchema, await report(op.uid, "confirmed", "PRV-3"), 200);
      expect(done).toMatchObject({
        state: "completed",
        provider: { state: "confirmed", reference: "PRV-3" },
      });
      expect(done.timeline.map((t) => t.toState)).toEqual(["created", "processing", "completed"]);
      const events = await eventsOf(op.uid);
      expect(events.map((e) => [e.type, e.seq])).toEqual([
        ["payout.uncertain", 1],
        ["payout.confirmed", 2],
      ]);
      expect(events.map((e) => JSON.parse(e.body).data.operation.state)).toEqual(["processing", "completed"]);
      expect((await balance()).heldMinor).toBe(0);
      await expectBalanced();
    });

    it("404 for an unknown operation, another rail or an operation that is not a payout; 400 for a bad outcome; 401 without the token", async () => {
      const op = await processingPayout();
      const credit = (await run((tx) =>
        tx.operations.findByClientReference("acme", "wallet_credit", "fund"),
      ))!;
      for (const [uid, rail] of [
        ["op_missing", RAIL],
        [op.uid, "sandbox_bank"],
        [credit.uid, RAIL],
      ] as const) {
        const res = await report(uid, "confirmed", undefined, rail);
        expect(res.status, `${uid} ${rail}`).toBe(404);
        expect((await errorOf(res)).error).toBe("NotFound");
      }
      const bad = await report(op.uid, "settled");
      expect(bad.status).toBe(400);
      expect((await errorOf(bad)).details).toEqual([expect.objectContaining({ field: "outcome" })]);
      const longRef = await report(op.uid, "confirmed", "r".repeat(129));
      expect(longRef.status).toBe(400);
      const noToken = await h.admin(
        "POST",
        `${ADMIN}/rails/${RAIL}/payout-results`,
        { operationUid: op.uid, outcome: "confirmed" },
        "wrong",
      );
      expect(noToken.status).toBe(401);
      expect((await detail(op.uid)).state).toBe("processing");
    });
  });

  describe("top-up intents", () => {
    it("201 pending_provider with a 12-digit Luhn reference, an expiry and payer instructions; no money moves", async () => {
      const res = await intent({ clientReference: "tu-main" });
      expect(res.headers.get("Idempotent-Replayed")).toBe("false");
      const op = await json(topupViewSchema, res, 201);
      expect(op).toMatchObject({
        type: "topup_c2b",
        state: "pending_provider",
        amountMinor: 25_000,
        feeMinor: 0,
        taxMinor: 0,
        currency: "KES",
        clientReference: "tu-main",
        railCode: RAIL,
        completedAt: null,
      });
      expect(op.intentReference).toMatch(/^[0-9]{12}$/);
      expect(luhnValid(op.intentReference)).toBe(true);
      expect(op.payerInstructions).toBe(`Pay with reference ${op.intentReference}`);
      expect(Date.parse(op.expiresAt) - Date.parse(op.createdAt)).toBe(1_800_000);

      const d = await topupDetail(op.uid);
      expect(d).toMatchObject({
        uid: op.uid,
        state: "pending_provider",
        intentReference: op.intentReference,
        expiresAt: op.expiresAt,
        provider: { state: "pending", reference: null },
      });
      expect(d.timeline.map((t) => [t.fromState, t.toState])).toEqual([
        [null, "created"],
        ["created", "pending_provider"],
      ]);
      expect(await balance()).toMatchObject({ currentMinor: FUNDED, heldMinor: 0 });
      expect(await journalsOf(op.uid)).toEqual([]);
      // no receipt before money moved
      expect((await h.call(acme, "GET", `${TENANT}/operations/${op.uid}/receipt`)).status).toBe(404);
      await expectBalanced();
    });

    it("GET /topup-intents/{uid} is 404 for another tenant's intent and for an operation that is not an intent", async () => {
      const op = await pendingIntent();
      const payoutOp = await processingPayout();
      const theirs = await h.call(globex, "GET", `${TENANT}/topup-intents/${op.uid}`);
      const missing = await h.call(globex, "GET", `${TENANT}/topup-intents/op_missing`);
      expect(theirs.status).toBe(404);
      expect(await theirs.text()).toBe(await missing.text());
      expect((await h.call(acme, "GET", `${TENANT}/topup-intents/${payoutOp.uid}`)).status).toBe(404);
      const noScope = await seedTenant(store.uow, { id: "acme-writer", scopes: ["topup-intents:write"] });
      expect((await h.call(noScope, "GET", `${TENANT}/topup-intents/${op.uid}`)).status).toBe(403);
    });

    it("expiresInSeconds: 60 and 86400 accepted; outside or not an integer is 400; default the rail's lifetime, else 3600", async () => {
      for (const seconds of [60, 86_400]) {
        const op = await pendingIntent({ expiresInSeconds: seconds });
        expect(Date.parse(op.expiresAt) - Date.parse(op.createdAt)).toBe(seconds * 1000);
      }
      for (const bad of [59, 86_401, 0, -60, 600.5, "600", null]) {
        const res = await intent({ expiresInSeconds: bad });
        expect(res.status, String(bad)).toBe(400);
        expect((await errorOf(res)).details).toEqual([
          expect.objectContaining({ field: "expiresInSeconds" }),
        ]);
      }
      const fallback = await pendingIntent({ railCode: "sandbox_bank" });
      expect(Date.parse(fallback.expiresAt) - Date.parse(fallback.createdAt)).toBe(3_600_000);
      expect(fallback.payerInstructions).toBeNull();
    });

    it("the generic 422 for a rail that does not accept payments; 409 for a reused clientReference", async () => {
      const bodies = new Set<string>();
      for (const railCode of ["sandbox_collect_off", "sandbox_off", "sandbox_unapproved", "ghost"]) {
        const res = await intent({ railCode });
        expect(res.status, railCode).toBe(422);
        bodies.add(await res.text());
      }
      expect(bodies.size).toBe(1);
      await pendingIntent({ clientReference: "tu-dup" });
      const dup = await intent({ clientReference: "tu-dup" });
      expect(dup.status).toBe(409);
    });
  });

  describe("inbound payments", () => {
    it("a matching payment credits the wallet, completes the top-up and emits topup.confirmed", async () => {
      const op = await pendingIntent();
      const result = await payResult({
        reference: op.intentReference,
        amountMinor: 25_000,
        providerReference: "MPESA-1",
      });
      expect(result).toEqual({ matched: true, operationUid: op.uid, suspenseUid: null });
      const d = await topupDetail(op.uid);
      expect(d).toMatchObject({
        state: "completed",
        provider: { state: "confirmed", reference: "MPESA-1" },
        intentReference: op.intentReference,
      });
      expect(d.completedAt).not.toBeNull();
      expect(d.timeline.map((t) => [t.toState, t.actorType])).toEqual([
        ["created", "api_client"],
        ["pending_provider", "system"],
        ["completed", "provider"],
      ]);
      expect(await balance()).toMatchObject({
        currentMinor: FUNDED + 25_000,
        availableMinor: FUNDED + 25_000,
      });
      const journals = await journalsOf(op.uid);
      expect(journals.map((j) => j.entries)).toEqual([
        [
          { accountKey: `rail:${RAIL}:clearing`, amountMinor: -25_000, label: "amount" },
          { accountKey: `wallet:${walletUid}`, amountMinor: 25_000, label: "amount" },
        ],
      ]);
      const events = await eventsOf(op.uid);
      expect(events.map((e) => e.type)).toEqual(["topup.confirmed"]);
      expect(JSON.parse(events[0]!.body).data.operation).toMatchObject({
        uid: op.uid,
        state: "completed",
        intentReference: op.intentReference,
      });
      expect(await receipt(op.uid)).toMatchObject({
        type: "topup_c2b",
        state: "completed",
        amountMinor: 25_000,
        totalDebitedMinor: 25_000,
        references: { providerReference: "MPESA-1", journalUids: [journals[0]!.uid] },
      });
      // the same provider payment reported again later returns the first outcome
      expect(
        await payResult({ reference: op.intentReference, amountMinor: 25_000, providerReference: "MPESA-1" }),
      ).toEqual(result);
      expect((await balance()).currentMinor).toBe(FUNDED + 25_000);
      await expectBalanced();
    });

    it("wrong amount, wrong currency, unknown or malformed reference, expired: not credited, held in suspense", async () => {
      const op = await pendingIntent();
      const wrongAmount = await payResult({ reference: op.intentReference, amountMinor: 24_999 });
      const wrongCurrency = await payResult({
        reference: op.intentReference,
        amountMinor: 25_000,
        currency: "USD",
      });
      const unknown = await payResult({ reference: unknownReference(), amountMinor: 1_000 });
      const malformed = await payResult({ reference: "NOT-A-REF", amountMinor: 2_000 });
      for (const r of [wrongAmount, wrongCurrency, unknown, malformed]) {
        expect(r.matched).toBe(false);
        expect(r.operationUid).toBeNull();
        expect(r.suspenseUid).toEqual(expect.any(String));
      }
      // the intent still waits, and the right payment still matches it
      expect((await topupDetail(op.uid)).state).toBe("pending_provider");
      expect((await balance()).currentMinor).toBe(FUNDED);

      const late = await pendingIntent({ expiresInSeconds: 60 });
      h.clock.advanceMs(Date.parse(late.expiresAt) - h.clock.now().getTime());
      // at expiresAt, before the expiry job ran
      const expired = await payResult({ reference: late.intentReference, amountMinor: 25_000 });
      expect(expired.matched).toBe(false);
      expect((await topupDetail(late.uid)).state).toBe("pending_provider");

      const items = (await suspense()).data;
      const reasonOf = (uid: string | null) => items.find((i) => i.uid === uid)?.reason;
      expect(reasonOf(wrongAmount.suspenseUid)).toBe("amount_mismatch");
      expect(reasonOf(wrongCurrency.suspenseUid)).toBe("currency_mismatch");
      expect(reasonOf(unknown.suspenseUid)).toBe("unknown_reference");
      expect(reasonOf(malformed.suspenseUid)).toBe("invalid_reference");
      expect(reasonOf(expired.suspenseUid)).toBe("expired");
      expect(items.find((i) => i.uid === wrongAmount.suspenseUid)).toMatchObject({
        tenantId: "acme",
        status: "open",
        amountMinor: 24_999,
        reference: op.intentReference,
      });
      expect(items.find((i) => i.uid === unknown.suspenseUid)?.tenantId).toBeNull();
      expect(Object.fromEntries(await accounts(`suspense:${RAIL}`))).toEqual({
        [`suspense:${RAIL}`]: 24_999 + 1_000 + 2_000 + 25_000,
      });
      expect(
        (await run((tx) => tx.ledger.balances("USD", [`suspense:${RAIL}`]))).get(`suspense:${RAIL}`),
      ).toBe(25_000);

      const matched = await payResult({ reference: op.intentReference, amountMinor: 25_000 });
      expect(matched).toMatchObject({ matched: true, operationUid: op.uid });
      expect((await balance()).currentMinor).toBe(FUNDED + 25_000);
      // a second payment for an intent already paid goes to suspense too
      const twice = await payResult({ reference: op.intentReference, amountMinor: 25_000 });
      expect(twice.matched).toBe(false);
      expect((await balance()).currentMinor).toBe(FUNDED + 25_000);
      await expectBalanced();
    });

    it("400 for a malformed payment, 404 for a rail outside the catalog", async () => {
      for (const body of [
        { reference: "1", amountMinor: 0, currency: "KES", providerReference: "P" },
        { reference: "1", amountMinor: 10, currency: "kes", providerReference: "P" },
        { reference: "1", amountMinor: 10, currency: "KES" },
        { reference: "r".repeat(65), amountMinor: 10, currency: "KES", providerReference: "P" },
        { reference: "1", amountMinor: 10, currency: "KES", providerReference: "P", extra: true },
      ]) {
        expect((await h.admin("POST", `${ADMIN}/rails/${RAIL}/payments`, body)).status).toBe(400);
      }
      const res = await h.admin("POST", `${ADMIN}/rails/nope/payments`, {
        reference: unknownReference(),
        amountMinor: 10,
        currency: "KES",
        providerReference: "P",
      });
      expect(res.status).toBe(404);
      expect((await suspense()).data).toEqual([]);
    });

    it("the same provider payment reported in parallel is credited once", async () => {
      const op = await pendingIntent();
      const body = { reference: op.intentReference, amountMinor: 25_000, providerReference: "MPESA-TWIN" };
      const results = await Promise.all(Array.from({ length: 6 }, () => payResult(body)));
      for (const r of results) expect(r).toEqual({ matched: true, operationUid: op.uid, suspenseUid: null });
      expect(await journalsOf(op.uid)).toHaveLength(1);
      expect((await balance()).currentMinor).toBe(FUNDED + 25_000);
      expect((await eventsOf(op.uid)).map((e) => e.type)).toEqual(["topup.confirmed"]);

      // an unmatched one reported in parallel opens one suspense item
      const stray = {
        reference: unknownReference("99999999999"),
        amountMinor: 700,
        providerReference: "MPESA-STRAY",
      };
      const strays = await Promise.all(Array.from({ length: 6 }, () => payResult(stray)));
      expect(new Set(strays.map((r) => r.suspenseUid)).size).toBe(1);
      expect((await suspense()).data).toHaveLength(1);
      expect((await accounts(`suspense:${RAIL}`)).get(`suspense:${RAIL}`)).toBe(700);
      await expectBalanced();
    });

    it("a payment racing the expire-topups job: exactly one wins, every time", async () => {
      /**
       * The payment passes through the HTTP stack before its transaction opens, the job does not:
       * the job starts later by a varying delay, in microtask ticks (fine steps for the in-process
       * stores) then milliseconds (Postgres), so the two meet on both sides of the tipping point.
       */
      const JOB_DELAYS: Delay[] = [
        ...[0, 1, 2, 3, 4, 6, 8, 12, 20, 40].map((ticks) => ({ ticks })),
        ...[1, 2, 4, 8, 50].map((ms) => ({ ms })),
      ];
      const ROUNDS = 2 * JOB_DELAYS.length;
      const outcomes = { completed: 0, failed: 0 };
      let credited = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const op = await pendingIntent({ amountMinor: 1_000 + round, expiresInSeconds: 60 });
        // one second before expiresAt: the payment is in time; the job runs as of expiresAt
        h.clock.advanceMs(Date.parse(op.expiresAt) - h.clock.now().getTime() - 1_000);
        const payment = () => payResult({ reference: op.intentReference, amountMinor: op.amountMinor });
        const job = () => h.deps.uow.run((tx) => expireTopups(h.deps.core, tx, op.expiresAt, 100));
        const [result, expiredCount] = await Promise.all([
          payment(),
          after(JOB_DELAYS[round % JOB_DELAYS.length]!, job),
        ]);

        const d = await topupDetail(op.uid);
        const types = (await eventsOf(op.uid)).map((e) => e.type);
        if (d.state === "completed") {
          outcomes.completed++;
          credited += op.amountMinor;
          expect(result).toEqual({ matched: true, operationUid: op.uid, suspenseUid: null });
          expect(expiredCount).toBe(0);
          expect(types).toEqual(["topup.confirmed"]);
          expect(d.provider?.state).toBe("confirmed");
        } else {
          outcomes.failed++;
          expect(d.state).toBe("failed");
          expect(result.matched).toBe(false);
          expect(expiredCount).toBe(1);
          expect(types).toEqual(["topup.expired"]);
          const item = (await suspense()).data.find((i) => i.uid === result.suspenseUid);
          expect(item).toMatchObject({ reason: "expired", amountMinor: op.amountMinor, status: "open" });
          expect(await journalsOf(op.uid)).toEqual([]);
        }
        expect((await balance()).currentMinor).toBe(FUNDED + credited);
        await expectBalanced();
      }
      expect(outcomes.completed + outcomes.failed).toBe(ROUNDS);
      // Both sides won at least once: the rounds did meet on both sides of the tipping point.
      expect(outcomes.completed).toBeGreaterThan(0);
      expect(outcomes.failed).toBeGreaterThan(0);
      const open = (await suspense("?status=open")).data;
      expect(open).toHaveLength(outcomes.failed);
      expect((await accounts(`suspense:${RAIL}`)).get(`suspense:${RAIL}`)).toBe(
        open.reduce((s, i) => s + i.amountMinor, 0),
      );
    }, 120_000);

    it("the expire-topups job fails an unpaid intent with topup.expired; a later payment goes to suspense", async () => {
      const op = await pendingIntent({ expiresInSeconds: 60 });
      h.clock.advanceMs(61_000);
      const expired = await h.deps.uow.run((tx) =>
        expireTopups(h.deps.core, tx, h.clock.now().toISOString(), 100),
      );
      expect(expired).toBe(1);
      const d = await topupDetail(op.uid);
      expect(d).toMatchObject({ state: "failed", provider: { state: "failed" } });
      expect(d.timeline.map((t) => t.toState)).toEqual(["created", "pending_provider", "failed"]);
      const events = await eventsOf(op.uid);
      expect(events.map((e) => e.type)).toEqual(["topup.expired"]);
      expect(JSON.parse(events[0]!.body).data.operation).toMatchObject({ uid: op.uid, state: "failed" });
      // the job is idempotent
      expect(
        await h.deps.uow.run((tx) => expireTopups(h.deps.core, tx, h.clock.now().toISOString(), 100)),
      ).toBe(0);
      const late = await payResult({ reference: op.intentReference, amountMinor: op.amountMinor });
      expect(late.matched).toBe(false);
      expect((await balance()).currentMinor).toBe(FUNDED);
      await expectBalanced();
    });
  });

  describe("an intent held with its payment (the wallet could not receive it)", () => {
    it("holds, survives the expiry job, refuses a second payment, and completes when applied", async () => {
      const op = await pendingIntent({ expiresInSeconds: 60 });
      expect((await h.admin("PATCH", `${ADMIN}/wallets/${walletUid}`, { status: "frozen" })).status).toBe(
        200,
      );
      const held = await payResult({
        reference: op.intentReference,
        amountMinor: 25_000,
        providerReference: "H-1",
      });
      expect(held).toMatchObject({ matched: false, operationUid: null });
      expect(await topupDetail(op.uid)).toMatchObject({
        state: "held",
        provider: { state: "confirmed", reference: "H-1" },
      });
      expect((await h.admin("PATCH", `${ADMIN}/wallets/${walletUid}`, { status: "active" })).status).toBe(
        200,
      );
      const second = await payResult({ reference: op.intentReference, amountMinor: 25_000 });
      expect(second.matched).toBe(false);
      h.clock.advanceMs(120_000);
      const job = await h.admin("POST", `${ADMIN}/jobs/expire-topups/run`, {});
      expect(await job.json()).toMatchObject({ processed: 0 });
      expect((await topupDetail(op.uid)).state).toBe("held");
      expect((await balance()).currentMinor).toBe(FUNDED);

      const item = await json(
        suspenseItemViewSchema,
        await resolve(held.suspenseUid!, { action: "apply", walletUid }),
        200,
      );
      expect(item.resolution).toEqual({ action: "apply", walletUid, operationUid: op.uid });
      expect(await topupDetail(op.uid)).toMatchObject({
        state: "completed",
        clientReference: op.clientReference,
        provider: { state: "reconciled", reference: "H-1" },
      });
      expect((await balance()).currentMinor).toBe(FUNDED + 25_000);
      expect((await eventsOf(op.uid)).map((e) => e.type)).toEqual(["topup.confirmed"]);
      // The second payment stays in suspense for the operator to refund.
      expect((await suspense("?status=open")).data.map((i) => [i.uid, i.reason])).toEqual([
        [second.suspenseUid, "intent_closed"],
      ]);
      await expectBalanced();
    });
  });

  it("applying a held intent with charges racing another payment of the tenant: no deadlock (10 rounds)", async () => {
    h.deps.core.catalog = {
      ...railCatalog,
      feeSchedules: [
        ...railCatalog.feeSchedules,
        {
          ruleCode: "topup_std",
          versionNo: 1,
          operationType: "topup_c2b",
          railCode: null,
          currency: "KES",
          components: [
            { label: "Collection fee", type: "flat", amountMinor: 100, refundable: false },
            { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Collection fee", refundable: false },
          ],
        },
      ],
    };
    const base = onboardingBody({}, "+254712345699");
    const bob = await json(
      customerViewSchema,
      await h.call(acme, "POST", `${TENANT}/customers`, {
        body: {
          ...base,
          identifiers: [base.identifiers[0], { ...base.identifiers[1], value: "87654321" }],
          kyc: { ...base.kyc, sourceReference: "kyc-ref-2" },
        },
      }),
      201,
    );
    for (let round = 0; round < 10; round++) {
      const held = await pendingIntent();
      const other = await pendingIntent({ walletUid: bob.walletUid });
      await h.admin("PATCH", `${ADMIN}/wallets/${walletUid}`, { status: "frozen" });
      const item = await payResult({ reference: held.intentReference, amountMinor: 25_000 });
      await h.admin("PATCH", `${ADMIN}/wallets/${walletUid}`, { status: "active" });
      const [applied, paid] = await Promise.all([
        resolve(item.suspenseUid!, { action: "apply", walletUid }),
        pay({ reference: other.intentReference, amountMinor: 25_000 }),
      ]);
      expect([applied.status, paid.status], `round ${round}`).toEqual([200, 200]);
    }
    await expectBalanced();
  });

  describe("suspense: list and resolve", () => {
    const openItems = async () => {
      const op = await pendingIntent();
      const named = await payResult({ reference: op.intentReference, amountMinor: 5_000 });
      const stray = await payResult({ reference: unknownReference(), amountMinor: 7_000 });
      return { op, named: named.suspenseUid!, stray: stray.suspenseUid! };
    };

    it("lists items oldest first, optionally by status; 400 for an unknown status", async () => {
      const { named, stray } = await openItems();
      const all = await suspense();
      expect(all.data.map((i) => i.uid)).toEqual([named, stray]);
      expect(all.data[0]).toMatchObject({
        railCode: RAIL,
        tenantId: "acme",
        amountMinor: 5_000,
        currency: "KES",
        reason: "amount_mismatch",
        status: "open",
        resolvedAt: null,
        resolution: null,
      });
      expect((await suspense("?status=open")).data).toHaveLength(2);
      expect((await suspense("?status=refunded")).data).toEqual([]);
      const bad = await h.admin("GET", `${ADMIN}/suspense?status=lost`);
      expect(bad.status).toBe(400);
      expect((await errorOf(bad)).details).toEqual([expect.objectContaining({ field: "status" })]);
    });

    it("refund: suspense -> rail clearing; the item is refunded and cannot be resolved again", async () => {
      const { stray } = await openItems();
      const before = await accounts(`suspense:${RAIL}`, `rail:${RAIL}:clearing`);
      const item = await json(suspenseItemViewSchema, await resolve(stray, { action: "refund" }), 200);
      expect(item).toMatchObject({
        uid: stray,
        status: "refunded",
        resolution: { action: "refund", walletUid: null, operationUid: null },
      });
      expect(item.resolvedAt).not.toBeNull();
      const after = await accounts(`suspense:${RAIL}`, `rail:${RAIL}:clearing`);
      expect(after.get(`suspense:${RAIL}`)).toBe(before.get(`suspense:${RAIL}`)! - 7_000);
      expect(after.get(`rail:${RAIL}:clearing`)).toBe(before.get(`rail:${RAIL}:clearing`)! + 7_000);
      expect((await balance()).currentMinor).toBe(FUNDED);

      const again = await resolve(stray, { action: "apply", walletUid });
      expect(again.status).toBe(409);
      expect((await errorOf(again)).error).toBe("Conflict");
      expect((await suspense("?status=refunded")).data.map((i) => i.uid)).toEqual([stray]);
      await expectBalanced();
    });

    it("apply: suspense -> wallet as a completed top-up with topup.confirmed and a receipt", async () => {
      const { named } = await openItems();
      const item = await json(
        suspenseItemViewSchema,
        await resolve(named, { action: "apply", walletUid }),
        200,
      );
      expect(item).toMatchObject({ status: "applied", resolution: { action: "apply", walletUid } });
      const opUid = item.resolution!.operationUid!;
      const d = await detail(opUid);
      expect(d).toMatchObject({
        type: "topup_c2b",
        state: "completed",
        amountMinor: 5_000,
        provider: { state: "reconciled" },
      });
      expect((await journalsOf(opUid)).map((j) => j.entries)).toEqual([
        [
          { accountKey: `suspense:${RAIL}`, amountMinor: -5_000, label: "amount" },
          { accountKey: `wallet:${walletUid}`, amountMinor: 5_000, label: "amount" },
        ],
      ]);
      expect((await balance()).currentMinor).toBe(FUNDED + 5_000);
      expect((await eventsOf(opUid)).map((e) => e.type)).toEqual(["topup.confirmed"]);
      expect(await receipt(opUid)).toMatchObject({ state: "completed", amountMinor: 5_000 });
      expect((await accounts(`suspense:${RAIL}`)).get(`suspense:${RAIL}`)).toBe(7_000);
      expect((await resolve(named, { action: "refund" })).status).toBe(409);
      await expectBalanced();
    });

    it("refuses: 404 unknown item or wallet, 422 another tenant's wallet for a payment naming acme, 400 bad bodies", async () => {
      const { named } = await openItems();
      expect((await resolve("sus_missing", { action: "refund" })).status).toBe(404);
      expect((await resolve(named, { action: "apply", walletUid: "wal_missing" })).status).toBe(404);

      const other = await json(
        customerViewSchema,
        await h.call(globex, "POST", `${TENANT}/customers`, { body: onboardingBody({}, "+254700000009") }),
        201,
      );
      const foreign = await resolve(named, { action: "apply", walletUid: other.walletUid });
      expect(foreign.status).toBe(422);
      expect((await errorOf(foreign)).error).toBe("UnprocessableEntity");

      for (const body of [
        { action: "burn" },
        { action: "apply" },
        { action: "refund", walletUid },
        {},
        { action: "apply", walletUid: "" },
      ]) {
        expect((await resolve(named, body)).status, JSON.stringify(body)).toBe(400);
      }
      expect((await suspense("?status=open")).data.map((i) => i.uid)).toContain(named);
      expect((await balance(other.walletUid, globex)).currentMinor).toBe(0);
      await expectBalanced();
    });
  });
});
