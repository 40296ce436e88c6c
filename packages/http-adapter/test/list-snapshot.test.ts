import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

/**
 * A list answers its page and its `meta.total` from one snapshot of the store: with writes landing
 * meanwhile, a list that fits on one page never shows n rows and a total of n + 1. On Postgres the
 * rows and the count are two statements, which READ COMMITTED would let see two states.
 */
describe.each(storeKinds())("a list's page and total agree while writes land, on $name", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, { id: "acme" });
    const funded = await h.admin("POST", `${ADMIN}/tenants/acme/prefund`, {
      amountMinor: 50_000_000,
      currency: "KES",
    });
    expect(funded.status).toBe(200);
  });
  afterEach(async () => {
    await store.close();
  });

  it("GET /operations and the wallet statement", async () => {
    const created = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(created.status).toBe(201);
    const { walletUid } = (await created.json()) as { walletUid: string };
    let writing = true;
    const writer = async (w: number) => {
      for (let i = 0; i < 30; i++) {
        const res = await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
          body: { walletUid, amountMinor: 100, currency: "KES", clientReference: `snap-${w}-${i}` },
        });
        expect(res.status).toBe(201);
      }
    };
    const mismatches: string[] = [];
    let reads = 0;
    const reader = async () => {
      while (writing) {
        for (const path of [
          `${TENANT}/operations?walletUid=${walletUid}&limit=100`,
          `${TENANT}/wallets/${walletUid}/transactions?limit=100`,
        ]) {
          const res = await h.call(acme, "GET", path);
          expect(res.status).toBe(200);
          const page = (await res.json()) as { data: unknown[]; meta: { total: number } };
          reads++;
          if (page.data.length !== page.meta.total)
            mismatches.push(`${path}: ${page.data.length} rows, total ${page.meta.total}`);
        }
      }
    };
    const readers = [reader(), reader()];
    await Promise.all([writer(1), writer(2)]);
    writing = false;
    await Promise.all(readers);
    expect(reads).toBeGreaterThan(0);
    expect(mismatches).toEqual([]);
  }, 60_000);
});
