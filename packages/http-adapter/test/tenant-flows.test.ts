import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { customerSummaryViewSchema, customerViewSchema } from "../src/customers/schemas.js";
import { UNAUTHORIZED_BODY } from "../src/index.js";
import { operationDetailViewSchema, operationViewSchema } from "../src/operations/schemas.js";
import { prefundViewSchema, trialBalanceViewSchema } from "../src/operator/schemas.js";
import { walletBalanceSchema } from "../src/wallets/schemas.js";
import {
  ADMIN,
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  TENANT,
} from "./support/fixture.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

/** One suite, every store (kysely's dialect loop): memory, SQLite and, when configured, Postgres. */
describe.each(storeKinds())("tenant API flows on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;
  let globex: SeededTenant;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, { id: "acme" });
    globex = await seedTenant(store.uow, { id: "globex" });
  });
  afterEach(async () => {
    await store.close();
  });

  const fund = async (tenantId: string, amountMinor: number) => {
    const res = await h.admin("POST", `${ADMIN}/tenants/${tenantId}/prefund`, {
      amountMinor,
      currency: "KES",
    });
    expect(res.status).toBe(200);
    return v.parse(prefundViewSchema, await res.json());
  };
  const prefund = async (tenantId: string) => {
    const res = await h.admin("GET", `${ADMIN}/tenants/${tenantId}/prefund?currency=KES`);
    expect(res.status).toBe(200);
    return v.parse(prefundViewSchema, await res.json()).balanceMinor;
  };
  const onboard = async (t: SeededTenant, msisdn = "+254712345678") => {
    const res = await h.call(t, "POST", `${TENANT}/customers`, { body: onboardingBody({}, msisdn) });
    expect(res.status).toBe(201);
    return v.parse(customerViewSchema, await res.json());
  };
  const credit = (
    t: SeededTenant,
    walletUid: string,
    amountMinor: unknown,
    clientReference: string,
    idempotencyKey?: string,
  ) =>
    h.call(t, "POST", `${TENANT}/wallet-credits`, {
      body: { walletUid, amountMinor, currency: "KES", clientReference },
      ...(idempotencyKey ? { idempotencyKey } : {}),
    });
  const balance = async (t: SeededTenant, walletUid: string) => {
    const res = await h.call(t, "GET", `${TENANT}/wallets/${walletUid}/balance`);
    expect(res.status).toBe(200);
    return v.parse(walletBalanceSchema, await res.json());
  };
  const errorOf = async (res: Response) =>
    (await res.json()) as { error: string; message: string; details?: unknown[] };

  it("a credit's full journey: prefund -> onboard -> credit -> balance -> operation timeline -> trial balance", async () => {
    expect(await fund("acme", 1_000_000)).toEqual({
      tenantId: "acme",
      currency: "KES",
      balanceMinor: 1_000_000,
    });

    const onboarded = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(onboarded.status).toBe(201);
    expect(onboarded.headers.get("Idempotent-Replayed")).toBe("false");
    const customer = v.parse(customerViewSchema, await onboarded.json());
    expect(customer).toMatchObject({
      status: "active",
      kycTierCode: "tier_1",
      rulesProfileKey: "standard_kes",
    });
    expect(JSON.stringify(customer)).not.toContain("712345678");

    const credited = await credit(acme, customer.walletUid, 250_000, "order-1");
    expect(credited.status).toBe(201);
    expect(credited.headers.get("Idempotent-Replayed")).toBe("false");
    const op = v.parse(operationViewSchema, await credited.json());
    expect(op).toMatchObject({
      type: "wallet_credit",
      state: "completed",
      amountMinor: 250_000,
      clientReference: "order-1",
    });

    expect(await balance(acme, customer.walletUid)).toMatchObject({
      walletUid: customer.walletUid,
      currency: "KES",
      currentMinor: 250_000,
      heldMinor: 0,
      availableMinor: 250_000,
      status: "active",
    });

    const detailRes = await h.call(acme, "GET", `${TENANT}/operations/${op.uid}`);
    expect(detailRes.status).toBe(200);
    const detail = v.parse(operationDetailViewSchema, await detailRes.json());
    expect(detail.timeline.map((t) => [t.sequenceNo, t.fromState, t.toState])).toEqual([
      [0, null, "created"],
      [1, "created", "completed"],
    ]);
    expect(detail.provider).toBeNull();
    expect(detail.links.self).toBe(`${TENANT}/operations/${op.uid}`);

    expect(await prefund("acme")).toBe(750_000);
    const trial = await h.admin("GET", `${ADMIN}/ledger/trial-balance`);
    expect(trial.status).toBe(200);
    const tb = v.parse(trialBalanceViewSchema, await trial.json());
    expect(tb.balanced).toBe(true);
    expect(tb.currencies).toEqual([
      { currency: "KES", debitsMinor: 1_250_000, creditsMinor: 1_250_000, netMinor: 0 },
    ]);
  });

  it("customer summary: masked without customers:pii; clear contact values with it, audited", async () => {
    await fund("acme", 1_000);
    const customer = await onboard(acme);
    const maskedReader = await seedTenant(store.uow, {
      id: "acme-reader",
      scopes: ["customers:read"],
    });
    // Another tenant's key cannot see acme's customer at all.
    expect((await h.call(maskedReader, "GET", `${TENANT}/customers/${customer.uid}`)).status).toBe(404);

    const full = await h.call(acme, "GET", `${TENANT}/customers/${customer.uid}`, {
      headers: { "X-Request-Id": "audit-me-1" },
    });
    expect(full.status).toBe(200);
    const summary = v.parse(customerSummaryViewSchema, await full.json());
    const contact = summary.identifiers.find((i) => i.class === "contact");
    const document = summary.identifiers.find((i) => i.class === "identity_document");
    expect(contact?.value).toBe("+254712345678");
    expect(document?.value).toBeNull();
    expect(summary.wallets[0]?.walletUid).toBe(customer.walletUid);

    const audit = await h.admin("GET", `${ADMIN}/audit?tenantId=acme`);
    expect(audit.status).toBe(200);
    const rows = ((await audit.json()) as { data: { action: string; requestId: string; kid: string }[] })
      .data;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ requestId: "audit-me-1", kid: "k1", customerUid: customer.uid });

    const noPii = await seedTenant(store.uow, {
      id: "acme-nopii",
      scopes: ["customers:read", "customers:write"],
    });
    const other = await onboard(noPii, "+254700000001");
    const masked = v.parse(
      customerSummaryViewSchema,
      await (await h.call(noPii, "GET", `${TENANT}/customers/${other.uid}`)).json(),
    );
    expect(masked.identifiers.every((i) => i.value === null)).toBe(true);
    expect(JSON.stringify(masked)).not.toContain("700000001");
  });

  it("another tenant's customer, wallet and operation are 404, like ones that do not exist", async () => {
    await fund("acme", 10_000);
    const customer = await onboard(acme);
    const op = v.parse(
      operationViewSchema,
      await (await credit(acme, customer.walletUid, 100, "x-1")).json(),
    );
    const pairs: [string, string][] = [
      [`${TENANT}/customers/${customer.uid}`, `${TENANT}/customers/cus_nope`],
      [`${TENANT}/wallets/${customer.walletUid}/balance`, `${TENANT}/wallets/wal_nope/balance`],
      [`${TENANT}/operations/${op.uid}`, `${TENANT}/operations/op_nope`],
    ];
    for (const [theirs, missing] of pairs) {
      const a = await h.call(globex, "GET", theirs);
      const b = await h.call(globex, "GET", missing);
      expect(a.status).toBe(404);
      expect(b.status).toBe(404);
      expect(await a.text()).toBe(await b.text());
    }
    // Crediting another tenant's wallet is 404 too, and moves nothing.
    await fund("globex", 10_000);
    const res = await credit(globex, customer.walletUid, 100, "steal-1");
    expect(res.status).toBe(404);
    expect(await prefund("globex")).toBe(10_000);
  });

  it("replays a completed write byte for byte with Idempotent-Replayed: true", async () => {
    await fund("acme", 10_000);
    const customer = await onboard(acme);
    const first = await credit(acme, customer.walletUid, 700, "replay-1", "key-replay");
    const firstBody = await first.text();
    const second = await credit(acme, customer.walletUid, 700, "replay-1", "key-replay");
    expect(second.status).toBe(201);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await second.text()).toBe(firstBody);
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(700);
    expect(await prefund("acme")).toBe(9_300);
  });

  it("refuses the same key with a changed body (422 IdempotencyKeyReused); nothing moves", async () => {
    await fund("acme", 10_000);
    const customer = await onboard(acme);
    expect((await credit(acme, customer.walletUid, 700, "reuse-1", "key-reuse")).status).toBe(201);
    const changed = await credit(acme, customer.walletUid, 800, "reuse-1", "key-reuse");
    expect(changed.status).toBe(422);
    expect((await errorOf(changed)).error).toBe("IdempotencyKeyReused");
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(700);
  });

  it("stores a refusal: a retry of a 422 gets the same answer, replayed", async () => {
    const customer = await onboard(acme);
    const first = await credit(acme, customer.walletUid, 500, "unfunded-1", "key-unfunded");
    expect(first.status).toBe(422);
    const body = await first.text();
    expect(JSON.parse(body).error).toBe("FundingNotPositioned");
    await fund("acme", 10_000);
    const retry = await credit(acme, customer.walletUid, 500, "unfunded-1", "key-unfunded");
    expect(retry.status).toBe(422);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(await retry.text()).toBe(body);
  });

  it("10 parallel identical credits create exactly one operation and move the balance once", async () => {
    await fund("acme", 1_000_000);
    const customer = await onboard(acme);
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => credit(acme, customer.walletUid, 1_234, "race-1", "key-race")),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(created.filter((r) => r.headers.get("Idempotent-Replayed") === "false")).toHaveLength(1);
    const uids = new Set(
      await Promise.all(created.map(async (r) => ((await r.json()) as { uid: string }).uid)),
    );
    expect(uids.size).toBe(1);
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(r.headers.get("Retry-After")).toBe("1");
      expect((await errorOf(r)).error).toBe("IdempotencyKeyInUse");
    }
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(1_234);
    expect(await prefund("acme")).toBe(1_000_000 - 1_234);
  });

  it("10 parallel credits reusing one clientReference under different keys: one 201, the rest 409 Conflict", async () => {
    await fund("acme", 1_000_000);
    const customer = await onboard(acme);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        credit(acme, customer.walletUid, 1_000, "race-ref", `key-ref-${i}`),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of responses.filter((x) => x.status === 409))
      expect((await errorOf(r)).error).toBe("Conflict");
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(1_000);
  });

  it("clientReference reused under another Idempotency-Key is 409 Conflict; nothing is created", async () => {
    await fund("acme", 10_000);
    const customer = await onboard(acme);
    expect((await credit(acme, customer.walletUid, 100, "dup-ref", "key-a")).status).toBe(201);
    const dup = await credit(acme, customer.walletUid, 100, "dup-ref", "key-b");
    expect(dup.status).toBe(409);
    expect((await errorOf(dup)).error).toBe("Conflict");
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(100);
  });

  it.each([
    ["0", "0"],
    ["-1", "-1"],
    ["1.5", "1.5"],
    ['"100"', '"100"'],
    ["2^53", "9007199254740992"],
    ["1e21", "1e21"],
    ["null", "null"],
  ])("refuses amountMinor %s with 400 and moves nothing", async (_label, literal) => {
    await fund("acme", 10_000);
    const customer = await onboard(acme);
    const res = await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
      rawBody: `{"walletUid":"${customer.walletUid}","amountMinor":${literal},"currency":"KES","clientReference":"bad-1"}`,
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error).toBe("InvalidRequest");
    expect(body.details).toEqual([expect.objectContaining({ field: "amountMinor" })]);
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(0);
    expect(await prefund("acme")).toBe(10_000);
  });

  it("accepts the largest safe amount as valid input (refused later by the business rules, not the schema)", async () => {
    await fund("acme", 10_000);
    const customer = await onboard(acme);
    const res = await credit(acme, customer.walletUid, Number.MAX_SAFE_INTEGER, "max-1");
    expect(res.status).toBe(422);
  });

  it("FundingNotPositioned when the prefund cannot cover the credit", async () => {
    await fund("acme", 999);
    const customer = await onboard(acme);
    const res = await credit(acme, customer.walletUid, 1_000, "short-1");
    expect(res.status).toBe(422);
    expect((await errorOf(res)).error).toBe("FundingNotPositioned");
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(0);
    expect(await prefund("acme")).toBe(999);
  });

  it("MaxBalanceExceeded when a credit would take the wallet above its KYC maximum", async () => {
    await fund("acme", 20_000_000);
    const customer = await onboard(acme);
    expect((await credit(acme, customer.walletUid, 7_000_000, "big-1")).status).toBe(201);
    const res = await credit(acme, customer.walletUid, 3_000_001, "big-2");
    expect(res.status).toBe(422);
    expect((await errorOf(res)).error).toBe("MaxBalanceExceeded");
    expect((await credit(acme, customer.walletUid, 3_000_000, "big-3")).status).toBe(201);
    expect((await balance(acme, customer.walletUid)).currentMinor).toBe(10_000_000);
  });

  it("onboarding: 409 for a verified identifier the tenant already holds; another tenant may hold it", async () => {
    await onboard(acme);
    const dup = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(dup.status).toBe(409);
    expect((await errorOf(dup)).error).toBe("Conflict");
    expect((await h.call(globex, "POST", `${TENANT}/customers`, { body: onboardingBody() })).status).toBe(
      201,
    );
  });

  it("onboarding: acceptedChannel portal is refused 422 UnprocessableEntity, naming the field", async () => {
    const body = onboardingBody();
    body.agreements[0]!.acceptedChannel = "portal";
    const res = await h.call(acme, "POST", `${TENANT}/customers`, { body });
    expect(res.status).toBe(422);
    expect(await errorOf(res)).toMatchObject({
      error: "UnprocessableEntity",
      details: [{ field: "agreements[0].acceptedChannel" }],
    });
  });

  it("the replay guard holds in this store: the same signature twice is 401", async () => {
    const timestamp = h.nowSeconds();
    const first = await h.call(acme, "GET", `${TENANT}/customers/cus_nope`, { timestamp });
    expect(first.status).toBe(404);
    const again = await h.call(acme, "GET", `${TENANT}/customers/cus_nope`, { timestamp });
    expect(again.status).toBe(401);
    expect(await again.text()).toBe(UNAUTHORIZED_BODY);
  });
});
