import { readFileSync } from "node:fs";
import { bindingCanonical } from "@wallet/ledger-core";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mandateViewSchema } from "../src/mandates/schemas.js";
import {
  operationDetailViewSchema,
  operationViewSchema,
  receiptViewSchema,
} from "../src/operations/schemas.js";
import {
  createHarness,
  type Harness,
  type SeededTenant,
  seedTenant,
  sha256Hex,
  TENANT,
} from "./support/fixture.js";
import {
  BINDING_CANONICAL_TEMPLATE,
  bindingCanonicalOf,
  bindingOf,
  type CustomerView,
  errorOf,
  type MandateView,
  type MandateWorld,
  mandateWorld,
  WEBHOOK,
} from "./support/mandate-world.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

interface BindingVector {
  route: string;
  customerUid: string;
  walletUid: string;
  amountMinor: number;
  currency: string;
  target: string;
  clientReference: string;
  canonical: string;
  hash: string;
}

const vectors = (
  JSON.parse(
    readFileSync(new URL("../../../docs/vectors/transaction-binding.json", import.meta.url), "utf8"),
  ) as { cases: BindingVector[] }
).cases;

/** Above the tier_1 two-factor threshold (100 000): needs two_factor and a binding. */
const ABOVE_THRESHOLD = 150_000;

describe("transaction binding vectors (docs/vectors/transaction-binding.json)", () => {
  it.each(vectors.map((c) => [c.route, c] as const))("%s", (_route, c) => {
    // Computed here with node:crypto, then compared with the vector and with the core's canonical.
    expect(bindingCanonicalOf(c)).toBe(c.canonical);
    expect(sha256Hex(Buffer.from(c.canonical, "utf8"))).toBe(c.hash);
    expect(bindingOf(c)).toEqual({
      hash: c.hash,
      algorithm: "sha256",
      canonical: BINDING_CANONICAL_TEMPLATE,
    });
    expect(
      bindingCanonical({ ...c, clientReference: c.clientReference === "" ? null : c.clientReference }),
    ).toBe(c.canonical);
  });
});

