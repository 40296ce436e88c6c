import { createMemoryStore } from "@wallet/ledger-core/memory";
import { beforeEach, describe, expect, it } from "vitest";
import { UNAUTHORIZED_BODY } from "../src/index.js";
import { ADMIN, ADMIN_TOKEN, createHarness, type Harness, seedTenant } from "./support/fixture.js";
import { storeKinds } from "./support/stores.js";

describe("operator API (/api/v1/admin)", () => {
  let h: Harness;
  beforeEach(async () => {
    const { uow } = createMemoryStore();
    h = createHarness(uow);
    await seedTenant(uow, { id: "acme" });
  });

  it("401 with the one body for a missing or wrong bearer token", async () => {
    for (const res of [
      await h.admin("GET", `${ADMIN}/ledger/trial-balance`, undefined, "wrong"),
      await h.admin("GET", `${ADMIN}/ledger/trial-balance`, undefined, ""),
      await h.app.request(`${ADMIN}/ledger/trial-balance`),
      await h.app.request(`${ADMIN}/ledger/trial-balance`, { headers: { Authorization: "Basic abc" } }),
    ]) {
      expect(res.status).toBe(401);
      expect(await res.text()).toBe(UNAUTHORIZED_BODY);
    }
  });

  it("reads the Bearer scheme without regard to case or the spaces after it (RFC 9110)", async () => {
    for (const scheme of ["Bearer ", "bearer ", "BEARER ", "Bearer   "]) {
      const res = await h.app.request(`${ADMIN}/ledger/trial-balance`, {
        headers: { Authorization: `${scheme}${ADMIN_TOKEN}` },
      });
      expect(res.status, JSON.stringify(scheme)).toBe(200);
    }
  });

  it("is disabled (every route 404, as if absent) when adminToken is null", async () => {
    const off = createHarness(h.uow, { adminToken: null });
    for (const [method, path] of [
      ["GET", `${ADMIN}/ledger/trial-balance`],
      ["POST", `${ADMIN}/tenants/acme/prefund`],
      ["GET", `${ADMIN}/audit`],
    ] as const) {
      const res = await off.admin(
        method,
        path,
        method === "POST" ? { amountMinor: 1, currency: "KES" } : undefined,
      );
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "NotFound", message: "Route not found" });
    }
  });

  it("funds and reads a prefund; validates the body and query; 404 for an unknown tenant", async () => {
    const funded = await h.admin("POST", `${ADMIN}/tenants/acme/prefund`, {
      amountMinor: 5_000,
      currency: "KES",
    });
    expect(funded.status).toBe(200);
    expect(await funded.json()).toEqual({ tenantId: "acme", currency: "KES", balanceMinor: 5_000 });
    const again = await h.admin("POST", `${ADMIN}/tenants/acme/prefund`, { amountMinor: 1, currency: "KES" });
    expect(await again.json()).toEqual({ tenantId: "acme", currency: "KES", balanceMinor: 5_001 });
    expect(await (await h.admin("GET", `${ADMIN}/tenants/acme/prefund?currency=KES`)).json()).toEqual({
      tenantId: "acme",
      currency: "KES",
      balanceMinor: 5_001,
    });
    expect((await h.admin("GET", `${ADMIN}/tenants/acme/prefund`)).status).toBe(400);
    expect(
      (await h.admin("POST", `${ADMIN}/tenants/acme/prefund`, { amountMinor: 0, currency: "KES" })).status,
    ).toBe(400);
    expect(
      (await h.admin("POST", `${ADMIN}/tenants/acme/prefund`, { amountMinor: 1, currency: "KES", extra: 1 }))
        .status,
    ).toBe(400);
    const unknown = await h.admin("POST", `${ADMIN}/tenants/nobody/prefund`, {
      amountMinor: 1,
      currency: "KES",
    });
    expect(unknown.status).toBe(404);
    expect((await h.admin("GET", `${ADMIN}/tenants/nobody/prefund?currency=KES`)).status).toBe(404);
  });

  it("refuses (422) funding that would take a tenant's funding past 2^53 - 1, moving nothing", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    const fund = (amountMinor: number) =>
      h.admin("POST", `${ADMIN}/tenants/acme/prefund`, { amountMinor, currency: "KES" });
    expect((await fund(max - 10)).status).toBe(200);
    const trialBefore = await (await h.admin("GET", `${ADMIN}/ledger/trial-balance`)).text();
    // It was a 500 (the balance overflowed); the prefund and the deposits account stay exact.
    const over = await fund(11);
    expect(over.status).toBe(422);
    expect(await over.json()).toEqual({
      error: "UnprocessableEntity",
      message: "Funding this amount would take the tenant past the largest amount",
      details: [
        { field: "amountMinor", issue: `all funding of a tenant in a currency must not exceed ${max}` },
      ],
    });
    expect(await (await h.admin("GET", `${ADMIN}/ledger/trial-balance`)).text()).toBe(trialBefore);
    expect(await (await fund(10)).json()).toEqual({ tenantId: "acme", currency: "KES", balanceMinor: max });
    expect((await fund(1)).status).toBe(422);
  });

  it("trial balance of an empty ledger is balanced; audit lists nothing yet", async () => {
    expect(await (await h.admin("GET", `${ADMIN}/ledger/trial-balance`)).json()).toEqual({
      currencies: [],
      balanced: true,
    });
    expect(await (await h.admin("GET", `${ADMIN}/audit?tenantId=acme`)).json()).toEqual({ data: [] });
    expect(await (await h.admin("GET", `${ADMIN}/audit`)).json()).toEqual({ data: [] });
  });

  it("unknown operator routes are 404 with the body, after the token (401 without it)", async () => {
    for (const [method, path] of [
      ["GET", `${ADMIN}/nope`],
      ["DELETE", `${ADMIN}/tenants/acme`],
      ["GET", ADMIN],
    ] as const) {
      const res = await h.admin(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get("X-Request-Id")).toBeTruthy();
      expect((await h.app.request(path, { method })).status, `${method} ${path} without token`).toBe(401);
    }
  });
});

describe.each(storeKinds())("operator trial balance on $name", (kind) => {
  it("sums exactly past 2^53 - 1 (two tenants funded to the largest amount): 200, never a 500", async () => {
    const store = await kind.open();
    try {
      const h = createHarness(store.uow);
      const max = Number.MAX_SAFE_INTEGER;
      for (const id of ["acme", "globex"]) {
        await seedTenant(store.uow, { id });
        const funded = await h.admin("POST", `${ADMIN}/tenants/${id}/prefund`, {
          amountMinor: max,
          currency: "KES",
        });
        expect(funded.status).toBe(200);
      }
      const res = await h.admin("GET", `${ADMIN}/ledger/trial-balance`);
      expect(res.status).toBe(200);
      // Digits past 2^53 - 1: a JSON number would reach most clients rounded.
      const total = (2n * BigInt(max)).toString();
      expect(await res.json()).toEqual({
        currencies: [{ currency: "KES", debitsMinor: total, creditsMinor: total, netMinor: 0 }],
        balanced: true,
      });
    } finally {
      await store.close();
    }
  });
});
