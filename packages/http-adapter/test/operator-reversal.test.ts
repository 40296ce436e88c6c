import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { customerViewSchema } from "../src/customers/schemas.js";
import { operationDetailViewSchema, operationViewSchema } from "../src/operations/schemas.js";
import { trialBalanceViewSchema } from "../src/operator/schemas.js";
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

describe.each(storeKinds())("operator: POST /admin/operations/{uid}/reverse on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;
  let walletUid: string;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, { id: "acme", approvedRails: ["sandbox_mobile"] });
    await seedTenant(store.uow, { id: "globex" });
    expect(
      (await h.admin("POST", `${ADMIN}/tenants/acme/prefund`, { amountMinor: 1_000_000, currency: "KES" }))
        .status,
    ).toBe(200);
    const res = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(res.status).toBe(201);
    walletUid = v.parse(customerViewSchema, await res.json()).walletUid;
  });
  afterEach(async () => {
    await store.close();
  });

  const credit = async (amountMinor: number, clientReference: string) => {
    const res = await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
      body: { walletUid, amountMinor, currency: "KES", clientReference },
    });
    expect(res.status).toBe(201);
    return v.parse(operationViewSchema, await res.json());
  };
  const balance = async () =>
    v.parse(
      walletBalanceSchema,
      await (await h.call(acme, "GET", `${TENANT}/wallets/${walletUid}/balance`)).json(),
    );
  const prefund = async () =>
    (
      (await (await h.admin("GET", `${ADMIN}/tenants/acme/prefund?currency=KES`)).json()) as {
        balanceMinor: number;
      }
    ).balanceMinor;
  const reverse = (uid: string) => h.admin("POST", `${ADMIN}/operations/${uid}/reverse`);

  it("moves a credit back to the prefund; the tenant reads it reversed; repeating posts nothing", async () => {
    const op = await credit(30_000, "c-1");
    const res = await reverse(op.uid);
    expect(res.status).toBe(200);
    const detail = v.parse(operationDetailViewSchema, await res.json());
    expect(detail).toMatchObject({ uid: op.uid, state: "reversed", completedAt: op.completedAt });
    expect(detail.timeline.at(-1)).toMatchObject({
      fromState: "completed",
      toState: "reversed",
      actorType: "admin",
    });
    expect((await balance()).currentMinor).toBe(0);
    expect(await prefund()).toBe(1_000_000);

    const seen = await h.call(acme, "GET", `${TENANT}/operations/${op.uid}`);
    expect(v.parse(operationDetailViewSchema, await seen.json()).state).toBe("reversed");
    const again = await reverse(op.uid);
    expect([again.status, v.parse(operationDetailViewSchema, await again.json())]).toEqual([200, detail]);
    expect(await prefund()).toBe(1_000_000);
    const trial = v.parse(
      trialBalanceViewSchema,
      await (await h.admin("GET", `${ADMIN}/ledger/trial-balance`)).json(),
    );
    expect(trial.balanced).toBe(true);
  });

  it("409 for an operation that is not completed (a pending top-up intent), 404 unknown, 400 bad uid", async () => {
    const res = await h.call(acme, "POST", `${TENANT}/topup-intents`, {
      body: {
        walletUid,
        amountMinor: 5_000,
        currency: "KES",
        railCode: "sandbox_mobile",
        clientReference: "tu-1",
      },
    });
    expect(res.status).toBe(201);
    const intent = v.parse(operationViewSchema, await res.json());
    const refused = await reverse(intent.uid);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toBe("Conflict");
    expect((await reverse("op_nobody")).status).toBe(404);
    expect((await reverse("x".repeat(129))).status).toBe(400);
    expect(await prefund()).toBe(1_000_000);
    expect((await balance()).currentMinor).toBe(0);
  });

  it("400 for a body (the route takes none): a reason is refused, not dropped, and nothing is reversed", async () => {
    const op = await credit(30_000, "c-reason");
    const res = await h.admin("POST", `${ADMIN}/operations/${op.uid}/reverse`, { reason: "fraud" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "InvalidRequest",
      message: "The request body is invalid",
      details: [{ field: "reason", issue: "unknown field" }],
    });
    const seen = await h.call(acme, "GET", `${TENANT}/operations/${op.uid}`);
    expect(v.parse(operationDetailViewSchema, await seen.json()).state).toBe("completed");
    expect((await balance()).currentMinor).toBe(30_000);
    expect((await h.admin("POST", `${ADMIN}/operations/${op.uid}/reverse`, {})).status).toBe(200);
    expect((await balance()).currentMinor).toBe(0);
  });
});