/** Wallet debits over HTTP (issue 5): one suite, every store. */
describe.each(storeKinds())("wallet debits (issue 5) on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let w: MandateWorld;
  let acme: SeededTenant;
  let globex: SeededTenant;
  let alice: CustomerView;
  let bob: CustomerView;
  let gina: CustomerView;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    w = mandateWorld(h);
    acme = await seedTenant(store.uow, { id: "acme", webhook: WEBHOOK });
    globex = await seedTenant(store.uow, { id: "globex", webhook: WEBHOOK });
    await w.fundPrefund("acme", 50_000_000);
    await w.fundPrefund("globex", 50_000_000);
    alice = await w.onboard(acme, "+254722000001", "22000001");
    bob = await w.onboard(acme, "+254722000002", "22000002");
    gina = await w.onboard(globex, "+254722000003", "22000003");
  });
  afterEach(async () => {
    await store.close();
  });

  const parseOperation = async (res: Response) => v.parse(operationViewSchema, await res.json());

  /** What a refused request must leave untouched: the tenant's operations, the balance, the events. */
  const snapshot = async (c: CustomerView) => ({
    operations: (await w.operations(acme)).data.map((o) => [o.uid, o.state]),
    balance: await w.balance(acme, c.walletUid),
    events: (await w.events("acme")).length,
  });

  describe("POST /wallet-debits", () => {
    it("a bound debit above the threshold completes: wallet debited, wallet_debit.completed, no frequency check", async () => {
      await w.credit(acme, alice.walletUid, 1_000_000);
      const m = await w.createMandate(acme, alice);
      const res = await w.debit(
        acme,
        w.debitBody(alice, m, ABOVE_THRESHOLD, { clientReference: "bill-nov" }),
      );
      expect(res.status).toBe(201);
      expect(res.headers.get("Idempotent-Replayed")).toBe("false");
      const op = await parseOperation(res);
      expect(op).toMatchObject({
        type: "wallet_debit",
        state: "completed",
        amountMinor: ABOVE_THRESHOLD,
        feeMinor: 0,
        taxMinor: 0,
        currency: "KES",
        clientReference: "bill-nov",
        completedAt: expect.any(String),
      });
      // A monthly mandate, and a second debit in the same month: no frequency check on this route.
      const second = await w.debit(acme, w.debitBody(alice, m, 50_000));
      expect(second.status).toBe(201);
      const secondUid = (await parseOperation(second)).uid;
      expect(await w.balance(acme, alice.walletUid)).toMatchObject({
        currentMinor: 800_000,
        heldMinor: 0,
        availableMinor: 800_000,
      });

      const detail = await h.call(acme, "GET", `${TENANT}/operations/${op.uid}`);
      expect(detail.status).toBe(200);
      const timeline = v.parse(operationDetailViewSchema, await detail.json()).timeline;
      expect(timeline.map((t) => [t.fromState, t.toState])).toEqual([
        [null, "created"],
        ["created", "completed"],
      ]);
      const completed = (await w.events("acme")).filter((e) => e.type === "wallet_debit.completed");
      expect(completed.map((e) => e.resourceUid)).toEqual([op.uid, secondUid]);
      expect(completed[0]!.body.data.operation).toMatchObject({ uid: op.uid, state: "completed" });
      expect((await w.trialBalance()).balanced).toBe(true);
    });

    it("replays the stored answer for the same Idempotency-Key; another request under it is 422", async () => {
      await w.credit(acme, alice.walletUid, 100_000);
      const m = await w.createMandate(acme, alice);
      const body = w.debitBody(alice, m, 10_000);
      const first = await w.debit(acme, body, "debit-once");
      const again = await w.debit(acme, body, "debit-once");
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(await again.text()).toBe(await first.text());
      const other = await w.debit(acme, w.debitBody(alice, m, 20_000), "debit-once");
      expect(other.status).toBe(422);
      expect((await errorOf(other)).error).toBe("IdempotencyKeyReused");
      expect((await w.balance(acme, alice.walletUid)).availableMinor).toBe(90_000);
    });

    it("insufficient funds: 422 InsufficientFunds, all or nothing (no operation, no event)", async () => {
      await w.credit(acme, alice.walletUid, 9_999);
      const m = await w.createMandate(acme, alice);
      const before = await snapshot(alice);
      const res = await w.debit(acme, w.debitBody(alice, m, 10_000, { clientReference: "short-1" }));
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("InsufficientFunds");
      expect(await snapshot(alice)).toEqual(before);
      // The clientReference was not consumed.
      await w.credit(acme, alice.walletUid, 1);
      expect(
        (await w.debit(acme, w.debitBody(alice, m, 10_000, { clientReference: "short-1" }))).status,
      ).toBe(201);
      expect((await w.balance(acme, alice.walletUid)).availableMinor).toBe(0);
    });

    it("refuses mandates that do not cover the request, the amount rule, currency, a reused clientReference", async () => {
      await w.credit(acme, alice.walletUid, 1_000_000);
      await w.credit(acme, bob.walletUid, 1_000_000);
      const upTo = await w.createMandate(acme, alice, { fixedOrMaxAmountMinor: 50_000 });
      const fixed = await w.createMandate(acme, alice, {
        amountRule: "fixed",
        fixedOrMaxAmountMinor: 25_000,
      });
      const bobs = await w.createMandate(acme, bob);
      const pending = await w.createMandate(acme, alice, { validFrom: "2027-01-01T00:00:00.000Z" });
      const revoked = await w.createMandate(acme, alice);
      expect((await w.revoke(acme, revoked.uid, { reason: "closed" })).status).toBe(200);
      const ginas = await w.createMandate(globex, gina);
      const done = await w.debit(acme, w.debitBody(alice, upTo, 10_000, { clientReference: "used-ref" }));
      expect(done.status).toBe(201);
      const before = await snapshot(alice);

      const cases: [string, Record<string, unknown>, number, string][] = [
        ["above the up_to maximum", w.debitBody(alice, upTo, 50_001), 422, "UnprocessableEntity"],
        ["not the fixed amount", w.debitBody(alice, fixed, 25_001), 422, "UnprocessableEntity"],
        ["another customer's mandate", w.debitBody(alice, bobs, 10_000), 422, "UnprocessableEntity"],
        ["a pending mandate", w.debitBody(alice, pending, 10_000), 422, "UnprocessableEntity"],
        ["a revoked mandate", w.debitBody(alice, revoked, 10_000), 422, "UnprocessableEntity"],
        [
          "currency",
          { ...w.debitBody(alice, upTo, 10_000, { bind: { currency: "UGX" } }), currency: "UGX" },
          422,
          "CurrencyMismatch",
        ],
        [
          "a reused clientReference",
          w.debitBody(alice, upTo, 10_000, { clientReference: "used-ref" }),
          409,
          "Conflict",
        ],
        ["another tenant's mandate", w.debitBody(alice, ginas, 10_000), 404, "NotFound"],
        [
          "an unknown mandate",
          { ...w.debitBody(alice, upTo, 10_000), mandateUid: "man_nobody" },
          404,
          "NotFound",
        ],
        [
          "another tenant's wallet",
          { ...w.debitBody(alice, upTo, 10_000), walletUid: gina.walletUid },
          404,
          "NotFound",
        ],
      ];
      for (const [label, body, status, code] of cases) {
        const res = await w.debit(acme, body);
        expect([label, res.status, (await errorOf(res)).error]).toEqual([label, status, code]);
      }
      expect(await snapshot(alice)).toEqual(before);
    });

    it("validates the body: assertion required, strict, integer amounts (400 naming the field)", async () => {
      const m = await w.createMandate(acme, alice);
      const body = w.debitBody(alice, m, 10_000);
      for (const [mutated, field] of [
        [{ ...body, assertion: undefined }, "assertion"],
        [{ ...body, amountMinor: 10.5 }, "amountMinor"],
        [{ ...body, amountMinor: "10000" }, "amountMinor"],
        [{ ...body, mandateUid: undefined }, "mandateUid"],
        [{ ...body, note: "x" }, "note"],
        [{ ...body, assertion: { ...body.assertion, channelCode: "c".repeat(41) } }, "assertion.channelCode"],
      ] as const) {
        const res = await w.debit(acme, mutated);
        expect([field, res.status]).toEqual([field, 400]);
        expect((await errorOf(res)).details?.map((d) => d.field)).toEqual([field]);
      }
    });
  });

  describe("transaction binding on POST /wallet-debits (target mandateUid)", () => {
    let m: MandateView;
    beforeEach(async () => {
      await w.credit(acme, alice.walletUid, 1_000_000);
      m = await w.createMandate(acme, alice);
    });

    it("refuses a binding that differs from the request in any of the six values; nothing is created", async () => {
      const before = await snapshot(alice);
      for (const bind of [
        { customerUid: bob.uid },
        { walletUid: bob.walletUid },
        { amountMinor: ABOVE_THRESHOLD + 1 },
        { currency: "UGX" },
        { target: "" },
        { target: bob.walletUid },
        { clientReference: "another-ref" },
        { clientReference: "" },
      ]) {
        const res = await w.debit(
          acme,
          w.debitBody(alice, m, ABOVE_THRESHOLD, { clientReference: "bound-1", bind }),
        );
        expect([bind, res.status]).toEqual([bind, 422]);
        expect([bind, (await errorOf(res)).error]).toEqual([bind, "AssertionNotBoundToTransaction"]);
      }
      // Not the literal template, or not lower-case hex: refused as unbound too.
      const good = w.debitBody(alice, m, ABOVE_THRESHOLD, { clientReference: "bound-1" });
      const binding = good.assertion.transactionBinding as { hash: string; canonical: string };
      for (const transactionBinding of [
        {
          ...binding,
          canonical: bindingCanonicalOf({
            customerUid: alice.uid,
            walletUid: alice.walletUid,
            amountMinor: ABOVE_THRESHOLD,
            currency: "KES",
            target: m.uid,
            clientReference: "bound-1",
          }),
        },
        { ...binding, hash: binding.hash.toUpperCase() },
      ]) {
        const res = await w.debit(acme, { ...good, assertion: { ...good.assertion, transactionBinding } });
        expect(res.status).toBe(422);
        expect((await errorOf(res)).error).toBe("AssertionNotBoundToTransaction");
      }
      // Above the threshold a binding is required.
      const unbound = w.debitBody(alice, m, ABOVE_THRESHOLD, { clientReference: "bound-1" });
      const res = await w.debit(acme, {
        ...unbound,
        assertion: { ...unbound.assertion, transactionBinding: undefined },
      });
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("AssertionNotBoundToTransaction");
      expect(await snapshot(alice)).toEqual(before);

      // The very request, bound as the spec says, goes through with the same clientReference.
      const ok = await w.debit(acme, w.debitBody(alice, m, ABOVE_THRESHOLD, { clientReference: "bound-1" }));
      expect(ok.status).toBe(201);
    });

    it("at or below the threshold a binding is optional, but one that is sent must match", async () => {
      const plain = w.debitBody(alice, m, 100_000);
      const unbound = await w.debit(acme, {
        ...plain,
        assertion: { ...plain.assertion, transactionBinding: undefined },
      });
      expect(unbound.status).toBe(201);
      const wrong = await w.debit(acme, w.debitBody(alice, m, 100_000, { bind: { amountMinor: 99_999 } }));
      expect(wrong.status).toBe(422);
      expect((await errorOf(wrong)).error).toBe("AssertionNotBoundToTransaction");
      // single_factor is enough at the threshold.
      const single = w.debitBody(alice, m, 100_000, {
        assertion: { assuranceLevel: "single_factor", factor2Type: undefined },
      });
      expect((await w.debit(acme, single)).status).toBe(201);
    });
  });

  describe("assertion refusals on POST /wallet-debits (spec, refusals table): 422, nothing created", () => {
    let m: MandateView;
    beforeEach(async () => {
      await w.credit(acme, alice.walletUid, 1_000_000);
      m = await w.createMandate(acme, alice);
    });

    const rows: [string, (now: number) => Record<string, unknown>, string][] = [
      [
        "expired",
        (now) => ({
          authenticatedAt: new Date(now - 300_000).toISOString(),
          expiresAt: new Date(now - 1_000).toISOString(),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "expiring at the instant it arrives",
        (now) => ({
          authenticatedAt: new Date(now - 300_000).toISOString(),
          expiresAt: new Date(now).toISOString(),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "lifetime over 10 minutes",
        (now) => ({
          authenticatedAt: new Date(now - 60_000).toISOString(),
          expiresAt: new Date(now - 60_000 + 600_001).toISOString(),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "expiresAt not after authenticatedAt",
        (now) => ({
          authenticatedAt: new Date(now + 60_000).toISOString(),
          expiresAt: new Date(now + 60_000).toISOString(),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "second factor required (single_factor above the threshold)",
        () => ({ assuranceLevel: "single_factor", factor2Type: undefined }),
        "AuthorizationInsufficient",
      ],
    ];
    it.each(rows)("%s -> %s", async (_label, overrides, code) => {
      const before = await snapshot(alice);
      // The clock moves one second before the request is signed; the assertion is judged then.
      const now = h.clock.now().getTime() + 1_000;
      const body = w.debitBody(alice, m, ABOVE_THRESHOLD, {
        clientReference: "row-1",
        assertion: overrides(now),
      });
      const res = await w.debit(acme, body);
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe(code);
      expect(await snapshot(alice)).toEqual(before);
      expect((await w.operations(acme, "&type=wallet_debit")).meta.total).toBe(0);
    });

    it("a lifetime of exactly 10 minutes is accepted", async () => {
      const now = h.clock.now().getTime() + 1_000;
      const body = w.debitBody(alice, m, ABOVE_THRESHOLD, {
        assertion: {
          authenticatedAt: new Date(now - 60_000).toISOString(),
          expiresAt: new Date(now - 60_000 + 600_000).toISOString(),
        },
      });
      expect((await w.debit(acme, body)).status).toBe(201);
    });

    it("identifierUid not the customer's -> UnprocessableEntity; nothing created", async () => {
      const before = await snapshot(alice);
      for (const identifierUid of [bob.identifiers[0]!.uid, gina.identifiers[0]!.uid, "idn_nobody"]) {
        const res = await w.debit(
          acme,
          w.debitBody(alice, m, ABOVE_THRESHOLD, { assertion: { identifierUid } }),
        );
        expect(res.status).toBe(422);
        expect((await errorOf(res)).error).toBe("UnprocessableEntity");
      }
      expect(await snapshot(alice)).toEqual(before);
      const own = w.debitBody(alice, m, ABOVE_THRESHOLD, {
        assertion: { identifierUid: alice.identifiers[1]!.uid },
      });
      expect((await w.debit(acme, own)).status).toBe(201);
    });

    it("assertion for another customer -> UnprocessableEntity", async () => {
      const body = w.debitBody(alice, m, 10_000);
      const res = await w.debit(acme, { ...body, assertion: w.assertion(bob.uid) });
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("UnprocessableEntity");
    });

    it("sourceReference live for another customer -> UnprocessableEntity, nothing created; the same customer may reuse it", async () => {
      await w.credit(acme, bob.walletUid, 100_000);
      const bobs = await w.createMandate(acme, bob);
      const shared = { sourceReference: "login-5c1e" };
      expect((await w.debit(acme, w.debitBody(bob, bobs, 10_000, { assertion: shared }))).status).toBe(201);
      const before = await snapshot(alice);
      const res = await w.debit(acme, w.debitBody(alice, m, 10_000, { assertion: shared }));
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("UnprocessableEntity");
      expect(await snapshot(alice)).toEqual(before);
      expect((await w.debit(acme, w.debitBody(bob, bobs, 10_000, { assertion: shared }))).status).toBe(201);
    });
  });

  describe("POST /mandates/{uid}/debits", () => {
    it("refuses an assertion: the body has no such field (400 unknown field)", async () => {
      await w.credit(acme, alice.walletUid, 100_000);
      const m = await w.createMandate(acme, alice, { frequency: "ad_hoc" });
      const res = await w.mandateDebit(acme, m, 10_000, { assertion: w.assertion(alice.uid) });
      expect(res.status).toBe(400);
      expect((await errorOf(res)).details).toEqual([{ field: "assertion", issue: "unknown field" }]);
      expect((await w.operations(acme, "&type=wallet_debit")).meta.total).toBe(0);
    });

    it("debits on the standing mandate alone: completed, wallet_debit.completed, journal balanced", async () => {
      await w.credit(acme, alice.walletUid, 100_000);
      const m = await w.createMandate(acme, alice, {
        frequency: "ad_hoc",
        amountRule: "fixed",
        fixedOrMaxAmountMinor: 40_000,
      });
      const res = await w.mandateDebit(acme, m, 40_000, { clientReference: "sub-1" });
      expect(res.status).toBe(201);
      const op = await parseOperation(res);
      expect(op).toMatchObject({
        type: "wallet_debit",
        state: "completed",
        amountMinor: 40_000,
        clientReference: "sub-1",
      });
      expect((await w.balance(acme, alice.walletUid)).availableMinor).toBe(60_000);
      expect(
        (await w.events("acme")).filter((e) => e.type === "wallet_debit.completed").map((e) => e.resourceUid),
      ).toEqual([op.uid]);
      expect((await w.trialBalance()).balanced).toBe(true);
    });

    it("refuses another wallet, the amount rule, currency, another tenant's mandate, a reused clientReference", async () => {
      await w.credit(acme, alice.walletUid, 100_000);
      const m = await w.createMandate(acme, alice, { frequency: "ad_hoc", fixedOrMaxAmountMinor: 30_000 });
      const ginas = await w.createMandate(globex, gina, { frequency: "ad_hoc" });
      expect((await w.mandateDebit(acme, m, 10_000, { clientReference: "used" })).status).toBe(201);
      const before = await snapshot(alice);
      for (const [label, res, status, code] of [
        [
          "another wallet",
          await w.mandateDebit(acme, m, 10_000, { walletUid: bob.walletUid }),
          422,
          "UnprocessableEntity",
        ],
        ["above the maximum", await w.mandateDebit(acme, m, 30_001), 422, "UnprocessableEntity"],
        ["currency", await w.mandateDebit(acme, m, 10_000, { currency: "UGX" }), 422, "CurrencyMismatch"],
        ["another tenant's mandate", await w.mandateDebit(acme, ginas, 10_000), 404, "NotFound"],
        [
          "reused clientReference",
          await w.mandateDebit(acme, m, 10_000, { clientReference: "used" }),
          409,
          "Conflict",
        ],
      ] as const) {
        expect([label, res.status, (await errorOf(res)).error]).toEqual([label, status, code]);
      }
      expect(await snapshot(alice)).toEqual(before);
    });

    it("monthly: a second debit in the calendar month is 422 MandateFrequencyExceeded; the next month is allowed", async () => {
      await w.credit(acme, alice.walletUid, 200_000);
      const m = await w.createMandate(acme, alice, { frequency: "monthly" });
      expect((await w.mandateDebit(acme, m, 50_000)).status).toBe(201);
      const before = await snapshot(alice);
      const second = await w.mandateDebit(acme, m, 50_000);
      expect(second.status).toBe(422);
      expect((await errorOf(second)).error).toBe("MandateFrequencyExceeded");
      expect(await snapshot(alice)).toEqual(before);
      // To 2026-12-01T00:00:00Z, the start of the next UTC month.
      h.clock.set("2026-12-01T00:00:00.000Z");
      expect((await w.mandateDebit(acme, m, 50_000)).status).toBe(201);
      expect((await w.mandateDebit(acme, m, 50_000)).status).toBe(422);
    });

    it("weekly: ISO weeks start on Monday (UTC)", async () => {
      await w.credit(acme, alice.walletUid, 200_000);
      const m = await w.createMandate(acme, alice, { frequency: "weekly" });
      // 2026-11-22 is a Sunday: the week that started on Monday the 16th.
      expect(new Date(h.clock.now()).getUTCDay()).toBe(0);
      expect((await w.mandateDebit(acme, m, 10_000)).status).toBe(201);
      // The request moves the clock one second: it is signed and handled on Monday 00:00:00.
      h.clock.set("2026-11-22T23:59:59.000Z");
      expect((await w.mandateDebit(acme, m, 10_000)).status).toBe(201);
      expect((await w.mandateDebit(acme, m, 10_000)).status).toBe(422);
    });

    it("daily: one debit per UTC day", async () => {
      await w.credit(acme, alice.walletUid, 200_000);
      const m = await w.createMandate(acme, alice, { frequency: "daily" });
      expect((await w.mandateDebit(acme, m, 10_000)).status).toBe(201);
      expect((await w.mandateDebit(acme, m, 10_000)).status).toBe(422);
      h.clock.advanceMs(24 * 3600 * 1000);
      expect((await w.mandateDebit(acme, m, 10_000)).status).toBe(201);
    });

    it("underfunded: 201 with state failed, wallet_debit.failed, nothing moved; the failed attempt does not consume the period", async () => {
      await w.credit(acme, alice.walletUid, 20_000);
      const m = await w.createMandate(acme, alice, { frequency: "monthly" });
      const res = await w.mandateDebit(acme, m, 30_000, { clientReference: "nov-try-1" });
      expect(res.status).toBe(201);
      const failed = await parseOperation(res);
      expect(failed).toMatchObject({
        state: "failed",
        amountMinor: 30_000,
        feeMinor: 0,
        taxMinor: 0,
        completedAt: expect.any(String),
      });
      expect(await w.balance(acme, alice.walletUid)).toMatchObject({
        currentMinor: 20_000,
        availableMinor: 20_000,
      });
      expect(
        (await w.events("acme"))
          .filter((e) => e.type.startsWith("wallet_debit."))
          .map((e) => [e.type, e.resourceUid]),
      ).toEqual([["wallet_debit.failed", failed.uid]]);
      expect((await w.operations(acme, "&type=wallet_debit&state=failed")).data.map((o) => o.uid)).toEqual([
        failed.uid,
      ]);
      const receipt = await h.call(acme, "GET", `${TENANT}/operations/${failed.uid}/receipt`);
      expect(receipt.status).toBe(404);

      // A retry inside the period needs a fresh clientReference.
      expect((await w.mandateDebit(acme, m, 30_000, { clientReference: "nov-try-1" })).status).toBe(409);
      await w.credit(acme, alice.walletUid, 10_000);
      const retry = await w.mandateDebit(acme, m, 30_000, { clientReference: "nov-try-2" });
      expect(retry.status).toBe(201);
      expect((await parseOperation(retry)).state).toBe("completed");
      expect((await w.balance(acme, alice.walletUid)).availableMinor).toBe(0);
      const third = await w.mandateDebit(acme, m, 1_000);
      expect((await errorOf(third)).error).toBe("MandateFrequencyExceeded");
      expect((await w.trialBalance()).balanced).toBe(true);
    });

    it("one_time: the debit completes the mandate; any further debit is 422; it can no longer be revoked", async () => {
      await w.credit(acme, alice.walletUid, 100_000);
      const m = await w.createMandate(acme, alice, {
        frequency: "one_time",
        amountRule: "fixed",
        fixedOrMaxAmountMinor: 25_000,
      });
      // An underfunded attempt fails and leaves it active.
      const poor = await w.createMandate(acme, bob, { frequency: "one_time" });
      const failed = await w.mandateDebit(acme, poor, 1_000);
      expect((await parseOperation(failed)).state).toBe("failed");
      expect((await w.getMandate(acme, poor.uid)).status).toBe("active");

      expect((await w.mandateDebit(acme, m, 25_000)).status).toBe(201);
      const after = await w.getMandate(acme, m.uid);
      expect(after.status).toBe("completed");
      const again = await w.mandateDebit(acme, m, 25_000);
      expect(again.status).toBe(422);
      expect((await errorOf(again)).error).toBe("MandateFrequencyExceeded");
      expect((await w.debit(acme, w.debitBody(alice, after, 25_000))).status).toBe(422);
      expect((await w.revoke(acme, m.uid, { reason: "done" })).status).toBe(409);
      expect((await w.balance(acme, alice.walletUid)).availableMinor).toBe(75_000);
    });
  });

  it("charges are itemized when a wallet_debit fee schedule applies; funds must cover amount + fee + tax", async () => {
    h.deps.core.catalog = {
      ...h.deps.core.catalog,
      feeSchedules: [
        ...h.deps.core.catalog.feeSchedules,
        {
          ruleCode: "debit_std",
          versionNo: 1,
          operationType: "wallet_debit",
          railCode: null,
          currency: "KES",
          components: [
            { label: "Collection fee", type: "flat", amountMinor: 100, refundable: false },
            { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Collection fee", refundable: false },
          ],
        },
      ],
    };
    await w.credit(acme, alice.walletUid, 10_115);
    const m = await w.createMandate(acme, alice, { frequency: "ad_hoc" });
    // 10 000 + 100 + 16 = 10 116: one short.
    const short = await w.debit(acme, w.debitBody(alice, m, 10_000));
    expect((await errorOf(short)).error).toBe("InsufficientFunds");
    expect((await parseOperation(await w.mandateDebit(acme, m, 10_000))).state).toBe("failed");
    await w.credit(acme, alice.walletUid, 1);
    const res = await w.mandateDebit(acme, m, 10_000);
    const op = await parseOperation(res);
    expect(op).toMatchObject({ state: "completed", amountMinor: 10_000, feeMinor: 100, taxMinor: 16 });
    expect((await w.balance(acme, alice.walletUid)).availableMinor).toBe(0);
    const receipt = await h.call(acme, "GET", `${TENANT}/operations/${op.uid}/receipt`);
    expect(receipt.status).toBe(200);
    expect(v.parse(receiptViewSchema, await receipt.json())).toMatchObject({
      totalDebitedMinor: 10_116,
      feeBreakdown: [
        { label: "Collection fee", amountMinor: 100 },
        { label: "VAT", amountMinor: 16 },
      ],
    });
    expect((await w.trialBalance()).balanced).toBe(true);
  });

  describe("concurrent debits on one wallet never overdraw", () => {
    const AMOUNT = 10_000;
    const PARALLEL = 10;

    it("POST /mandates/{uid}/debits: 10 at once against funds for 3 -> exactly 3 completed, 7 failed", async () => {
      await w.credit(acme, alice.walletUid, 3 * AMOUNT);
      const m = await w.createMandate(acme, alice, { frequency: "ad_hoc" });
      const balances: number[] = [];
      const [debits] = await Promise.all([
        Promise.all(
          Array.from({ length: PARALLEL }, (_, i) =>
            h.call(acme, "POST", `${TENANT}/mandates/${m.uid}/debits`, {
              body: {
                walletUid: alice.walletUid,
                amountMinor: AMOUNT,
                currency: "KES",
                clientReference: `race-${i}`,
              },
              idempotencyKey: `race-key-${i}`,
            }),
          ),
        ),
        Promise.all(
          Array.from({ length: PARALLEL }, async () =>
            balances.push((await w.balance(acme, alice.walletUid)).availableMinor),
          ),
        ),
      ]);
      expect(debits.map((r) => r.status)).toEqual(Array(PARALLEL).fill(201));
      const states = await Promise.all(debits.map(async (r) => (await parseOperation(r)).state));
      expect(states.filter((s) => s === "completed")).toHaveLength(3);
      expect(states.filter((s) => s === "failed")).toHaveLength(PARALLEL - 3);
      expect(balances.every((b) => b >= 0 && b <= 3 * AMOUNT)).toBe(true);
      expect(await w.balance(acme, alice.walletUid)).toMatchObject({ currentMinor: 0, availableMinor: 0 });
      expect((await w.operations(acme, "&type=wallet_debit&state=completed")).meta.total).toBe(3);
      const tb = await w.trialBalance();
      expect(tb.balanced).toBe(true);
      expect(tb.currencies.every((c) => c.netMinor === 0)).toBe(true);
    });

    it("POST /wallet-debits: 10 at once against funds for 3 -> exactly 3 created, 7 refused InsufficientFunds", async () => {
      await w.credit(acme, alice.walletUid, 3 * AMOUNT);
      const m = await w.createMandate(acme, alice);
      const bodies = Array.from({ length: PARALLEL }, (_, i) =>
        w.debitBody(alice, m, AMOUNT, { clientReference: `rush-${i}` }),
      );
      const responses = await Promise.all(bodies.map((body, i) => w.debit(acme, body, `rush-key-${i}`)));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(3);
      expect(statuses.filter((s) => s === 422)).toHaveLength(PARALLEL - 3);
      for (const r of responses.filter((x) => x.status === 422))
        expect((await errorOf(r)).error).toBe("InsufficientFunds");
      expect(await w.balance(acme, alice.walletUid)).toMatchObject({ currentMinor: 0, availableMinor: 0 });
      const debits = await w.operations(acme, "&type=wallet_debit");
      expect(debits.meta.total).toBe(3);
      expect(debits.data.every((o) => o.state === "completed")).toBe(true);
      expect((await w.trialBalance()).balanced).toBe(true);
    });
  });

  it("a one_time mandate's two debit routes at once: one debit, the other refused (5 rounds)", async () => {
    await w.credit(acme, alice.walletUid, 1_000_000);
    for (let round = 0; round < 5; round++) {
      const m = await w.createMandate(acme, alice, {
        frequency: "one_time",
        clientReference: `once-${round}`,
      });
      const [own, direct] = await Promise.all([
        h.call(acme, "POST", `${TENANT}/mandates/${m.uid}/debits`, {
          body: {
            walletUid: alice.walletUid,
            amountMinor: 10_000,
            currency: "KES",
            clientReference: `own-${round}`,
          },
          idempotencyKey: `own-key-${round}`,
        }),
        w.debit(
          acme,
          w.debitBody(alice, m, 10_000, { clientReference: `direct-${round}` }),
          `direct-key-${round}`,
        ),
      ]);
      // Either order is a serial one: the mandate route completes the mandate, then /wallet-debits
      // finds it completed (422); or /wallet-debits debits first, then the period is used (422).
      expect([own.status, direct.status].sort(), `round ${round}`).toEqual([201, 422]);
      const taken = await w.operations(acme, `&type=wallet_debit&state=completed`);
      expect(taken.data.filter((o) => o.clientReference?.endsWith(`-${round}`))).toHaveLength(1);
    }
    expect((await w.balance(acme, alice.walletUid)).currentMinor).toBe(1_000_000 - 5 * 10_000);
    expect((await w.trialBalance()).balanced).toBe(true);
  });

  it("needs wallet-debits:write on both debit routes (403)", async () => {
    const noDebits = await seedTenant(store.uow, {
      id: "acme-no-debits",
      scopes: ["mandates:read", "mandates:write", "customers:write"],
    });
    const m = await w.createMandate(acme, alice, { frequency: "ad_hoc" });
    expect((await w.debit(noDebits, w.debitBody(alice, m, 10_000))).status).toBe(403);
    expect((await w.mandateDebit(noDebits, m, 10_000)).status).toBe(403);
    expect(
      v.parse(mandateViewSchema, await (await h.call(acme, "GET", `${TENANT}/mandates/${m.uid}`)).json())
        .status,
    ).toBe("active");
  });
});
