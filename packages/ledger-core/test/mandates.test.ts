import { beforeEach, describe, expect, it } from "vitest";
import type { CreateMandateInput, MandateView, Page, Tx } from "../src/index.js";
import {
  activateDueMandates,
  createMandate,
  expireDueMandates,
  getMandate,
  listMandates,
  revokeMandate,
  setMandateStatus,
} from "../src/index.js";
import type { MandateWorld } from "./support/mandate-fixtures.js";
import { BINDING_CANONICAL, createMandateWorld, refusal, sha } from "./support/mandate-fixtures.js";

const page = (p = 1, limit = 20): Page => ({
  page: p,
  limit,
  sort: [{ field: "createdAt", direction: "DESC" }],
});

describe("mandates", () => {
  let w: MandateWorld;
  beforeEach(async () => {
    w = await createMandateWorld();
  });

  const create = (input: CreateMandateInput, tenant = w.acme) =>
    w.core.run((tx) => createMandate(w.core.deps, w.core.ctxFor(tenant), tx, input));
  const revoke = (uid: string, input: Parameters<typeof revokeMandate>[4], tenant = w.acme) =>
    w.core.run((tx) => revokeMandate(w.core.deps, w.core.ctxFor(tenant), tx, uid, input));
  const stored = (uid: string) => w.core.store.state.mandates.get(uid)!;
  const agreementOf = (m: MandateView) => w.core.store.state.agreements.get(m.agreementUid!)!;
  const counts = () => ({
    mandates: w.core.store.state.mandates.size,
    agreements: w.core.store.state.agreements.size,
    outbox: w.core.store.state.outbox.length,
    assertionUses: w.core.store.state.assertionUses.length,
  });

  describe("POST /mandates", () => {
    it("refuses (422) a closed or deceased customer and a closed wallet; a status that may be lifted does not", async () => {
      const setCustomer = (status: "closed" | "deceased" | "suspended" | "active") =>
        w.core.run((tx) => tx.customers.setStatus("acme", w.alice.uid, status));
      const setWallet = (status: "closed" | "frozen" | "active") =>
        w.core.run((tx) => tx.wallets.setStatus("acme", w.alice.walletUid, status));
      const before = counts();
      for (const status of ["closed", "deceased"] as const) {
        await setCustomer(status);
        expect((await refusal(create(w.mandateInput(w.alice)))).code).toBe("CustomerNotActive");
      }
      await setCustomer("active");
      await setWallet("closed");
      expect((await refusal(create(w.mandateInput(w.alice)))).code).toBe("WalletNotActive");
      expect(counts()).toEqual(before);
      await setWallet("frozen");
      await setCustomer("suspended");
      expect((await create(w.mandateInput(w.alice))).status).toBe("active");
    });

    it("refuses a clientReference that is not 1-200 characters of text (400), creating nothing", async () => {
      for (const bad of [null, "", "m".repeat(201)]) {
        const e = await refusal(create({ ...w.mandateInput(w.alice), clientReference: bad as never }));
        expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", "clientReference"]);
      }
      expect(w.core.store.state.mandates.size).toBe(0);
    });

    it("registers an active mandate with its acceptance and fires mandate.created", async () => {
      const m = await create(w.mandateInput(w.alice));
      expect(m).toEqual({
        uid: expect.stringMatching(/^man_/),
        customerUid: w.alice.uid,
        walletUid: w.alice.walletUid,
        beneficiaryEntityCode: "POWERCO",
        clientReference: "power-2026",
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 500_000,
        frequency: "monthly",
        currency: "KES",
        validFrom: "2026-11-01T00:00:00.000Z",
        validTo: null,
        status: "active",
        agreementUid: expect.stringMatching(/^agr_/),
        replacesMandateUid: null,
        revokedAt: null,
        createdAt: "2026-11-22T10:00:00.000Z",
      });
      expect(agreementOf(m)).toMatchObject({
        customerUid: w.alice.uid,
        agreementType: "mandate",
        documentType: "debit_mandate",
        status: "accepted",
        acceptedChannel: "mobile_app",
        evidenceHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      const events = w.outbox("mandate.created");
      expect(events).toHaveLength(1);
      expect(events[0]!.envelope).toMatchObject({
        type: "mandate.created",
        dedupKey: `${m.uid}:mandate.created:1`,
        apiVersion: "v1",
      });
      expect(events[0]!.envelope.data).toEqual({
        mandate: {
          uid: m.uid,
          status: "active",
          customerUid: w.alice.uid,
          walletUid: w.alice.walletUid,
          clientReference: "power-2026",
        },
      });
      // No personal data in the payload.
      for (const secret of ["Amina", "+2547", "203.0.113.9", "12345678"]) {
        expect(events[0]!.body).not.toContain(secret);
      }
    });

    it("normalizes timestamps to UTC with milliseconds", async () => {
      const m = await create(
        w.mandateInput(w.alice, { validFrom: "2026-11-22T12:00:00+03:00", validTo: "2027-01-01T00:00:00Z" }),
      );
      expect(m.validFrom).toBe("2026-11-22T09:00:00.000Z");
      expect(m.validTo).toBe("2027-01-01T00:00:00.000Z");
      expect(m.status).toBe("active");
    });

    it("rounds validFrom's digits past the millisecond up: never active before it", async () => {
      // The clock reads 10:00:00.000; validFrom is half a millisecond later.
      const m = await create(w.mandateInput(w.alice, { validFrom: "2026-11-22T10:00:00.0005Z" }));
      expect([m.validFrom, m.status]).toEqual(["2026-11-22T10:00:00.001Z", "pending"]);
    });

    it("is pending while validFrom is in the future; the activation job makes it active once", async () => {
      const m = await create(w.mandateInput(w.alice, { validFrom: "2026-11-22T10:00:00.001Z" }));
      expect(m.status).toBe("pending");
      expect(w.outbox("mandate.created")[0]!.envelope.data.mandate.status).toBe("pending");
      const run = (asOf: string) => w.core.run((tx) => activateDueMandates(w.core.deps, tx, asOf, 100));
      expect(await run("2026-11-22T10:00:00.000Z")).toBe(0);
      expect(await run("2026-11-22T10:00:00.001Z")).toBe(1);
      expect(await run("2026-11-22T10:00:00.001Z")).toBe(0);
      expect(stored(m.uid).status).toBe("active");
      // The spec lists no event for activation.
      expect(
        w
          .outbox()
          .filter((e) => e.resourceUid === m.uid)
          .map((e) => e.type),
      ).toEqual(["mandate.created"]);
    });

    it("activates at most `limit` mandates per run", async () => {
      for (const ref of ["a", "b", "c"]) {
        await create(
          w.mandateInput(w.alice, { clientReference: ref, validFrom: "2026-12-01T00:00:00.000Z" }),
        );
      }
      const run = () =>
        w.core.run((tx) => activateDueMandates(w.core.deps, tx, "2026-12-01T00:00:00.000Z", 2));
      expect(await run()).toBe(2);
      expect(await run()).toBe(1);
      expect(await run()).toBe(0);
    });

    it("accepts a well-formed binding on POST /mandates without recomputing it", async () => {
      const m = await create(
        w.mandateInput(w.alice, {
          assertion: w.assertionFor(w.alice.uid, {
            transactionBinding: {
              hash: sha("not bound to anything"),
              algorithm: "sha256",
              canonical: BINDING_CANONICAL,
            },
          }),
        }),
      );
      expect(m.status).toBe("active");
    });

    it("accepts a single factor when the maximum is within the two-factor threshold", async () => {
      await create(
        w.mandateInput(w.alice, {
          fixedOrMaxAmountMinor: 100_000,
          assertion: w.assertionFor(w.alice.uid, { assuranceLevel: "single_factor", factor2Type: undefined }),
        }),
      );
    });

    type Case = [string, (w: MandateWorld) => Partial<CreateMandateInput>, string, string?];
    const cases: Case[] = [
      ["an unknown customer", () => ({ customerUid: "cus_nope" }), "NotFound"],
      ["another tenant's customer", (w) => ({ customerUid: w.olga.uid }), "NotFound"],
      ["another tenant's wallet", (w) => ({ walletUid: w.olga.walletUid }), "NotFound"],
      ["a wallet of another customer", (w) => ({ walletUid: w.bob.walletUid }), "UnprocessableEntity"],
      ["another currency", () => ({ currency: "USD" }), "CurrencyMismatch"],
      [
        "a formula rule",
        () => ({ amountRule: "formula", fixedOrMaxAmountMinor: null, formula: {} }),
        "UnprocessableEntity",
      ],
      [
        "fixed without an amount",
        () => ({ amountRule: "fixed", fixedOrMaxAmountMinor: null }),
        "InvalidRequest",
      ],
      [
        "up_to without an amount",
        () => ({ amountRule: "up_to", fixedOrMaxAmountMinor: undefined }),
        "InvalidRequest",
      ],
      ["a zero amount", () => ({ fixedOrMaxAmountMinor: 0 }), "InvalidRequest"],
      ["an unknown beneficiary", () => ({ beneficiaryEntityCode: "NOPE" }), "UnprocessableEntity"],
      [
        "a beneficiary that cannot collect",
        () => ({ beneficiaryEntityCode: "NOCOLLECT" }),
        "UnprocessableEntity",
        "The beneficiary cannot collect mandate debits",
      ],
      ["validTo equal to validFrom", () => ({ validTo: "2026-11-01T00:00:00.000Z" }), "InvalidRequest"],
      ["validTo before validFrom", () => ({ validTo: "2026-10-01T00:00:00.000Z" }), "InvalidRequest"],
      ["validTo already passed", () => ({ validTo: "2026-11-22T10:00:00.000Z" }), "UnprocessableEntity"],
      ["an unparseable validFrom", () => ({ validFrom: "yesterday" }), "InvalidRequest"],
      [
        "consent captured on the portal",
        (w) => ({ agreement: { ...w.mandateInput(w.alice).agreement, acceptedChannel: "portal" } }),
        "UnprocessableEntity",
      ],
      ["a replaced mandate that does not exist", () => ({ replacesMandateUid: "man_nope" }), "NotFound"],
      [
        "an assertion of another customer",
        (w) => ({ assertion: w.assertionFor(w.bob.uid) }),
        "UnprocessableEntity",
      ],
      [
        "an expired assertion",
        (w) => ({
          assertion: w.assertionFor(w.alice.uid, {
            authenticatedAt: "2026-11-22T09:55:00.000Z",
            expiresAt: "2026-11-22T10:00:00.000Z",
          }),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "an assertion living over 10 minutes",
        (w) => ({
          assertion: w.assertionFor(w.alice.uid, {
            authenticatedAt: "2026-11-22T09:55:00.000Z",
            expiresAt: "2026-11-22T10:05:00.001Z",
          }),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "a single factor above the two-factor threshold",
        (w) => ({
          assertion: w.assertionFor(w.alice.uid, { assuranceLevel: "single_factor", factor2Type: undefined }),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "a malformed binding",
        (w) => ({
          assertion: w.assertionFor(w.alice.uid, {
            transactionBinding: { hash: sha("x"), algorithm: "sha256", canonical: "a|b" },
          }),
        }),
        "AssertionNotBoundToTransaction",
      ],
      [
        "an identifier that is not the customer's",
        (w) => ({ assertion: w.assertionFor(w.alice.uid, { identifierUid: "idn_nope" }) }),
        "UnprocessableEntity",
      ],
    ];
    it.each(cases)("refuses %s and creates nothing", async (_name, overrides, code, message) => {
      const before = counts();
      const e = await refusal(create(w.mandateInput(w.alice, overrides(w))));
      expect(e.code).toBe(code);
      if (message) expect(e.message).toBe(message);
      expect(counts()).toEqual(before);
    });

    it("names the missing amount field", async () => {
      const e = await refusal(
        create(w.mandateInput(w.alice, { amountRule: "fixed", fixedOrMaxAmountMinor: null })),
      );
      expect(e.details).toEqual([{ field: "fixedOrMaxAmountMinor", issue: expect.any(String) }]);
    });

    it("refuses an assertion whose sourceReference is live for another customer", async () => {
      await create(
        w.mandateInput(w.bob, { assertion: w.assertionFor(w.bob.uid, { sourceReference: "shared" }) }),
      );
      const e = await refusal(
        create(
          w.mandateInput(w.alice, { assertion: w.assertionFor(w.alice.uid, { sourceReference: "shared" }) }),
        ),
      );
      expect(e.code).toBe("UnprocessableEntity");
    });

    it("does not let another tenant see or use the tenant's customer", async () => {
      const e = await refusal(create(w.mandateInput(w.alice), w.other));
      expect(e.code).toBe("NotFound");
    });
  });

  describe("replacement", () => {
    it("supersedes the old mandate and its acceptance atomically", async () => {
      const old = await create(w.mandateInput(w.alice));
      w.clock.advanceMs(5_000);
      const next = await create(
        w.mandateInput(w.alice, {
          clientReference: "power-2027",
          fixedOrMaxAmountMinor: 700_000,
          replacesMandateUid: old.uid,
        }),
      );
      expect(next.replacesMandateUid).toBe(old.uid);
      expect(next.status).toBe("active");
      expect(stored(old.uid)).toMatchObject({
        status: "revoked",
        revocationReason: "superseded",
        revokedBy: "system",
        revokedAt: "2026-11-22T10:00:05.000Z",
      });
      expect(agreementOf(old).status).toBe("superseded");
      expect(agreementOf(next).status).toBe("accepted");
      const revoked = w.outbox("mandate.revoked");
      expect(revoked).toHaveLength(1);
      expect(revoked[0]!.envelope.data.mandate).toEqual({
        uid: old.uid,
        status: "revoked",
        customerUid: w.alice.uid,
        walletUid: w.alice.walletUid,
        clientReference: "power-2026",
      });
      expect(w.outbox("mandate.created").map((e) => e.resourceUid)).toEqual([old.uid, next.uid]);
      const read = await w.core.run((tx) => getMandate(w.core.deps, w.core.ctxFor(w.acme), tx, old.uid));
      expect(read.revokedAt).toBe("2026-11-22T10:00:05.000Z");
    });

    it("locks two wallets in uid order, whichever of them the replaced mandate is on", async () => {
      // A replacement locks the replaced mandate's wallet and the new one's: two replacements that
      // name each other's wallets must not take them in opposite orders (on Postgres, a deadlock:
      // one of them would be a 503 rather than its 422).
      const [first, second] = w.alice.walletUid < w.bob.walletUid ? [w.alice, w.bob] : [w.bob, w.alice];
      for (const [holder, named] of [
        [first, second],
        [second, first],
      ] as const) {
        const old = await create(w.mandateInput(holder, { clientReference: `lock-order-${holder.uid}` }));
        const locked: string[] = [];
        const noted = (uid: string) => {
          locked.push(uid);
          return uid;
        };
        const e = await refusal(
          w.core.run((tx) => {
            const wallets = tx.wallets;
            const spied: Tx = {
              ...tx,
              wallets: {
                ...wallets,
                getForUpdate: (tenantId, uid) => wallets.getForUpdate(tenantId, noted(uid)),
                getWithCustomer: (tenantId, uid) => wallets.getWithCustomer(tenantId, noted(uid)),
              },
            };
            return createMandate(
              w.core.deps,
              w.core.ctxFor(w.acme),
              spied,
              w.mandateInput(holder, { walletUid: named.walletUid, replacesMandateUid: old.uid }),
            );
          }),
        );
        expect(e.code).toBe("UnprocessableEntity");
        expect(locked).toEqual([first.walletUid, second.walletUid]);
        expect(stored(old.uid).status).toBe("active");
      }
    });

    it("supersedes a pending or suspended mandate too", async () => {
      const pending = await create(w.mandateInput(w.alice, { validFrom: "2027-01-01T00:00:00.000Z" }));
      await create(w.mandateInput(w.alice, { replacesMandateUid: pending.uid }));
      expect(stored(pending.uid).status).toBe("revoked");
      const active = await create(w.mandateInput(w.alice, { clientReference: "s" }));
      await w.core.run((tx) => setMandateStatus(w.core.deps, tx, active.uid, "suspended"));
      await create(w.mandateInput(w.alice, { replacesMandateUid: active.uid }));
      expect(stored(active.uid).status).toBe("revoked");
    });

    it("a refused replacement leaves the old mandate active and its acceptance accepted", async () => {
      const old = await create(w.mandateInput(w.alice));
      const before = counts();
      const e = await refusal(
        create(
          w.mandateInput(w.alice, {
            replacesMandateUid: old.uid,
            assertion: w.assertionFor(w.alice.uid, {
              authenticatedAt: "2026-11-22T09:50:00.000Z",
              expiresAt: "2026-11-22T09:55:00.000Z",
            }),
          }),
        ),
      );
      expect(e.code).toBe("AuthorizationInsufficient");
      expect(stored(old.uid)).toMatchObject({ status: "active", revokedAt: null, revokedBy: null });
      expect(agreementOf(old).status).toBe("accepted");
      expect(counts()).toEqual(before);
      expect(w.outbox("mandate.revoked")).toHaveLength(0);
    });

    it("refuses to replace another customer's mandate (404) or a final one (409)", async () => {
      const bobs = await create(w.mandateInput(w.bob, { assertion: w.assertionFor(w.bob.uid) }));
      expect((await refusal(create(w.mandateInput(w.alice, { replacesMandateUid: bobs.uid })))).code).toBe(
        "NotFound",
      );
      const olgas = await create(w.mandateInput(w.olga, { assertion: w.assertionFor(w.olga.uid) }), w.other);
      expect((await refusal(create(w.mandateInput(w.alice, { replacesMandateUid: olgas.uid })))).code).toBe(
        "NotFound",
      );
      const old = await create(w.mandateInput(w.alice));
      await revoke(old.uid, { reason: "customer request" });
      const before = counts();
      const e = await refusal(create(w.mandateInput(w.alice, { replacesMandateUid: old.uid })));
      expect(e.code).toBe("Conflict");
      expect(counts()).toEqual(before);
    });
  });

  describe("GET /mandates", () => {
    it("reads the tenant's mandate; another tenant's is 404", async () => {
      const m = await create(w.mandateInput(w.alice));
      expect(await w.core.run((tx) => getMandate(w.core.deps, w.core.ctxFor(w.acme), tx, m.uid))).toEqual(m);
      const e = await refusal(w.core.run((tx) => getMandate(w.core.deps, w.core.ctxFor(w.other), tx, m.uid)));
      expect(e.code).toBe("NotFound");
    });

    it("lists with filters and page meta; a customer outside the account matches nothing", async () => {
      const a1 = await create(w.mandateInput(w.alice, { clientReference: "a1" }));
      w.clock.advanceMs(1);
      const a2 = await create(w.mandateInput(w.alice, { clientReference: "a2" }));
      w.clock.advanceMs(1);
      const b1 = await create(
        w.mandateInput(w.bob, { clientReference: "b1", assertion: w.assertionFor(w.bob.uid) }),
      );
      await revoke(a1.uid, { reason: "moved house" });
      await create(w.mandateInput(w.olga, { assertion: w.assertionFor(w.olga.uid) }), w.other);
      const list = (q: Parameters<typeof listMandates>[3], p = page()) =>
        w.core.run((tx) => listMandates(w.core.deps, w.core.ctxFor(w.acme), tx, q, p));

      const all = await list({});
      expect(all.data.map((m) => m.uid)).toEqual([b1.uid, a2.uid, a1.uid]);
      expect(all.meta).toEqual({ total: 3, page: 1, limit: 20, totalPages: 1 });
      expect((await list({ customerUid: w.alice.uid })).data.map((m) => m.uid)).toEqual([a2.uid, a1.uid]);
      expect((await list({ status: "revoked" })).data.map((m) => m.uid)).toEqual([a1.uid]);
      expect((await list({ customerUid: w.alice.uid, status: "active" })).data.map((m) => m.uid)).toEqual([
        a2.uid,
      ]);
      expect(await list({ customerUid: w.olga.uid })).toEqual({
        data: [],
        meta: { total: 0, page: 1, limit: 20, totalPages: 0 },
      });
      const second = await list({}, page(2, 2));
      expect(second.data.map((m) => m.uid)).toEqual([a1.uid]);
      expect(second.meta).toEqual({ total: 3, page: 2, limit: 2, totalPages: 2 });
    });
  });

  describe("POST /mandates/{uid}/revoke", () => {
    it("revokes on the tenant's authority: revokedAt, acceptance revoked, mandate.revoked", async () => {
      const m = await create(w.mandateInput(w.alice));
      w.clock.advanceMs(60_000);
      const r = await revoke(m.uid, { reason: "contract ended" });
      expect(r).toMatchObject({ uid: m.uid, status: "revoked", revokedAt: "2026-11-22T10:01:00.000Z" });
      expect(stored(m.uid)).toMatchObject({ revokedBy: "tenant", revocationReason: "contract ended" });
      expect(agreementOf(m).status).toBe("revoked");
      const events = w.outbox("mandate.revoked");
      expect(events.map((e) => e.envelope.data.mandate)).toEqual([
        {
          uid: m.uid,
          status: "revoked",
          customerUid: w.alice.uid,
          walletUid: w.alice.walletUid,
          clientReference: "power-2026",
        },
      ]);
      expect(events[0]!.body).not.toContain("contract ended");
    });

    it("records the customer's revocation when an assertion of the mandate's customer comes with it", async () => {
      const m = await create(w.mandateInput(w.alice));
      // Nothing is bound and no amount moves, so a single factor suffices.
      await revoke(m.uid, {
        reason: "no longer wanted",
        assertion: w.assertionFor(w.alice.uid, { assuranceLevel: "single_factor", factor2Type: undefined }),
      });
      expect(stored(m.uid).revokedBy).toBe("customer");
    });

    it("refuses an assertion of another customer or an expired one, leaving the mandate active", async () => {
      const m = await create(w.mandateInput(w.alice));
      const e1 = await refusal(revoke(m.uid, { reason: "x", assertion: w.assertionFor(w.bob.uid) }));
      expect(e1.code).toBe("UnprocessableEntity");
      const expired = w.assertionFor(w.alice.uid, {
        authenticatedAt: "2026-11-22T09:50:00.000Z",
        expiresAt: "2026-11-22T09:59:00.000Z",
      });
      expect((await refusal(revoke(m.uid, { reason: "x", assertion: expired }))).code).toBe(
        "AuthorizationInsufficient",
      );
      expect(stored(m.uid).status).toBe("active");
      expect(agreementOf(m).status).toBe("accepted");
      expect(w.outbox("mandate.revoked")).toHaveLength(0);
    });

    it("is 409 for a revoked, expired or completed mandate and 404 for another tenant's", async () => {
      const m = await create(w.mandateInput(w.alice));
      expect((await refusal(revoke(m.uid, { reason: "x" }, w.other))).code).toBe("NotFound");
      expect((await refusal(revoke("man_nope", { reason: "x" }))).code).toBe("NotFound");
      await revoke(m.uid, { reason: "first" });
      expect((await refusal(revoke(m.uid, { reason: "again" }))).code).toBe("Conflict");
      expect(stored(m.uid).revocationReason).toBe("first");

      const e = await create(w.mandateInput(w.alice, { validTo: "2026-11-23T00:00:00.000Z" }));
      await w.core.run((tx) => expireDueMandates(w.core.deps, tx, "2026-11-23T00:00:00.000Z", 10));
      expect((await refusal(revoke(e.uid, { reason: "x" }))).code).toBe("Conflict");

      const c = await create(w.mandateInput(w.alice, { frequency: "one_time" }));
      await w.core.run((tx) => tx.mandates.update({ ...stored(c.uid), status: "completed" }));
      expect((await refusal(revoke(c.uid, { reason: "x" }))).code).toBe("Conflict");
    });

    it("refuses an empty or over-long reason, counted in characters", async () => {
      const m = await create(w.mandateInput(w.alice));
      expect((await refusal(revoke(m.uid, { reason: "" }))).code).toBe("InvalidRequest");
      expect((await refusal(revoke(m.uid, { reason: "r".repeat(501) }))).code).toBe("InvalidRequest");
      expect((await refusal(revoke(m.uid, { reason: "\u{1F4B8}".repeat(501) }))).code).toBe("InvalidRequest");
      // Characters are code points: 500 emoji (1,000 UTF-16 units) are a valid reason.
      await revoke(m.uid, { reason: "\u{1F4B8}".repeat(500) });
    });
  });

  describe("operator status changes", () => {
    const setStatus = (uid: string, status: "suspended" | "active") =>
      w.core.run((tx) => setMandateStatus(w.core.deps, tx, uid, status));

    it("suspends an active mandate and resumes it, each with mandate.status_changed", async () => {
      const m = await create(w.mandateInput(w.alice));
      expect((await setStatus(m.uid, "suspended")).status).toBe("suspended");
      expect((await setStatus(m.uid, "active")).status).toBe("active");
      const events = w.outbox("mandate.status_changed");
      expect(events.map((e) => [e.envelope.data.mandate.status, e.envelope.dedupKey])).toEqual([
        ["suspended", `${m.uid}:mandate.status_changed:2`],
        ["active", `${m.uid}:mandate.status_changed:3`],
      ]);
    });

    it("refuses every other move with 409 and an unknown mandate with 404", async () => {
      const m = await create(w.mandateInput(w.alice));
      expect((await refusal(setStatus(m.uid, "active"))).code).toBe("Conflict");
      await setStatus(m.uid, "suspended");
      expect((await refusal(setStatus(m.uid, "suspended"))).code).toBe("Conflict");
      const pending = await create(w.mandateInput(w.alice, { validFrom: "2027-01-01T00:00:00.000Z" }));
      expect((await refusal(setStatus(pending.uid, "active"))).code).toBe("Conflict");
      const revoked = await create(w.mandateInput(w.alice));
      await revoke(revoked.uid, { reason: "x" });
      expect((await refusal(setStatus(revoked.uid, "active"))).code).toBe("Conflict");
      expect((await refusal(setStatus("man_nope", "active"))).code).toBe("NotFound");
      expect(w.outbox("mandate.status_changed")).toHaveLength(1);
    });
  });

  describe("before the jobs have run", () => {
    const setStatus = (uid: string, status: "suspended" | "active") =>
      w.core.run((tx) => setMandateStatus(w.core.deps, tx, uid, status));
    const eventsOf = (uid: string) =>
      w
        .outbox()
        .filter((e) => e.resourceUid === uid)
        .map((e) => e.type);

    it("a mandate past validTo is expired to revoke, replace and the operator: 409, nothing written", async () => {
      const validTo = "2026-11-22T10:00:30.000Z";
      const a = await create(w.mandateInput(w.alice, { clientReference: "a", validTo }));
      const b = await create(w.mandateInput(w.alice, { clientReference: "b", validTo }));
      await setStatus(b.uid, "suspended");
      w.clock.advanceMs(30_000); // exactly validTo: the instant it expires (the job uses <=)
      const before = counts();

      const revoked = await refusal(revoke(a.uid, { reason: "too late" }));
      expect([revoked.code, revoked.message]).toEqual(["Conflict", "The mandate is already expired"]);
      const replaced = await refusal(
        create(w.mandateInput(w.alice, { clientReference: "a2", replacesMandateUid: a.uid })),
      );
      expect([replaced.code, replaced.message]).toEqual([
        "Conflict",
        "The mandate to replace is already expired",
      ]);
      expect((await refusal(setStatus(a.uid, "suspended"))).code).toBe("Conflict");
      expect((await refusal(setStatus(b.uid, "active"))).code).toBe("Conflict");
      expect(counts()).toEqual(before);
      expect(stored(a.uid).status).toBe("active"); // reads show the stored status until the job

      // The job then writes what the routes already answered, with its event.
      expect(await w.core.run((tx) => expireDueMandates(w.core.deps, tx, validTo, 100))).toBe(2);
      expect(eventsOf(a.uid)).toEqual(["mandate.created", "mandate.expired"]);
      expect(eventsOf(b.uid)).toEqual(["mandate.created", "mandate.status_changed", "mandate.expired"]);
    });

    it("one millisecond before validTo the routes still act", async () => {
      const validTo = "2026-11-22T10:00:30.000Z";
      const a = await create(w.mandateInput(w.alice, { clientReference: "a", validTo }));
      w.clock.advanceMs(29_999);
      expect((await revoke(a.uid, { reason: "in time" })).status).toBe("revoked");
    });

    it("a pending mandate past validFrom is active to the operator", async () => {
      const m = await create(w.mandateInput(w.alice, { validFrom: "2026-11-22T10:00:05.000Z" }));
      expect(m.status).toBe("pending");
      w.clock.advanceMs(5_000);
      expect((await setStatus(m.uid, "suspended")).status).toBe("suspended");
      // The activation job leaves a suspended mandate alone.
      expect(
        await w.core.run((tx) => activateDueMandates(w.core.deps, tx, "2026-11-22T10:00:05.000Z", 100)),
      ).toBe(0);
      expect(stored(m.uid).status).toBe("suspended");
      expect((await setStatus(m.uid, "active")).status).toBe("active");
    });

    it("a pending mandate can be suspended before validFrom, and resumes as pending", async () => {
      const validFrom = "2026-11-22T10:00:05.000Z";
      const m = await create(w.mandateInput(w.alice, { validFrom }));
      expect((await setStatus(m.uid, "suspended")).status).toBe("suspended");
      // Suspended, it is neither activated by the job nor debitable once validFrom has passed.
      expect(await w.core.run((tx) => activateDueMandates(w.core.deps, tx, validFrom, 100))).toBe(0);
      expect((await setStatus(m.uid, "active")).status).toBe("pending");
      expect(w.outbox("mandate.status_changed").map((e) => e.envelope.data.mandate.status)).toEqual([
        "suspended",
        "pending",
      ]);
      w.clock.advanceMs(5_000);
      expect(await w.core.run((tx) => activateDueMandates(w.core.deps, tx, validFrom, 100))).toBe(1);
      expect(stored(m.uid).status).toBe("active");
    });
  });

  describe("expiry job", () => {
    it("expires pending, active and suspended mandates at validTo, once, with mandate.expired", async () => {
      const validTo = "2026-12-01T00:00:00.000Z";
      const active = await create(w.mandateInput(w.alice, { clientReference: "act", validTo }));
      const suspended = await create(w.mandateInput(w.alice, { clientReference: "sus", validTo }));
      await w.core.run((tx) => setMandateStatus(w.core.deps, tx, suspended.uid, "suspended"));
      const pending = await create(
        w.mandateInput(w.alice, { clientReference: "pen", validFrom: "2026-11-25T00:00:00.000Z", validTo }),
      );
      const revoked = await create(w.mandateInput(w.alice, { clientReference: "rev", validTo }));
      await revoke(revoked.uid, { reason: "x" });
      const later = await create(
        w.mandateInput(w.alice, { clientReference: "later", validTo: "2026-12-01T00:00:00.001Z" }),
      );
      const open = await create(w.mandateInput(w.alice, { clientReference: "open" }));

      const run = (asOf: string) => w.core.run((tx) => expireDueMandates(w.core.deps, tx, asOf, 100));
      expect(await run("2026-11-30T23:59:59.999Z")).toBe(0);
      expect(await run(validTo)).toBe(3);
      expect(await run(validTo)).toBe(0);
      for (const m of [active, suspended, pending]) expect(stored(m.uid).status).toBe("expired");
      for (const m of [later, open]) expect(stored(m.uid).status).toBe("active");
      expect(stored(revoked.uid).status).toBe("revoked");
      expect(stored(active.uid).revokedAt).toBeNull();
      const events = w.outbox("mandate.expired");
      expect(events.map((e) => e.resourceUid).sort()).toEqual(
        [active.uid, suspended.uid, pending.uid].sort(),
      );
      for (const e of events) {
        expect(Object.keys(e.envelope.data.mandate).sort()).toEqual([
          "clientReference",
          "customerUid",
          "status",
          "uid",
          "walletUid",
        ]);
        expect(e.envelope.data.mandate.status).toBe("expired");
      }
      expect(await run("2026-12-01T00:00:00.001Z")).toBe(1);
    });

    it("reads asOf in any ISO-8601 offset as the same instant", async () => {
      const m = await create(w.mandateInput(w.alice, { validTo: "2026-12-01T00:00:00.000Z" }));
      const run = (asOf: string) => w.core.run((tx) => expireDueMandates(w.core.deps, tx, asOf, 10));
      expect(await run("2026-12-01T02:59:59.999+03:00")).toBe(0);
      expect(await run("2026-12-01T03:00:00+03:00")).toBe(1);
      expect(stored(m.uid).status).toBe("expired");
    });

    it("processes at most `limit` per run and refuses a nonsensical limit", async () => {
      for (const ref of ["a", "b", "c"]) {
        await create(w.mandateInput(w.alice, { clientReference: ref, validTo: "2026-11-23T00:00:00.000Z" }));
      }
      const run = (limit: number) =>
        w.core.run((tx) => expireDueMandates(w.core.deps, tx, "2026-11-24T00:00:00.000Z", limit));
      expect(await run(2)).toBe(2);
      expect(await run(2)).toBe(1);
      expect(await run(2)).toBe(0);
      await expect(run(0)).rejects.toMatchObject({ code: "InvalidRequest" });
    });
  });
});
