import { createHash } from "node:crypto";
import { BINDING_TEMPLATE, bindingCanonical, operationTypes } from "@wallet/ledger-core";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { customerViewSchema } from "../src/customers/schemas.js";
import { feeQuoteViewSchema } from "../src/fees/schemas.js";
import { operationPageSchema, operationViewSchema, receiptViewSchema } from "../src/operations/schemas.js";
import { prefundViewSchema, trialBalanceViewSchema } from "../src/operator/schemas.js";
import { statementPageSchema, walletBalanceSchema } from "../src/wallets/schemas.js";
import {
  ADMIN,
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  TENANT,
} from "./support/fixture.js";
import { receiptHashOf } from "./support/jcs.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

const RAIL = "sandbox_mobile";
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const QUOTABLE = ["wallet_credit", "wallet_debit", "payout_b2c", "topup_c2b"];

/** GET /operations, statements, receipts and fee quotes through signed requests, on every store. */
describe.each(storeKinds())("money records on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;
  let globex: SeededTenant;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, { id: "acme", approvedRails: [RAIL] });
    globex = await seedTenant(store.uow, { id: "globex", approvedRails: [RAIL] });
    for (const id of ["acme", "globex"]) {
      const res = await h.admin("POST", `${ADMIN}/tenants/${id}/prefund`, {
        amountMinor: 50_000_000,
        currency: "KES",
      });
      expect(res.status).toBe(200);
    }
  });
  afterEach(async () => {
    await store.close();
  });

  const json = async <S extends v.GenericSchema>(res: Response, schema: S, status = 200) => {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    return v.parse(schema, JSON.parse(text));
  };
  const errorOf = async (res: Response) =>
    (await res.json()) as { error: string; message: string; details?: { field: string; issue: string }[] };

  /** A customer with its own msisdn and national id (both are verified, so unique in the tenant). */
  const onboard = async (t: SeededTenant, msisdn: string) => {
    const body = onboardingBody({}, msisdn);
    body.identifiers[1]!.value = `ID${msisdn.slice(-8)}`;
    return json(await h.call(t, "POST", `${TENANT}/customers`, { body }), customerViewSchema, 201);
  };
  const credit = async (t: SeededTenant, walletUid: string, amountMinor: number, clientReference: string) =>
    json(
      await h.call(t, "POST", `${TENANT}/wallet-credits`, {
        body: { walletUid, amountMinor, currency: "KES", clientReference },
      }),
      operationViewSchema,
      201,
    );
  const topupIntent = async (
    t: SeededTenant,
    walletUid: string,
    amountMinor: number,
    clientReference: string,
  ) =>
    json(
      await h.call(t, "POST", `${TENANT}/topup-intents`, {
        body: { walletUid, amountMinor, currency: "KES", railCode: RAIL, clientReference },
      }),
      operationViewSchema,
      201,
    );
  /** A payout to the customer's own verified msisdn, with a two-factor assertion bound to it. */
  const payout = async (
    t: SeededTenant,
    customer: v.InferOutput<typeof customerViewSchema>,
    amountMinor: number,
    clientReference: string,
  ) => {
    const destinationIdentifierUid = customer.identifiers.find((i) => i.type === "msisdn")!.uid;
    const now = h.clock.now().getTime();
    const body = {
      walletUid: customer.walletUid,
      destinationIdentifierUid,
      amountMinor,
      currency: "KES",
      railCode: RAIL,
      clientReference,
      assertion: {
        customerUid: customer.uid,
        assuranceLevel: "two_factor",
        factor1Type: "pin",
        factor2Type: "otp",
        authenticatedAt: new Date(now - 1_000).toISOString(),
        expiresAt: new Date(now + 300_000).toISOString(),
        channelCode: "app",
        sourceReference: `sess-${clientReference}`,
        transactionBinding: {
          hash: sha(
            bindingCanonical({
              customerUid: customer.uid,
              walletUid: customer.walletUid,
              amountMinor,
              currency: "KES",
              target: destinationIdentifierUid,
              clientReference,
            }),
          ),
          algorithm: "sha256",
          canonical: BINDING_TEMPLATE,
        },
      },
    };
    return json(await h.call(t, "POST", `${TENANT}/payouts`, { body }), operationViewSchema, 202);
  };
  const operations = async (query: string, t: SeededTenant = acme) =>
    json(await h.call(t, "GET", `${TENANT}/operations${query}`), operationPageSchema);
  const statement = async (walletUid: string, query = "", t: SeededTenant = acme) =>
    json(await h.call(t, "GET", `${TENANT}/wallets/${walletUid}/transactions${query}`), statementPageSchema);
  const uids = (page: { data: { uid: string }[] }) => page.data.map((o) => o.uid);
  const q = (params: Record<string, string | string[]>) => {
    const s = new URLSearchParams();
    for (const [k, val] of Object.entries(params)) for (const one of [val].flat()) s.append(k, one);
    return `?${s.toString()}`;
  };

  describe("GET /operations", () => {
    it("every filter narrows within the tenant; walletUid matches source or destination", async () => {
      const alice = await onboard(acme, "+254712345678");
      const bob = await onboard(acme, "+254712345679");
      const carol = await onboard(globex, "+254712345670");
      const a1 = await credit(acme, alice.walletUid, 2_000_000, "a-1");
      const a2 = await credit(acme, alice.walletUid, 200, "a-2");
      const b1 = await credit(acme, bob.walletUid, 300, "b-1");
      const top = await topupIntent(acme, alice.walletUid, 5_000, "t-1");
      const out = await payout(acme, alice, 1_000, "p-1");
      const c1 = await credit(globex, carol.walletUid, 400, "c-1");

      const all = await operations("");
      expect(all.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1 });
      // Newest first by default; another tenant's operation never appears.
      expect(uids(all)).toEqual([out.uid, top.uid, b1.uid, a2.uid, a1.uid]);
      expect(uids(await operations("", globex))).toEqual([c1.uid]);

      expect(uids(await operations(q({ customerUid: alice.uid })))).toEqual([
        out.uid,
        top.uid,
        a2.uid,
        a1.uid,
      ]);
      expect(uids(await operations(q({ customerUid: bob.uid })))).toEqual([b1.uid]);
      // Values outside the account match nothing (not a 404).
      expect((await operations(q({ customerUid: carol.uid }))).meta.total).toBe(0);
      expect((await operations(q({ walletUid: carol.walletUid }))).meta).toEqual({
        total: 0,
        page: 1,
        limit: 20,
        totalPages: 0,
      });
      expect((await operations(q({ customerUid: "cus_nope" }))).data).toEqual([]);

      // The payout leaves alice's wallet (source), the credits and the intent enter it (destination).
      expect(uids(await operations(q({ walletUid: alice.walletUid })))).toEqual([
        out.uid,
        top.uid,
        a2.uid,
        a1.uid,
      ]);
      expect(uids(await operations(q({ walletUid: bob.walletUid })))).toEqual([b1.uid]);

      expect(uids(await operations(q({ type: "wallet_credit" })))).toEqual([b1.uid, a2.uid, a1.uid]);
      expect(uids(await operations(q({ type: "topup_c2b" })))).toEqual([top.uid]);
      expect(uids(await operations(q({ type: "payout_b2c" })))).toEqual([out.uid]);
      expect((await operations(q({ type: "wallet_transfer" }))).meta.total).toBe(0);
      expect(uids(await operations(q({ state: "pending_provider" })))).toEqual([top.uid]);
      expect(uids(await operations(q({ state: "processing" })))).toEqual([out.uid]);
      expect(uids(await operations(q({ state: "completed" })))).toEqual([b1.uid, a2.uid, a1.uid]);
      expect((await operations(q({ state: "completed" }), globex)).data.map((o) => o.uid)).toEqual([c1.uid]);

      // Filters combine.
      expect(
        uids(
          await operations(
            q({
              customerUid: alice.uid,
              walletUid: alice.walletUid,
              type: "wallet_credit",
              state: "completed",
            }),
          ),
        ),
      ).toEqual([a2.uid, a1.uid]);
      expect((await operations(q({ customerUid: bob.uid, walletUid: alice.walletUid }))).meta.total).toBe(0);

      // Every item is the Operation projection.
      const listed = all.data.find((o) => o.uid === a2.uid)!;
      expect(listed).toEqual(a2);
      expect(listed.links).toEqual({
        self: `${TENANT}/operations/${a2.uid}`,
        receipt: `${TENANT}/operations/${a2.uid}/receipt`,
      });
    });

    it("from and to are inclusive bounds on createdAt exactly as returned, in any offset", async () => {
      const alice = await onboard(acme, "+254712345678");
      const ops = [];
      for (let i = 0; i < 4; i++) ops.push(await credit(acme, alice.walletUid, 100 + i, `r-${i}`));
      const [o0, o1, o2, o3] = ops as [(typeof ops)[0], (typeof ops)[0], (typeof ops)[0], (typeof ops)[0]];
      expect(o1.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      expect(uids(await operations(q({ from: o1.createdAt, to: o1.createdAt })))).toEqual([o1.uid]);
      expect(uids(await operations(q({ from: o1.createdAt, to: o2.createdAt })))).toEqual([o2.uid, o1.uid]);
      expect(uids(await operations(q({ from: o2.createdAt })))).toEqual([o3.uid, o2.uid]);
      expect(uids(await operations(q({ to: o1.createdAt })))).toEqual([o1.uid, o0.uid]);
      // One millisecond past either side excludes it.
      const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
      expect((await operations(q({ from: plus(o1.createdAt, 1), to: o1.createdAt }))).meta.total).toBe(0);
      expect((await operations(q({ from: o1.createdAt, to: plus(o1.createdAt, -1) }))).meta.total).toBe(0);
      expect((await operations(q({ from: o2.createdAt, to: o1.createdAt }))).meta.total).toBe(0);

      // The same instant written with an offset and without milliseconds is the same bound.
      const t = new Date(o1.createdAt);
      expect(t.getUTCMilliseconds()).toBe(0);
      const nairobi = new Date(t.getTime() + 3 * 3_600_000).toISOString().replace(".000Z", "+03:00");
      expect(uids(await operations(q({ from: nairobi, to: nairobi })))).toEqual([o1.uid]);
      // Sent with a raw +, which the query's form decoding reads as a space: 400 saying so.
      const raw = await h.call(acme, "GET", `${TENANT}/operations?from=${nairobi}`);
      expect(raw.status).toBe(400);
      expect(((await raw.json()) as { details: unknown }).details).toEqual([
        { field: "from", issue: expect.stringContaining("send a positive offset as %2B") },
      ]);
      const typo = await h.call(acme, "GET", `${TENANT}/operations?to=2026-11-22`);
      expect(((await typo.json()) as { details: unknown }).details).toEqual([
        { field: "to", issue: "must be an ISO-8601 timestamp such as 2026-11-22T10:00:00.000Z" },
      ]);
      // Sub-millisecond digits round toward the inside of the bound.
      const micro = (iso: string, digits: string) => iso.replace("Z", `${digits}Z`);
      expect(
        uids(await operations(q({ from: micro(o1.createdAt, "000"), to: micro(o1.createdAt, "999") }))),
      ).toEqual([o1.uid]);
      expect((await operations(q({ from: micro(o1.createdAt, "001"), to: o1.createdAt }))).meta.total).toBe(
        0,
      );
    });

    it("sorts by createdAt and id, ASC or DESC, repeatable; anything else is 400", async () => {
      const alice = await onboard(acme, "+254712345678");
      const first = await credit(acme, alice.walletUid, 100, "s-0");
      // Two credits in the same millisecond: only the second sort term orders them.
      h.clock.advanceMs(1_000);
      const tiedA = await json(
        await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
          body: { walletUid: alice.walletUid, amountMinor: 101, currency: "KES", clientReference: "s-1" },
          advanceClock: false,
        }),
        operationViewSchema,
        201,
      );
      const tiedB = await json(
        await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
          body: { walletUid: alice.walletUid, amountMinor: 102, currency: "KES", clientReference: "s-2" },
          advanceClock: false,
        }),
        operationViewSchema,
        201,
      );
      expect(tiedA.createdAt).toBe(tiedB.createdAt);
      const last = await credit(acme, alice.walletUid, 103, "s-3");
      const [lo, hi] = tiedA.uid < tiedB.uid ? [tiedA.uid, tiedB.uid] : [tiedB.uid, tiedA.uid];

      expect(uids(await operations(""))).toEqual([last.uid, hi, lo, first.uid]);
      expect(uids(await operations(q({ sortBy: "createdAt:DESC" })))).toEqual([last.uid, hi, lo, first.uid]);
      // id is appended as the tiebreaker, in the first term's direction, when sortBy names no id term.
      expect(uids(await operations(q({ sortBy: "createdAt:ASC" })))).toEqual([first.uid, lo, hi, last.uid]);
      expect(uids(await operations(q({ sortBy: ["createdAt:ASC", "id:DESC"] })))).toEqual([
        first.uid,
        hi,
        lo,
        last.uid,
      ]);
      expect(uids(await operations(q({ sortBy: ["createdAt:DESC", "id:ASC"] })))).toEqual([
        last.uid,
        lo,
        hi,
        first.uid,
      ]);
      expect(uids(await operations(q({ sortBy: "createdAt:DESC,id:ASC" })))).toEqual([
        last.uid,
        lo,
        hi,
        first.uid,
      ]);
      // Ids are time-ordered: id order is creation order.
      expect(uids(await operations(q({ sortBy: "id:ASC" })))).toEqual([first.uid, lo, hi, last.uid]);
      expect(uids(await operations(q({ sortBy: "id:DESC" })))).toEqual([last.uid, hi, lo, first.uid]);

      for (const bad of [
        q({ sortBy: "amountMinor:ASC" }),
        q({ sortBy: "createdAt" }),
        q({ sortBy: "createdAt:desc" }),
        q({ sortBy: ["createdAt:ASC", "state:DESC"] }),
        q({ page: ["1", "2"] }),
        q({ limit: ["10", "20"] }),
        q({ type: ["wallet_credit", "payout_b2c"] }),
        q({ customerUid: [alice.uid, alice.uid] }),
        q({ page: "0" }),
        q({ limit: "-5" }),
        q({ type: "credit" }),
        q({ state: "done" }),
        q({ from: "yesterday" }),
        q({ to: "2026-02-31T00:00:00Z" }),
        q({ amountMinor: "100" }),
      ]) {
        const res = await h.call(acme, "GET", `${TENANT}/operations${bad}`);
        expect(res.status, bad).toBe(400);
        const body = await errorOf(res);
        expect(body.error).toBe("InvalidRequest");
        expect(body.details?.length, bad).toBeGreaterThan(0);
      }
      // The refusal names the parameter and never echoes the value.
      const refused = await errorOf(
        await h.call(acme, "GET", `${TENANT}/operations${q({ sortBy: "secretField:ASC" })}`),
      );
      expect(refused.details?.[0]?.field).toBe("sortBy");
      expect(JSON.stringify(refused)).not.toContain("secretField");
    });

    it("pages: limit clamped to 100, a page beyond the end is empty with the right meta", async () => {
      const alice = await onboard(acme, "+254712345678");
      const created: string[] = [];
      for (let i = 0; i < 103; i++) created.push((await credit(acme, alice.walletUid, 100, `p-${i}`)).uid);
      const newestFirst = [...created].reverse();

      const clamped = await operations(q({ limit: "5000" }));
      expect(clamped.meta).toEqual({ total: 103, page: 1, limit: 100, totalPages: 2 });
      expect(uids(clamped)).toEqual(newestFirst.slice(0, 100));
      // Clamped however large, never refused.
      expect((await operations(q({ limit: "1".padEnd(25, "0") }))).meta.limit).toBe(100);
      expect((await operations(q({ limit: "101" }))).data).toHaveLength(100);
      const second = await operations(q({ limit: "1000", page: "2" }));
      expect(second.meta).toEqual({ total: 103, page: 2, limit: 100, totalPages: 2 });
      expect(uids(second)).toEqual(newestFirst.slice(100));

      const defaults = await operations("");
      expect(defaults.meta).toEqual({ total: 103, page: 1, limit: 20, totalPages: 6 });
      expect(defaults.data).toHaveLength(20);

      const pages: string[] = [];
      for (let p = 1; p <= 11; p++) {
        const page = await operations(q({ limit: "10", page: String(p), sortBy: "createdAt:ASC" }));
        expect(page.meta).toEqual({ total: 103, page: p, limit: 10, totalPages: 11 });
        pages.push(...uids(page));
      }
      expect(pages).toEqual(created);

      const beyond = await operations(q({ page: "7" }));
      expect(beyond).toEqual({ data: [], meta: { total: 103, page: 7, limit: 20, totalPages: 6 } });
      const far = await operations(q({ page: "999999999", limit: "100" }));
      expect(far).toEqual({ data: [], meta: { total: 103, page: 999_999_999, limit: 100, totalPages: 2 } });
      // Beyond the end of an empty result.
      expect(await operations(q({ page: "3", type: "payout_b2c" }))).toEqual({
        data: [],
        meta: { total: 0, page: 3, limit: 20, totalPages: 0 },
      });
    });

    it("needs operations:read", async () => {
      const reader = await seedTenant(store.uow, { id: "acme-wallets-only", scopes: ["wallets:read"] });
      const res = await h.call(reader, "GET", `${TENANT}/operations`);
      expect(res.status).toBe(403);
      expect((await errorOf(res)).error).toBe("Forbidden");
    });
  });

  describe("GET /wallets/{uid}/transactions", () => {
    it("lists what moved funds or reached a final state, relative to the wallet; includePending adds in-flight intents", async () => {
      const alice = await onboard(acme, "+254712345678");
      const bob = await onboard(acme, "+254712345679");
      const a1 = await credit(acme, alice.walletUid, 2_000_000, "a-1");
      const top = await topupIntent(acme, alice.walletUid, 5_000, "t-1");
      const out = await payout(acme, alice, 1_000_000, "p-1");
      await credit(acme, bob.walletUid, 300, "b-1");

      const st = await statement(alice.walletUid);
      expect(st.meta).toEqual({ total: 2, page: 1, limit: 20, totalPages: 1 });
      expect(st.data.map((i) => i.operationUid)).toEqual([out.uid, a1.uid]);
      const [payoutItem, creditItem] = st.data as [(typeof st.data)[0], (typeof st.data)[0]];
      expect(creditItem).toEqual({
        operationUid: a1.uid,
        amountMinor: 2_000_000,
        feeMinor: 0,
        taxMinor: 0,
        direction: "inbound",
        state: "completed",
        clientReference: "a-1",
        counterpartyHint: null,
        createdAt: a1.createdAt,
        completedAt: a1.completedAt,
        receipt: `${TENANT}/operations/${a1.uid}/receipt`,
        chargesRefundedMinor: 0,
      });
      // The payout has moved funds (debited, held) though it is still processing.
      expect(payoutItem).toMatchObject({
        operationUid: out.uid,
        amountMinor: 1_000_000,
        feeMinor: 17_500,
        taxMinor: 400,
        direction: "outbound",
        state: "processing",
        clientReference: "p-1",
        completedAt: null,
      });
      expect(payoutItem.counterpartyHint).toMatch(/\*/);
      expect(payoutItem.counterpartyHint).not.toContain("712345678");

      // includePending=true adds the intent that has moved nothing yet; false is the default.
      const pending = await statement(alice.walletUid, q({ includePending: "true" }));
      expect(pending.data.map((i) => i.operationUid)).toEqual([out.uid, top.uid, a1.uid]);
      expect(pending.data[1]).toMatchObject({
        direction: "inbound",
        state: "pending_provider",
        completedAt: null,
      });
      expect(await statement(alice.walletUid, q({ includePending: "false" }))).toEqual(st);
      for (const bad of ["1", "yes", "TRUE", ""]) {
        const res = await h.call(
          acme,
          "GET",
          `${TENANT}/wallets/${alice.walletUid}/transactions${q({ includePending: bad })}`,
        );
        expect(res.status, bad).toBe(400);
      }

      // The receipt path of an item answers.
      const receipt = await h.call(acme, "GET", creditItem.receipt);
      expect(receipt.status).toBe(200);
      expect(v.parse(receiptViewSchema, await receipt.json()).operationUid).toBe(a1.uid);

      // Bob's statement holds only bob's credit.
      expect((await statement(bob.walletUid)).data.map((i) => i.direction)).toEqual(["inbound"]);

      // The payout fails: the amount and its refundable charges (transfer fee 2,500 and its VAT
      // 400) go back, the levy stays. The rows then add up to the balance.
      const failed = await h.admin("POST", `${ADMIN}/rails/${RAIL}/payout-results`, {
        operationUid: out.uid,
        outcome: "failed",
      });
      expect(failed.status).toBe(200);
      const after = await statement(alice.walletUid);
      expect(after.data[0]).toMatchObject({
        operationUid: out.uid,
        state: "failed",
        chargesRefundedMinor: 2_900,
      });
      const net = after.data.reduce(
        (sum, i) =>
          i.direction === "inbound"
            ? sum + i.amountMinor - i.feeMinor - i.taxMinor
            : i.state === "failed"
              ? sum - (i.feeMinor + i.taxMinor - i.chargesRefundedMinor)
              : sum - i.amountMinor - i.feeMinor - i.taxMinor,
        0,
      );
      const bal = await (await h.call(acme, "GET", `${TENANT}/wallets/${alice.walletUid}/balance`)).json();
      expect(net).toBe((bal as { currentMinor: number }).currentMinor);
      expect(net).toBe(2_000_000 - 15_000);
    });

    it("filters by type, state and inclusive time bounds, pages and sorts; a closed period keeps its rows", async () => {
      const alice = await onboard(acme, "+254712345678");
      const c: v.InferOutput<typeof operationViewSchema>[] = [];
      for (let i = 0; i < 5; i++) c.push(await credit(acme, alice.walletUid, 2_000 + i, `c-${i}`));
      const top = await topupIntent(acme, alice.walletUid, 5_000, "t-1");
      const ids = (p: { data: { operationUid: string }[] }) => p.data.map((i) => i.operationUid);

      expect(ids(await statement(alice.walletUid, q({ type: "wallet_credit" })))).toEqual(
        [...c].reverse().map((o) => o.uid),
      );
      expect((await statement(alice.walletUid, q({ type: "topup_c2b" }))).meta.total).toBe(0);
      expect(ids(await statement(alice.walletUid, q({ type: "topup_c2b", includePending: "true" })))).toEqual(
        [top.uid],
      );
      expect(
        ids(await statement(alice.walletUid, q({ state: "pending_provider", includePending: "true" }))),
      ).toEqual([top.uid]);
      expect((await statement(alice.walletUid, q({ state: "pending_provider" }))).meta.total).toBe(0);
      expect(
        ids(await statement(alice.walletUid, q({ from: c[2]!.createdAt, to: c[2]!.createdAt }))),
      ).toEqual([c[2]!.uid]);
      expect(
        ids(await statement(alice.walletUid, q({ from: c[1]!.createdAt, to: c[3]!.createdAt }))),
      ).toEqual([c[3]!.uid, c[2]!.uid, c[1]!.uid]);

      const page2 = await statement(alice.walletUid, q({ limit: "2", page: "2", sortBy: "createdAt:ASC" }));
      expect(page2.meta).toEqual({ total: 5, page: 2, limit: 2, totalPages: 3 });
      expect(ids(page2)).toEqual([c[2]!.uid, c[3]!.uid]);
      expect(ids(await statement(alice.walletUid, q({ sortBy: "id:ASC", limit: "2" })))).toEqual([
        c[0]!.uid,
        c[1]!.uid,
      ]);
      expect(await statement(alice.walletUid, q({ page: "4", limit: "2" }))).toEqual({
        data: [],
        meta: { total: 5, page: 4, limit: 2, totalPages: 3 },
      });
      const clamped = await statement(alice.walletUid, q({ limit: "101" }));
      expect(clamped.meta.limit).toBe(100);

      // A closed period: later operations, and the intent expiring or not, never change its rows.
      const period = q({ from: c[0]!.createdAt, to: c[4]!.createdAt });
      const before = await h.call(acme, "GET", `${TENANT}/wallets/${alice.walletUid}/transactions${period}`);
      const beforeText = await before.text();
      await credit(acme, alice.walletUid, 7_000, "later-1");
      await payout(acme, alice, 1_000, "later-p");
      const after = await h.call(acme, "GET", `${TENANT}/wallets/${alice.walletUid}/transactions${period}`);
      expect(await after.text()).toBe(beforeText);

      for (const bad of [
        q({ sortBy: "amountMinor:DESC" }),
        q({ page: ["2", "3"] }),
        q({ type: "nope" }),
        q({ from: "2026-11-22" }),
        q({ walletUid: alice.walletUid }),
      ]) {
        expect(
          (await h.call(acme, "GET", `${TENANT}/wallets/${alice.walletUid}/transactions${bad}`)).status,
          bad,
        ).toBe(400);
      }
    });

    it("another tenant's wallet is 404, identical to one that does not exist; needs wallets:read", async () => {
      const alice = await onboard(acme, "+254712345678");
      await credit(acme, alice.walletUid, 100, "a-1");
      const theirs = await h.call(globex, "GET", `${TENANT}/wallets/${alice.walletUid}/transactions`);
      const missing = await h.call(globex, "GET", `${TENANT}/wallets/wal_nope/transactions`);
      expect(theirs.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(await theirs.text()).toBe(await missing.text());

      const opsOnly = await seedTenant(store.uow, { id: "acme-ops-only", scopes: ["operations:read"] });
      const res = await h.call(opsOnly, "GET", `${TENANT}/wallets/wal_nope/transactions`);
      expect(res.status).toBe(403);
    });
  });

  describe("GET /operations/{uid}/receipt", () => {
    const receiptOf = async (uid: string, t: SeededTenant = acme) => {
      const res = await h.call(t, "GET", `${TENANT}/operations/${uid}/receipt`);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return { text, receipt: v.parse(receiptViewSchema, JSON.parse(text)) };
    };

    it("a credit's receipt: fields, total, one journal, a hash over its canonical form, the same bytes on every read", async () => {
      const alice = await onboard(acme, "+254712345678");
      const op = await credit(acme, alice.walletUid, 250_000, "order-1");
      const { text, receipt } = await receiptOf(op.uid);
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(body).toEqual({
        operationUid: op.uid,
        type: "wallet_credit",
        occurredAt: op.completedAt,
        amountMinor: 250_000,
        feeMinor: 0,
        taxMinor: 0,
        totalDebitedMinor: 250_000,
        currency: "KES",
        counterparty: { hint: null },
        references: {
          clientReference: "order-1",
          providerReference: null,
          journalUids: receipt.references.journalUids,
        },
        feeBreakdown: [],
        state: "completed",
        receiptHash: receipt.receiptHash,
      });
      expect(receipt.references.journalUids).toHaveLength(1);
      expect(receipt.references.journalUids[0]).toMatch(/^jrn_/);
      expect(receipt.receiptHash).toMatch(/^[0-9a-f]{64}$/);
      expect(receipt.receiptHash).toBe(receiptHashOf(body));

      h.clock.advanceMs(3_600_000);
      await credit(acme, alice.walletUid, 1, "order-2");
      expect((await receiptOf(op.uid)).text).toBe(text);
    });

    it("a payout's receipt: charges itemized, totalDebitedMinor, provider reference and both journals once confirmed", async () => {
      const alice = await onboard(acme, "+254712345678");
      await credit(acme, alice.walletUid, 2_000_000, "fund");
      const op = await payout(acme, alice, 1_000_000, "po-9");

      const phase1 = await receiptOf(op.uid);
      expect(phase1.receipt).toMatchObject({
        type: "payout_b2c",
        state: "processing",
        occurredAt: op.createdAt,
        amountMinor: 1_000_000,
        feeMinor: 17_500,
        taxMinor: 400,
        totalDebitedMinor: 1_017_900,
        references: { clientReference: "po-9", providerReference: null },
        feeBreakdown: [
          { label: "Transfer fee", amountMinor: 2_500 },
          { label: "Levy", amountMinor: 15_000 },
          { label: "VAT", amountMinor: 400 },
        ],
      });
      expect(phase1.receipt.counterparty.hint).toMatch(/\*/);
      expect(phase1.receipt.counterparty.hint).not.toContain("712345678");
      expect(phase1.receipt.receiptHash).toBe(receiptHashOf(JSON.parse(phase1.text)));
      expect((await receiptOf(op.uid)).text).toBe(phase1.text);

      const confirmed = await h.admin("POST", `${ADMIN}/rails/${RAIL}/payout-results`, {
        operationUid: op.uid,
        outcome: "confirmed",
        providerReference: "PRV-1",
      });
      expect(confirmed.status, await confirmed.clone().text()).toBe(200);
      const detail = (await confirmed.json()) as { completedAt: string };

      const final = await receiptOf(op.uid);
      expect(final.receipt).toMatchObject({
        state: "completed",
        occurredAt: detail.completedAt,
        totalDebitedMinor: 1_017_900,
        references: { clientReference: "po-9", providerReference: "PRV-1" },
      });
      expect(final.receipt.references.journalUids.length).toBeGreaterThanOrEqual(2);
      expect(
        final.receipt.references.journalUids.slice(0, phase1.receipt.references.journalUids.length),
      ).toEqual(phase1.receipt.references.journalUids);
      expect(final.receipt.receiptHash).not.toBe(phase1.receipt.receiptHash);
      expect(final.receipt.receiptHash).toBe(receiptHashOf(JSON.parse(final.text)));
      h.clock.advanceMs(60_000);
      expect((await receiptOf(op.uid)).text).toBe(final.text);
    });

    it("is 404 until funds moved, and for another tenant's operation exactly as for a missing one", async () => {
      const alice = await onboard(acme, "+254712345678");
      const top = await topupIntent(acme, alice.walletUid, 5_000, "t-1");
      const pending = await h.call(acme, "GET", `${TENANT}/operations/${top.uid}/receipt`);
      expect(pending.status).toBe(404);
      expect((await errorOf(pending)).error).toBe("NotFound");
      // The operation itself exists.
      expect((await h.call(acme, "GET", `${TENANT}/operations/${top.uid}`)).status).toBe(200);

      const op = await credit(acme, alice.walletUid, 100, "a-1");
      const theirs = await h.call(globex, "GET", `${TENANT}/operations/${op.uid}/receipt`);
      const missing = await h.call(globex, "GET", `${TENANT}/operations/op_nope/receipt`);
      expect(theirs.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(await theirs.text()).toBe(await missing.text());

      const walletsOnly = await seedTenant(store.uow, { id: "acme-wallets-only", scopes: ["wallets:read"] });
      expect((await h.call(walletsOnly, "GET", `${TENANT}/operations/${op.uid}/receipt`)).status).toBe(403);
    });
  });

  describe("POST /fees/quote", () => {
    const quote = (
      body: Record<string, unknown>,
      t: SeededTenant = acme,
      idempotencyKey: string | null = null,
    ) => h.call(t, "POST", `${TENANT}/fees/quote`, { body, idempotencyKey });

    it("quotes the DESIGN.md payout schedule without an Idempotency-Key, and moves nothing", async () => {
      const alice = await onboard(acme, "+254712345678");
      await credit(acme, alice.walletUid, 2_000_000, "fund");
      const balanceBefore = await h.call(acme, "GET", `${TENANT}/wallets/${alice.walletUid}/balance`);
      const balanceText = await balanceBefore.text();
      const prefundBefore = await (await h.admin("GET", `${ADMIN}/tenants/acme/prefund?currency=KES`)).text();
      const trialBefore = await (await h.admin("GET", `${ADMIN}/ledger/trial-balance`)).text();
      const opsBefore = await operations("");

      const res = await quote({
        operationType: "payout_b2c",
        walletUid: alice.walletUid,
        amountMinor: 1_000_000,
        currency: "KES",
        railCode: RAIL,
      });
      expect(res.headers.get("Idempotent-Replayed")).toBeNull();
      expect(res.headers.get("X-Request-Id")).toBeTruthy();
      const q1 = await json(res, feeQuoteViewSchema);
      const now = h.clock.now().getTime();
      expect(q1).toEqual({
        quoteId: q1.quoteId,
        operationType: "payout_b2c",
        walletUid: alice.walletUid,
        currency: "KES",
        amountMinor: 1_000_000,
        feeMinor: 17_500,
        taxMinor: 400,
        totalMinor: 1_017_900,
        breakdown: [
          { label: "Transfer fee", type: "flat", amountMinor: 2_500, refundable: true, appliesToLabel: null },
          { label: "Levy", type: "percentage", amountMinor: 15_000, refundable: false, appliesToLabel: null },
          { label: "VAT", type: "vat", amountMinor: 400, refundable: true, appliesToLabel: "Transfer fee" },
        ],
        ruleVersion: { uid: "fsv_payout_std_1", ruleCode: "payout_std", versionNo: 1 },
        railCode: RAIL,
        validUntil: new Date(now + 300_000).toISOString(),
      });
      expect(q1.quoteId).toMatch(/^quo_/);

      // A second identical quote is a new quote (nothing is replayed), and no rail means railCode null.
      const q2 = await json(
        await quote({
          operationType: "payout_b2c",
          walletUid: alice.walletUid,
          amountMinor: 1_000_000,
          currency: "KES",
        }),
        feeQuoteViewSchema,
      );
      expect(q2.quoteId).not.toBe(q1.quoteId);
      expect(q2).toMatchObject({ totalMinor: 1_017_900, railCode: null });
      expect(
        (
          await json(
            await quote({
              operationType: "payout_b2c",
              walletUid: alice.walletUid,
              amountMinor: 1_000_000,
              currency: "KES",
              railCode: null,
            }),
            feeQuoteViewSchema,
          )
        ).railCode,
      ).toBeNull();
      // An Idempotency-Key, if sent anyway, changes nothing.
      const withKey = await json(
        await quote(
          {
            operationType: "payout_b2c",
            walletUid: alice.walletUid,
            amountMinor: 1_000_000,
            currency: "KES",
          },
          acme,
          "k-1",
        ),
        feeQuoteViewSchema,
      );
      expect(withKey.quoteId).not.toBe(q2.quoteId);

      // No operation, no money moved.
      expect(await operations("")).toEqual(opsBefore);
      expect(await (await h.call(acme, "GET", `${TENANT}/wallets/${alice.walletUid}/balance`)).text()).toBe(
        balanceText,
      );
      expect(await (await h.admin("GET", `${ADMIN}/tenants/acme/prefund?currency=KES`)).text()).toBe(
        prefundBefore,
      );
      expect(await (await h.admin("GET", `${ADMIN}/ledger/trial-balance`)).text()).toBe(trialBefore);
      v.parse(walletBalanceSchema, JSON.parse(balanceText));
      v.parse(prefundViewSchema, JSON.parse(prefundBefore));
      v.parse(trialBalanceViewSchema, JSON.parse(trialBefore));
    });

    it("lists a component that rounds to zero as 0; zero-fee types have no rule version", async () => {
      const alice = await onboard(acme, "+254712345678");
      const small = await json(
        await quote({
          operationType: "payout_b2c",
          walletUid: alice.walletUid,
          amountMinor: 33,
          currency: "KES",
        }),
        feeQuoteViewSchema,
      );
      // 1.5% of 33 = 0.495, half up -> 0; of 34 = 0.51 -> 1.
      expect(small.breakdown.map((l) => [l.label, l.amountMinor])).toEqual([
        ["Transfer fee", 2_500],
        ["Levy", 0],
        ["VAT", 400],
      ]);
      expect(small).toMatchObject({ feeMinor: 2_500, taxMinor: 400, totalMinor: 2_933 });
      const next = await json(
        await quote({
          operationType: "payout_b2c",
          walletUid: alice.walletUid,
          amountMinor: 34,
          currency: "KES",
        }),
        feeQuoteViewSchema,
      );
      expect(next.breakdown[1]?.amountMinor).toBe(1);

      for (const operationType of ["wallet_credit", "wallet_debit", "topup_c2b"]) {
        const zero = await json(
          await quote({
            operationType,
            walletUid: alice.walletUid,
            amountMinor: 5_000,
            currency: "KES",
            railCode: RAIL,
          }),
          feeQuoteViewSchema,
        );
        expect(zero).toMatchObject({
          operationType,
          feeMinor: 0,
          taxMinor: 0,
          totalMinor: 5_000,
          breakdown: [],
          ruleVersion: null,
          // A credit or a debit goes through no rail: the railCode sent is ignored.
          railCode: operationType === "topup_c2b" ? RAIL : null,
        });
      }
      // Ignored, it is not checked either: a rail the tenant is not approved for.
      const ignored = await quote({
        operationType: "wallet_credit",
        walletUid: alice.walletUid,
        amountMinor: 5_000,
        currency: "KES",
        railCode: "not_approved",
      });
      expect(ignored.status).toBe(200);
    });

    // The spec's list for this route has no 422: what a movement refuses as a business rule is 400 here.
    it("refuses: unquotable types 400, another tenant's wallet 404 like a missing one, currency 400, bad input 400", async () => {
      const alice = await onboard(acme, "+254712345678");
      const base = {
        operationType: "payout_b2c",
        walletUid: alice.walletUid,
        amountMinor: 1_000,
        currency: "KES",
      };

      const unquotable = operationTypes.filter((t) => !QUOTABLE.includes(t));
      expect(unquotable).toHaveLength(8);
      for (const operationType of unquotable) {
        const res = await quote({ ...base, operationType });
        expect(res.status, operationType).toBe(400);
        expect((await errorOf(res)).error).toBe("InvalidRequest");
      }

      const theirs = await quote(base, globex);
      const missing = await quote({ ...base, walletUid: "wal_nope" }, globex);
      expect(theirs.status).toBe(404);
      expect(missing.status).toBe(404);
      expect(await theirs.text()).toBe(await missing.text());
      // The wallet lookup comes before the type check: an unquotable type on a foreign wallet is 404.
      expect((await quote({ ...base, operationType: "hold" }, globex)).status).toBe(404);

      const usd = await quote({ ...base, currency: "USD" });
      expect(usd.status).toBe(400);
      expect(await errorOf(usd)).toMatchObject({
        error: "InvalidRequest",
        details: [{ field: "currency", issue: "expected KES" }],
      });
      const unapprovedRail = await quote({ ...base, railCode: "other_rail" });
      expect(unapprovedRail.status).toBe(400);

      for (const body of [
        { ...base, operationType: "payout" },
        { ...base, amountMinor: 0 },
        { ...base, amountMinor: 10.5 },
        { ...base, amountMinor: "1000" },
        { ...base, currency: "kes" },
        { ...base, railCode: "r".repeat(65) },
        { ...base, railCode: "" },
        { ...base, clientReference: "x" },
        { operationType: "payout_b2c", walletUid: alice.walletUid, amountMinor: 1_000 },
      ]) {
        const res = await quote(body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect((await errorOf(res)).error).toBe("InvalidRequest");
      }
      expect((await quote({ ...base, railCode: "r".repeat(64) })).status).toBe(400);

      // The largest amount is valid, but its payout fees would take the total past it: 400 (it
      // was a 500 "money overflow" once, found by the route fuzz). Just under the edge quotes.
      const max = Number.MAX_SAFE_INTEGER;
      const overflowing = await quote({ ...base, amountMinor: max });
      expect(overflowing.status).toBe(400);
      expect(await errorOf(overflowing)).toEqual({
        error: "InvalidRequest",
        message: "The amount with its fees and taxes exceeds the largest amount",
        details: [{ field: "amountMinor", issue: `amount + fees + taxes must not exceed ${max}` }],
      });
      expect((await quote({ ...base, operationType: "wallet_credit", amountMinor: max })).status).toBe(200);

      const opsOnly = await seedTenant(store.uow, { id: "acme-ops-only", scopes: ["operations:read"] });
      expect((await quote(base, opsOnly)).status).toBe(403);
      // Nothing was created by any of it.
      expect((await operations("")).meta.total).toBe(0);
    });
  });
});
