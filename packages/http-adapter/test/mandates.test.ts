import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agreementListSchema } from "../src/agreements/schemas.js";
import { mandateListSchema, mandateViewSchema } from "../src/mandates/schemas.js";
import { jobRunViewSchema } from "../src/operator/mandate-schemas.js";
import {
  ADMIN,
  createHarness,
  type Harness,
  type SeededTenant,
  START,
  seedTenant,
  TENANT,
} from "./support/fixture.js";
import {
  type CustomerView,
  errorOf,
  type MandateView,
  type MandateWorld,
  mandateWorld,
  WEBHOOK,
} from "./support/mandate-world.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

/** Mandates over HTTP (issue 5): one suite, every store. */
describe.each(storeKinds())("mandates (issue 5) on the $name store", (kind) => {
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
    acme = await seedTenant(store.uow, { id: "acme", webhook: WEBHOOK, approvedRails: ["sandbox_mobile"] });
    globex = await seedTenant(store.uow, { id: "globex", webhook: WEBHOOK });
    await w.fundPrefund("acme", 50_000_000);
    alice = await w.onboard(acme, "+254711000001", "11000001");
    bob = await w.onboard(acme, "+254711000002", "11000002");
    gina = await w.onboard(globex, "+254711000003", "11000003");
  });
  afterEach(async () => {
    await store.close();
  });

  const mandateCount = async (t: SeededTenant) => {
    const res = await h.call(t, "GET", `${TENANT}/mandates`);
    expect(res.status).toBe(200);
    return v.parse(mandateListSchema, await res.json()).meta.total;
  };
  const agreements = async (t: SeededTenant, customerUid: string) => {
    const res = await h.call(t, "GET", `${TENANT}/customers/${customerUid}/agreements`);
    expect(res.status).toBe(200);
    return v.parse(agreementListSchema, await res.json()).data;
  };
  const agreementStatus = async (t: SeededTenant, m: MandateView) =>
    (await agreements(t, m.customerUid)).find((a) => a.uid === m.agreementUid)?.status;

  describe("POST /mandates and GET /mandates/{uid}", () => {
    it("registers an active mandate with its acceptance (agreementType mandate); fires mandate.created", async () => {
      const res = await w.postMandate(acme, w.mandateBody(alice, { clientReference: "power-2026" }));
      expect(res.status).toBe(201);
      expect(res.headers.get("Idempotent-Replayed")).toBe("false");
      const m = v.parse(mandateViewSchema, await res.json());
      expect(m).toEqual({
        uid: expect.stringMatching(/^man_/),
        customerUid: alice.uid,
        walletUid: alice.walletUid,
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
        createdAt: expect.any(String),
      });
      expect(await w.getMandate(acme, m.uid)).toEqual(m);

      const acceptance = (await agreements(acme, alice.uid)).find((a) => a.uid === m.agreementUid);
      expect(acceptance).toMatchObject({
        agreementType: "mandate",
        documentType: "debit_mandate",
        documentVersion: "v2",
        status: "accepted",
        acceptedChannel: "mobile_app",
      });
      // The evidence is hashed and stored, never returned.
      expect(JSON.stringify(acceptance)).not.toContain("203.0.113.9");

      const created = (await w.events("acme")).filter((e) => e.type === "mandate.created");
      expect(created).toHaveLength(1);
      expect(created[0]!.body.data).toEqual({
        mandate: {
          uid: m.uid,
          status: "active",
          customerUid: alice.uid,
          walletUid: alice.walletUid,
          clientReference: "power-2026",
        },
      });
    });

    it("is pending while validFrom is in the future; normalizes timestamps to UTC with milliseconds", async () => {
      const m = await w.createMandate(acme, alice, {
        validFrom: "2026-11-30T03:00:00+03:00",
        validTo: "2027-06-01T00:00:00Z",
      });
      expect(m).toMatchObject({
        status: "pending",
        validFrom: "2026-11-30T00:00:00.000Z",
        validTo: "2027-06-01T00:00:00.000Z",
      });
      // Digits past the millisecond: a start rounds up (never active before it), an end down.
      const fine = await w.createMandate(acme, alice, {
        clientReference: "power-fine",
        validFrom: "2026-11-30T00:00:00.0001Z",
        validTo: "2027-06-01T00:00:00.0009Z",
      });
      expect(fine).toMatchObject({
        validFrom: "2026-11-30T00:00:00.001Z",
        validTo: "2027-06-01T00:00:00.000Z",
      });
    });

    it("400 for a validFrom or validTo that is not a calendar date (never rolled into the next month)", async () => {
      for (const [overrides, field] of [
        [{ validFrom: "2026-02-31T00:00:00Z" }, "validFrom"],
        [{ validTo: "2027-04-31T00:00:00.000Z" }, "validTo"],
      ] as const) {
        const res = await w.postMandate(acme, w.mandateBody(alice, overrides));
        expect(res.status).toBe(400);
        expect((await errorOf(res)).details?.map((d) => d.field)).toEqual([field]);
      }
      expect(await mandateCount(acme)).toBe(0);
    });

    it("replays the stored answer for the same Idempotency-Key and creates one mandate", async () => {
      const body = w.mandateBody(alice);
      const first = await h.call(acme, "POST", `${TENANT}/mandates`, {
        body,
        idempotencyKey: "mandate-once",
      });
      const again = await h.call(acme, "POST", `${TENANT}/mandates`, {
        body,
        idempotencyKey: "mandate-once",
      });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(await again.text()).toBe(await first.text());
      expect(await mandateCount(acme)).toBe(1);
    });

    it("404 for a mandate, customer or wallet outside the account, identical to a nonexistent one", async () => {
      const m = await w.createMandate(acme, alice);
      for (const uid of [m.uid, "man_does_not_exist"]) {
        const res = await h.call(globex, "GET", `${TENANT}/mandates/${uid}`);
        expect(res.status).toBe(404);
        expect((await errorOf(res)).error).toBe("NotFound");
      }
      // globex names acme's customer: 404, nothing created.
      const res = await w.postMandate(globex, w.mandateBody(alice));
      expect(res.status).toBe(404);
      expect(await mandateCount(globex)).toBe(0);
    });

    it("business refusals: 422 with nothing created (formula, beneficiary, portal, wallet, currency, validTo passed)", async () => {
      const cases: [string, Record<string, unknown>, string][] = [
        [
          "formula",
          { amountRule: "formula", fixedOrMaxAmountMinor: null, formula: { base: "usage" } },
          "UnprocessableEntity",
        ],
        ["beneficiary unable to collect", { beneficiaryEntityCode: "DORMANTCO" }, "UnprocessableEntity"],
        ["unknown beneficiary", { beneficiaryEntityCode: "NOBODY" }, "UnprocessableEntity"],
        ["wallet of another customer", { walletUid: bob.walletUid }, "UnprocessableEntity"],
        ["currency", { currency: "UGX" }, "CurrencyMismatch"],
        ["validTo passed", { validTo: "2026-11-21T00:00:00.000Z" }, "UnprocessableEntity"],
      ];
      for (const [label, overrides, code] of cases) {
        const res = await w.postMandate(acme, w.mandateBody(alice, overrides));
        expect([label, res.status]).toEqual([label, 422]);
        expect([label, (await errorOf(res)).error]).toEqual([label, code]);
      }
      const portal = w.mandateBody(alice);
      portal.agreement.acceptedChannel = "portal";
      const res = await w.postMandate(acme, portal);
      expect(res.status).toBe(422);
      expect((await errorOf(res)).details).toEqual([
        { field: "agreement.acceptedChannel", issue: expect.any(String) },
      ]);
      expect(await mandateCount(acme)).toBe(0);
      expect((await agreements(acme, alice.uid)).map((a) => a.agreementType)).toEqual(["wallet_opening"]);
      expect((await w.events("acme")).filter((e) => e.type.startsWith("mandate."))).toEqual([]);
    });

    it("400 for the cross-field rules the core checks (amount required unless formula, validTo after validFrom)", async () => {
      for (const [overrides, field] of [
        [{ fixedOrMaxAmountMinor: undefined }, "fixedOrMaxAmountMinor"],
        [{ fixedOrMaxAmountMinor: null, amountRule: "fixed" }, "fixedOrMaxAmountMinor"],
        [{ validFrom: "2026-12-01T00:00:00.000Z", validTo: "2026-12-01T00:00:00.000Z" }, "validTo"],
      ] as const) {
        const res = await w.postMandate(acme, w.mandateBody(alice, overrides));
        expect(res.status).toBe(400);
        expect((await errorOf(res)).details?.map((d) => d.field)).toEqual([field]);
      }
      expect(await mandateCount(acme)).toBe(0);
    });

    it("enforces the spec's limits (400 naming the field) and accepts values at the limits", async () => {
      const hex64 = "ab".repeat(32);
      const atLimits = w.mandateBody(alice, {
        clientReference: "r".repeat(200),
        formula: undefined,
        retryPolicy: { attempts: 3, backoff: { seconds: [60, 600] } },
        agreement: {
          documentType: "t".repeat(40),
          documentVersion: "v".repeat(40),
          documentUri: `https://acme.example/${"u".repeat(500 - 21)}`,
          documentHash: hex64,
          acceptedAt: "2026-11-22T09:58:00.000Z",
          acceptedChannel: "mobile_app",
          evidence: {},
        },
        assertion: w.assertion(alice.uid, {
          factor1Type: "f".repeat(32),
          factor2Type: "g".repeat(32),
          channelCode: "c".repeat(40),
          sourceReference: "s".repeat(160),
          deviceHash: hex64,
        }),
      });
      const ok = await w.postMandate(acme, atLimits);
      expect(ok.status).toBe(201);

      const over: [string, (b: ReturnType<MandateWorld["mandateBody"]>) => void][] = [
        ["beneficiaryEntityCode", (b) => Object.assign(b, { beneficiaryEntityCode: "B".repeat(41) })],
        ["agreement.documentType", (b) => Object.assign(b.agreement, { documentType: "t".repeat(41) })],
        ["agreement.documentVersion", (b) => Object.assign(b.agreement, { documentVersion: "v".repeat(41) })],
        ["agreement.documentUri", (b) => Object.assign(b.agreement, { documentUri: "u".repeat(501) })],
        ["agreement.documentHash", (b) => Object.assign(b.agreement, { documentHash: "z".repeat(64) })],
        ["agreement.evidence", (b) => Object.assign(b.agreement, { evidence: undefined })],
        ["assertion.factor1Type", (b) => Object.assign(b.assertion, { factor1Type: "f".repeat(33) })],
        ["assertion.factor2Type", (b) => Object.assign(b.assertion, { factor2Type: "g".repeat(33) })],
        ["assertion.channelCode", (b) => Object.assign(b.assertion, { channelCode: "c".repeat(41) })],
        [
          "assertion.sourceReference",
          (b) => Object.assign(b.assertion, { sourceReference: "s".repeat(161) }),
        ],
        ["assertion.deviceHash", (b) => Object.assign(b.assertion, { deviceHash: "ab".repeat(31) })],
        ["assertion.assuranceLevel", (b) => Object.assign(b.assertion, { assuranceLevel: "three_factor" })],
        ["assertion.expiresAt", (b) => Object.assign(b.assertion, { expiresAt: "tomorrow" })],
        ["assertion.customerUid", (b) => Object.assign(b.assertion, { customerUid: undefined })],
        ["assertion.nickname", (b) => Object.assign(b.assertion, { nickname: "x" })],
        [
          "assertion.transactionBinding.algorithm",
          (b) =>
            Object.assign(b.assertion, {
              transactionBinding: { hash: hex64, algorithm: "md5", canonical: "a|b" },
            }),
        ],
        [
          "assertion.transactionBinding.hash",
          (b) =>
            Object.assign(b.assertion, {
              transactionBinding: { hash: "abc", algorithm: "sha256", canonical: "a|b" },
            }),
        ],
        ["assertion", (b) => Object.assign(b, { assertion: undefined })],
        ["formula", (b) => Object.assign(b, { formula: [1, 2] })],
        ["retryPolicy", (b) => Object.assign(b, { retryPolicy: "daily" })],
        ["frequency", (b) => Object.assign(b, { frequency: "hourly" })],
        ["fixedOrMaxAmountMinor", (b) => Object.assign(b, { fixedOrMaxAmountMinor: 0 })],
        ["validFrom", (b) => Object.assign(b, { validFrom: "2026-13-01" })],
        ["agreementUid", (b) => Object.assign(b, { agreementUid: "agr_x" })],
      ];
      for (const [field, mutate] of over) {
        const body = w.mandateBody(alice);
        mutate(body);
        const res = await w.postMandate(acme, body);
        expect([field, res.status]).toEqual([field, 400]);
        const details = (await errorOf(res)).details ?? [];
        expect([field, details.map((d) => d.field)]).toEqual([field, [field]]);
      }
      // factor2Type is required unless single_factor: checked by the core, still a 400.
      const noSecondFactor = w.mandateBody(alice, {
        assertion: w.assertion(alice.uid, { factor2Type: undefined }),
      });
      const res = await w.postMandate(acme, noSecondFactor);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).details?.map((d) => d.field)).toEqual(["assertion.factor2Type"]);
      expect(await mandateCount(acme)).toBe(1);
    });
  });

  describe("assertion refusals on POST /mandates (spec, refusals table): 422, nothing created", () => {
    it.each([
      [
        "expired",
        (now: number) => ({
          authenticatedAt: new Date(now - 300_000).toISOString(),
          expiresAt: new Date(now - 1_000).toISOString(),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "lifetime over 10 minutes",
        (now: number) => ({
          authenticatedAt: new Date(now - 60_000).toISOString(),
          expiresAt: new Date(now - 60_000 + 600_001).toISOString(),
        }),
        "AuthorizationInsufficient",
      ],
      [
        "second factor required (fixedOrMaxAmountMinor above the two-factor threshold)",
        () => ({ assuranceLevel: "single_factor", factor2Type: undefined }),
        "AuthorizationInsufficient",
      ],
    ])("%s -> %s", async (_label, overrides, code) => {
      // The clock moves one second before the request is signed; the assertion is judged then.
      const now = h.clock.now().getTime() + 1_000;
      const res = await w.postMandate(
        acme,
        w.mandateBody(alice, { assertion: w.assertion(alice.uid, overrides(now)) }),
      );
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe(code);
      expect(await mandateCount(acme)).toBe(0);
      expect((await agreements(acme, alice.uid)).map((a) => a.agreementType)).toEqual(["wallet_opening"]);
    });

    it("identifierUid not the customer's -> UnprocessableEntity; the customer's own identifier is accepted", async () => {
      const bobs = bob.identifiers[0]!.uid;
      const res = await w.postMandate(
        acme,
        w.mandateBody(alice, { assertion: w.assertion(alice.uid, { identifierUid: bobs }) }),
      );
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("UnprocessableEntity");
      // Another tenant's identifier is just as foreign.
      const ginas = gina.identifiers[0]!.uid;
      const foreign = await w.postMandate(
        acme,
        w.mandateBody(alice, { assertion: w.assertion(alice.uid, { identifierUid: ginas }) }),
      );
      expect(foreign.status).toBe(422);
      expect(await mandateCount(acme)).toBe(0);
      const own = alice.identifiers[0]!.uid;
      const ok = await w.postMandate(
        acme,
        w.mandateBody(alice, { assertion: w.assertion(alice.uid, { identifierUid: own }) }),
      );
      expect(ok.status).toBe(201);
    });

    it("assertion for another customer -> UnprocessableEntity", async () => {
      const res = await w.postMandate(acme, w.mandateBody(alice, { assertion: w.assertion(bob.uid) }));
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("UnprocessableEntity");
      expect(await mandateCount(acme)).toBe(0);
    });

    it("sourceReference live for another customer -> UnprocessableEntity; the same customer may reuse it (audited)", async () => {
      const shared = { sourceReference: "login-7f3a" };
      expect(
        (await w.postMandate(acme, w.mandateBody(bob, { assertion: w.assertion(bob.uid, shared) }))).status,
      ).toBe(201);
      const res = await w.postMandate(
        acme,
        w.mandateBody(alice, { assertion: w.assertion(alice.uid, shared) }),
      );
      expect(res.status).toBe(422);
      expect((await errorOf(res)).error).toBe("UnprocessableEntity");
      expect(await mandateCount(acme)).toBe(1);
      // Another tenant's registry is its own.
      expect(
        (await w.postMandate(globex, w.mandateBody(gina, { assertion: w.assertion(gina.uid, shared) })))
          .status,
      ).toBe(201);

      const again = await w.postMandate(
        acme,
        w.mandateBody(bob, { assertion: w.assertion(bob.uid, shared) }),
      );
      expect(again.status).toBe(201);
      const audit = await h.admin("GET", `${ADMIN}/audit?tenantId=acme`);
      const rows = ((await audit.json()) as { data: { action: string; customerUid: string | null }[] }).data;
      expect(rows.filter((r) => r.action === "assertion.source_reference_reused")).toEqual([
        expect.objectContaining({ customerUid: bob.uid }),
      ]);

      // Once the first assertion has expired, the reference is no longer live for anyone.
      h.clock.advanceMs(600_000);
      expect(
        (await w.postMandate(acme, w.mandateBody(alice, { assertion: w.assertion(alice.uid, shared) })))
          .status,
      ).toBe(201);
    });

    it("a transactionBinding on POST /mandates is only shape-checked (there is no amount to bind)", async () => {
      const binding = {
        hash: "0".repeat(64),
        algorithm: "sha256",
        canonical: "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference",
      };
      const res = await w.postMandate(
        acme,
        w.mandateBody(alice, { assertion: w.assertion(alice.uid, { transactionBinding: binding }) }),
      );
      expect(res.status).toBe(201);
    });
  });

  describe("GET /mandates", () => {
    it("filters by customerUid and status, paginates, sorts; a customer outside the account matches nothing", async () => {
      const a1 = await w.createMandate(acme, alice);
      const a2 = await w.createMandate(acme, alice, { validFrom: "2027-01-01T00:00:00.000Z" });
      const a3 = await w.createMandate(acme, alice);
      const b1 = await w.createMandate(acme, bob);
      await w.createMandate(globex, gina);
      expect((await w.revoke(acme, a3.uid, { reason: "customer request" })).status).toBe(200);

      const list = async (query: string) => {
        const res = await h.call(acme, "GET", `${TENANT}/mandates${query}`);
        expect(res.status).toBe(200);
        return v.parse(mandateListSchema, await res.json());
      };
      const all = await list("");
      expect(all.meta).toEqual({ total: 4, page: 1, limit: 20, totalPages: 1 });
      // Newest first by default.
      expect(all.data.map((m) => m.uid)).toEqual([b1.uid, a3.uid, a2.uid, a1.uid]);
      expect((await list(`?customerUid=${alice.uid}`)).data.map((m) => m.uid)).toEqual([
        a3.uid,
        a2.uid,
        a1.uid,
      ]);
      expect((await list("?status=pending")).data.map((m) => m.uid)).toEqual([a2.uid]);
      expect((await list(`?customerUid=${alice.uid}&status=revoked`)).data).toEqual([
        expect.objectContaining({ uid: a3.uid, status: "revoked", revokedAt: expect.any(String) }),
      ]);
      expect((await list(`?customerUid=${gina.uid}`)).meta.total).toBe(0);
      expect((await list("?customerUid=cus_nobody")).meta.total).toBe(0);

      const page2 = await list("?limit=3&page=2&sortBy=createdAt:ASC&sortBy=id:ASC");
      expect(page2.meta).toEqual({ total: 4, page: 2, limit: 3, totalPages: 2 });
      expect(page2.data.map((m) => m.uid)).toEqual([b1.uid]);
      expect((await list("?limit=1000")).meta.limit).toBe(100);

      for (const query of [
        "?sortBy=amountRule:ASC",
        "?status=dormant",
        "?page=0",
        "?owner=x",
        "?status=active&status=pending",
      ]) {
        const res = await h.call(acme, "GET", `${TENANT}/mandates${query}`);
        expect([query, res.status]).toEqual([query, 400]);
      }
    });

    it("the customer summary's mandatesCount counts the tenant's mandates on that customer, whatever their status", async () => {
      const summaryCount = async (t: SeededTenant, c: CustomerView) => {
        const res = await h.call(t, "GET", `${TENANT}/customers/${c.uid}`);
        expect(res.status).toBe(200);
        return ((await res.json()) as { mandatesCount: number }).mandatesCount;
      };
      expect(await summaryCount(acme, alice)).toBe(0);
      await w.createMandate(acme, alice);
      await w.createMandate(acme, alice, { validFrom: "2027-01-01T00:00:00.000Z" });
      const revoked = await w.createMandate(acme, alice);
      expect((await w.revoke(acme, revoked.uid, { reason: "customer request" })).status).toBe(200);
      await w.createMandate(acme, bob);
      await w.createMandate(globex, gina);
      expect(await summaryCount(acme, alice)).toBe(3);
      expect(await summaryCount(acme, bob)).toBe(1);
      expect(await summaryCount(globex, gina)).toBe(1);
    });

    it("needs mandates:read (403, never naming the scope); writes need mandates:write", async () => {
      const reader = await seedTenant(store.uow, { id: "acme-reader", scopes: ["customers:read"] });
      const res = await h.call(reader, "GET", `${TENANT}/mandates`);
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain("mandates:read");
      expect((await w.postMandate(reader, w.mandateBody(alice))).status).toBe(403);
    });
  });

  describe("POST /mandates/{uid}/revoke", () => {
    it("revokes (terminal): revokedAt set, cited acceptance revoked, mandate.revoked; a second revoke is 409", async () => {
      const m = await w.createMandate(acme, alice);
      const res = await w.revoke(acme, m.uid, { reason: "customer asked by phone" });
      expect(res.status).toBe(200);
      const revoked = v.parse(mandateViewSchema, await res.json());
      expect(revoked).toMatchObject({ uid: m.uid, status: "revoked", revokedAt: expect.any(String) });
      expect(await w.getMandate(acme, m.uid)).toEqual(revoked);
      expect(await agreementStatus(acme, m)).toBe("revoked");
      expect(
        (await w.events("acme")).filter((e) => e.type === "mandate.revoked").map((e) => e.resourceUid),
      ).toEqual([m.uid]);

      const again = await w.revoke(acme, m.uid, { reason: "twice" });
      expect(again.status).toBe(409);
      expect((await errorOf(again)).error).toBe("Conflict");
      expect(await w.getMandate(acme, m.uid)).toEqual(revoked);
    });

    it("with an assertion: must be the mandate's customer's (422 otherwise, nothing changes)", async () => {
      const m = await w.createMandate(acme, alice);
      const wrong = await w.revoke(acme, m.uid, { reason: "stop", assertion: w.assertion(bob.uid) });
      expect(wrong.status).toBe(422);
      expect((await errorOf(wrong)).error).toBe("UnprocessableEntity");
      const expired = await w.revoke(acme, m.uid, {
        reason: "stop",
        assertion: w.assertion(alice.uid, {
          authenticatedAt: new Date(Date.parse(START) - 600_000).toISOString(),
          expiresAt: new Date(Date.parse(START) - 1).toISOString(),
        }),
      });
      expect(expired.status).toBe(422);
      expect((await errorOf(expired)).error).toBe("AuthorizationInsufficient");
      expect((await w.getMandate(acme, m.uid)).status).toBe("active");
      expect(await agreementStatus(acme, m)).toBe("accepted");

      const ok = await w.revoke(acme, m.uid, { reason: "stop", assertion: w.assertion(alice.uid) });
      expect(ok.status).toBe(200);
      expect((await ok.json()) as MandateView).toMatchObject({ status: "revoked" });
    });

    it("validates the body (reason required, at most 500) and 404s outside the account", async () => {
      const m = await w.createMandate(acme, alice);
      for (const [body, field] of [
        [{}, "reason"],
        [{ reason: "" }, "reason"],
        [{ reason: "r".repeat(501) }, "reason"],
        [{ reason: "ok", assertion: { customerUid: alice.uid } }, "assertion.assuranceLevel"],
        [{ reason: "ok", revokedBy: "customer" }, "revokedBy"],
      ] as const) {
        const res = await w.revoke(acme, m.uid, body);
        expect(res.status).toBe(400);
        expect((await errorOf(res)).details?.map((d) => d.field)).toContain(field);
      }
      expect((await w.revoke(acme, m.uid, { reason: "r".repeat(500) })).status).toBe(200);
      const other = await w.createMandate(acme, bob);
      expect((await w.revoke(globex, other.uid, { reason: "not mine" })).status).toBe(404);
      expect((await w.getMandate(acme, other.uid)).status).toBe("active");
    });
  });

  describe("replacesMandateUid", () => {
    it("supersedes atomically: the old mandate revoked, its acceptance superseded; the new one cites it", async () => {
      const old = await w.createMandate(acme, alice);
      const next = await w.createMandate(acme, alice, {
        replacesMandateUid: old.uid,
        fixedOrMaxAmountMinor: 700_000,
      });
      expect(next).toMatchObject({
        status: "active",
        replacesMandateUid: old.uid,
        fixedOrMaxAmountMinor: 700_000,
      });
      expect(await w.getMandate(acme, old.uid)).toMatchObject({
        status: "revoked",
        revokedAt: expect.any(String),
      });
      expect(await agreementStatus(acme, old)).toBe("superseded");
      expect(await agreementStatus(acme, next)).toBe("accepted");
      const types = (await w.events("acme"))
        .filter((e) => e.type.startsWith("mandate."))
        .map((e) => [e.type, e.resourceUid]);
      expect(types).toEqual([
        ["mandate.created", old.uid],
        ["mandate.created", next.uid],
        ["mandate.revoked", old.uid],
      ]);
    });

    it("refuses a final mandate (409) and another customer's or tenant's (404), leaving everything untouched", async () => {
      const old = await w.createMandate(acme, alice);
      expect((await w.revoke(acme, old.uid, { reason: "done" })).status).toBe(200);
      const final = await w.postMandate(acme, w.mandateBody(alice, { replacesMandateUid: old.uid }));
      expect(final.status).toBe(409);

      const bobs = await w.createMandate(acme, bob);
      const notHis = await w.postMandate(acme, w.mandateBody(alice, { replacesMandateUid: bobs.uid }));
      expect(notHis.status).toBe(404);
      const ginas = await w.createMandate(globex, gina);
      expect(
        (await w.postMandate(acme, w.mandateBody(alice, { replacesMandateUid: ginas.uid }))).status,
      ).toBe(404);

      // A refusal later in the same request rolls the supersession back too.
      const live = await w.createMandate(acme, alice);
      const refused = await w.postMandate(
        acme,
        w.mandateBody(alice, { replacesMandateUid: live.uid, beneficiaryEntityCode: "DORMANTCO" }),
      );
      expect(refused.status).toBe(422);
      expect(await w.getMandate(acme, live.uid)).toMatchObject({ status: "active", revokedAt: null });
      expect(await agreementStatus(acme, live)).toBe("accepted");
      expect(await w.getMandate(acme, bobs.uid)).toMatchObject({ status: "active" });
      expect(await mandateCount(acme)).toBe(3);
    });
  });

  describe("operator: PATCH /admin/mandates/{uid}", () => {
    it("suspends an active mandate and resumes it (mandate.status_changed); debits are refused while suspended", async () => {
      const m = await w.createMandate(acme, alice, { frequency: "ad_hoc" });
      await w.credit(acme, alice.walletUid, 100_000);

      const suspended = await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "suspended" });
      expect(suspended.status).toBe(200);
      expect(v.parse(mandateViewSchema, await suspended.json())).toMatchObject({
        uid: m.uid,
        status: "suspended",
      });
      expect((await w.getMandate(acme, m.uid)).status).toBe("suspended");
      const refused = await w.mandateDebit(acme, m, 1_000);
      expect(refused.status).toBe(422);
      const refusedDirect = await w.debit(acme, w.debitBody(alice, m, 1_000));
      expect(refusedDirect.status).toBe(422);

      expect((await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "suspended" })).status).toBe(
        409,
      );
      const resumed = await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "active" });
      expect(resumed.status).toBe(200);
      expect(((await resumed.json()) as MandateView).status).toBe("active");
      expect((await w.mandateDebit(acme, m, 1_000)).status).toBe(201);

      const changes = (await w.events("acme")).filter((e) => e.type === "mandate.status_changed");
      expect(changes.map((e) => e.body.data.mandate?.status)).toEqual(["suspended", "active"]);
    });

    it("a suspension racing the activation job suspends either way, never a 'retry' 409 (10 rounds)", async () => {
      const validFrom = "2026-12-01T00:00:00.000Z";
      for (let round = 0; round < 10; round++) {
        const m = await w.createMandate(acme, alice, { validFrom, clientReference: `pending-${round}` });
        expect(m.status).toBe("pending");
        const [suspended] = await Promise.all([
          h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "suspended" }),
          w.runJob("activate-mandates", { asOf: validFrom }),
        ]);
        expect(suspended.status, `round ${round}`).toBe(200);
        expect((await w.getMandate(acme, m.uid)).status).toBe("suspended");
      }
    });

    it("a revocation racing a suspension is revoked either way, never a stored 'retry' (8 rounds)", async () => {
      for (let round = 0; round < 8; round++) {
        const m = await w.createMandate(acme, alice);
        const [revoked] = await Promise.all([
          h.call(acme, "POST", `${TENANT}/mandates/${m.uid}/revoke`, {
            body: { reason: "stop" },
            idempotencyKey: `race-revoke-${round}`,
          }),
          h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "suspended" }),
        ]);
        // Suspended first, the revocation still applies (a suspended mandate can be revoked).
        expect(revoked.status, `round ${round}`).toBe(200);
        expect((await w.getMandate(acme, m.uid)).status).toBe("revoked");
      }
    });

    it("409 from a final status, 404 for an unknown mandate, 400 for another status", async () => {
      const m = await w.createMandate(acme, alice);
      expect((await w.revoke(acme, m.uid, { reason: "done" })).status).toBe(200);
      expect((await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "active" })).status).toBe(409);
      expect((await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "suspended" })).status).toBe(
        409,
      );
      expect((await h.admin("PATCH", `${ADMIN}/mandates/man_nobody`, { status: "suspended" })).status).toBe(
        404,
      );
      for (const body of [{ status: "revoked" }, { status: "suspended", reason: "x" }, {}]) {
        expect((await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, body)).status).toBe(400);
      }
      expect(
        (await h.admin("PATCH", `${ADMIN}/mandates/${m.uid}`, { status: "active" }, "wrong-token")).status,
      ).toBe(401);
    });
  });

  describe("operator: POST /admin/jobs/{job}/run", () => {
    const processed = async (res: Response) => {
      expect(res.status).toBe(200);
      return v.parse(jobRunViewSchema, await res.json());
    };

    it("activate-mandates with asOf (sandbox): pending mandates whose validFrom has come; idempotent", async () => {
      const validFrom = "2026-11-25T00:00:00.000Z";
      const m = await w.createMandate(acme, alice, { validFrom });
      expect(m.status).toBe("pending");
      expect(
        await processed(await w.runJob("activate-mandates", { asOf: "2026-11-24T23:59:59.999Z" })),
      ).toEqual({
        job: "activate-mandates",
        processed: 0,
      });
      // Any ISO-8601 form, normalized: 03:00+03:00 is midnight UTC.
      expect(
        await processed(await w.runJob("activate-mandates", { asOf: "2026-11-25T03:00:00+03:00" })),
      ).toEqual({
        job: "activate-mandates",
        processed: 1,
      });
      expect((await w.getMandate(acme, m.uid)).status).toBe("active");
      expect((await processed(await w.runJob("activate-mandates", { asOf: validFrom }))).processed).toBe(0);
      // Without asOf the job runs as of the clock, before validFrom here: nothing else is due.
      expect((await processed(await w.runJob("activate-mandates"))).processed).toBe(0);
    });

    it("expire-mandates: mandate.expired, then debits 422 and revoke 409", async () => {
      const m = await w.createMandate(acme, alice, {
        validTo: "2026-12-31T00:00:00.000Z",
        frequency: "ad_hoc",
      });
      const open = await w.createMandate(acme, alice);
      await w.credit(acme, alice.walletUid, 10_000);
      expect(
        (await processed(await w.runJob("expire-mandates", { asOf: "2026-12-30T23:59:59.999Z" }))).processed,
      ).toBe(0);
      expect(
        (await processed(await w.runJob("expire-mandates", { asOf: "2026-12-31T00:00:00.000Z" }))).processed,
      ).toBe(1);
      expect((await w.getMandate(acme, m.uid)).status).toBe("expired");
      expect((await w.getMandate(acme, open.uid)).status).toBe("active");
      expect(
        (await w.events("acme")).filter((e) => e.type === "mandate.expired").map((e) => e.resourceUid),
      ).toEqual([m.uid]);
      expect((await w.mandateDebit(acme, m, 1_000)).status).toBe(422);
      expect((await w.revoke(acme, m.uid, { reason: "too late" })).status).toBe(409);
      expect(
        (await processed(await w.runJob("expire-mandates", { asOf: "2027-01-31T00:00:00.000Z" }))).processed,
      ).toBe(0);
    });

    it("runs in bounded batches until done (501 due mandates: two transactions)", async () => {
      const template = await w.createMandate(acme, alice, { validFrom: "2026-12-01T00:00:00.000Z" });
      const stored = await store.uow.run((tx) => tx.mandates.get("acme", template.uid));
      await store.uow.run(async (tx) => {
        for (let i = 0; i < 500; i++) {
          await tx.mandates.insert({
            ...stored!,
            uid: `man_bulk_${String(i).padStart(4, "0")}`,
            agreementUid: null,
          });
        }
      });
      const res = await processed(await w.runJob("activate-mandates", { asOf: "2026-12-01T00:00:00.000Z" }));
      expect(res).toEqual({ job: "activate-mandates", processed: 501 });
      expect((await w.getMandate(acme, "man_bulk_0499")).status).toBe("active");
      const pending = await h.call(acme, "GET", `${TENANT}/mandates?status=pending`);
      expect(v.parse(mandateListSchema, await pending.json()).meta.total).toBe(0);
    });

    it("expire-topups: intents past expiresAt fail with topup.expired", async () => {
      const res = await h.call(acme, "POST", `${TENANT}/topup-intents`, {
        body: {
          walletUid: alice.walletUid,
          amountMinor: 5_000,
          currency: "KES",
          railCode: "sandbox_mobile",
          expiresInSeconds: 600,
          clientReference: "topup-1",
        },
      });
      expect(res.status).toBe(201);
      const intent = (await res.json()) as { uid: string; expiresAt: string };
      const before = new Date(Date.parse(intent.expiresAt) - 1).toISOString();
      expect((await processed(await w.runJob("expire-topups", { asOf: before }))).processed).toBe(0);
      expect(await processed(await w.runJob("expire-topups", { asOf: intent.expiresAt }))).toEqual({
        job: "expire-topups",
        processed: 1,
      });
      const detail = await h.call(acme, "GET", `${TENANT}/operations/${intent.uid}`);
      expect(((await detail.json()) as { state: string }).state).toBe("failed");
      expect(
        (await w.events("acme")).filter((e) => e.type === "topup.expired").map((e) => e.resourceUid),
      ).toEqual([intent.uid]);
    });

    it("asOf outside sandbox mode is 400; without asOf the job runs", async () => {
      const production = createHarness(store.uow, { sandbox: false });
      const run = (job: string, body?: unknown) => production.admin("POST", `${ADMIN}/jobs/${job}/run`, body);
      const res = await run("activate-mandates", { asOf: "2026-12-01T00:00:00.000Z" });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toEqual({
        error: "InvalidRequest",
        message: expect.any(String),
        details: [{ field: "asOf", issue: "accepted only in sandbox mode" }],
      });
      expect((await processed(await run("activate-mandates"))).processed).toBe(0);
      expect((await processed(await run("expire-mandates", {}))).processed).toBe(0);
    });

    it("deliver-webhooks goes to deps.runJob; a job nobody can run is 404; the body is validated", async () => {
      expect((await w.runJob("deliver-webhooks")).status).toBe(404);
      for (const job of ["reindex-everything", "constructor", "__proto__", "toString"]) {
        const unknown = await w.runJob(job, {});
        expect([job, unknown.status]).toEqual([job, 404]);
        expect((await errorOf(unknown)).error).toBe("NotFound");
      }

      const calls: [string, string | null][] = [];
      const withDispatcher = createHarness(store.uow, {
        runJob: async (job, asOf) => {
          calls.push([job, asOf]);
          return job === "deliver-webhooks" ? 7 : null;
        },
      });
      const run = (job: string, body?: unknown) =>
        withDispatcher.admin("POST", `${ADMIN}/jobs/${job}/run`, body);
      expect(await processed(await run("deliver-webhooks"))).toEqual({
        job: "deliver-webhooks",
        processed: 7,
      });
      expect(
        (await processed(await run("deliver-webhooks", { asOf: "2026-11-23T01:00:00+01:00" }))).processed,
      ).toBe(7);
      expect((await run("reindex-everything")).status).toBe(404);
      // The adapter's own jobs never reach the hook.
      expect((await processed(await run("expire-mandates"))).processed).toBe(0);
      expect(calls).toEqual([
        ["deliver-webhooks", null],
        ["deliver-webhooks", "2026-11-23T00:00:00.000Z"],
        ["reindex-everything", null],
      ]);

      for (const body of [{ asOf: "yesterday" }, { asOf: 1_700_000_000 }, { when: "now" }, "now"]) {
        expect((await w.runJob("expire-mandates", body)).status).toBe(400);
      }
      expect((await h.admin("POST", `${ADMIN}/jobs/expire-mandates/run`, undefined, "wrong")).status).toBe(
        401,
      );
    });
  });

  it("keeps the trial balance balanced through mandate flows", async () => {
    const m = await w.createMandate(acme, alice, { frequency: "ad_hoc" });
    await w.credit(acme, alice.walletUid, 50_000);
    expect((await w.mandateDebit(acme, m, 20_000)).status).toBe(201);
    expect((await w.trialBalance()).balanced).toBe(true);
  });
});
