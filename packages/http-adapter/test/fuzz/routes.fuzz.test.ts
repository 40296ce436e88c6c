import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RouteEntry, TENANT_API_BASE as TENANT, tenantRouteGroups } from "../../src/index.js";
import { type OpenedStore, storeKinds } from "../support/stores.js";
import {
  createFuzzWorld,
  expectWellFormedAnswer,
  type FuzzWorld,
  worldSnapshot,
} from "./support/fuzz-world.js";
import { type FuzzRequest, requestArbitrary } from "./support/request-arbitrary.js";

/**
 * Hostile input over EVERY route of the tenant registry (whatever `tenantRouteGroups()` holds when
 * the test runs): requests derived from the routes' valibot schemas, then mutated (wrong types,
 * huge numbers, unicode, deep nesting, missing and unknown fields, duplicated query parameters,
 * encoded slashes and traversals in path parameters, broken JSON, oversized bodies), all signed
 * correctly. Never a 5xx; every 4xx is the one error body; a refused request creates nothing
 * (operations, outbox events and the trial balance are unchanged).
 *
 * A failure prints fast-check's seed and path; `FC_SEED`/`FC_PATH` replay it.
 */
const reproduction = {
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH, endOnFailure: true } : {}),
};
const routes: RouteEntry[] = Object.values(tenantRouteGroups()).flat();
/** WALLET_FUZZ_SCALE=20 runs twenty times as many requests per route (a deeper search, locally). */
const scale = Math.max(1, Math.trunc(Number(process.env.WALLET_FUZZ_SCALE ?? 1)) || 1);
const runsPerRoute: Record<string, number> = { memory: 30 * scale, sqlite: 30 * scale, postgres: 8 * scale };

for (const kind of storeKinds()) {
  describe(`fuzz over every tenant route (${kind.name})`, () => {
    let store: OpenedStore;
    let world: FuzzWorld;
    const tally = new Map<number, number>();
    beforeAll(async () => {
      store = await kind.open();
      world = await createFuzzWorld(store.uow);
    }, 60_000);
    afterAll(async () => {
      console.info(`fuzz (${kind.name}): answers by status ${JSON.stringify(Object.fromEntries(tally))}`);
      await store?.close();
    });

    const send = (req: FuzzRequest) =>
      world.h.call(world.tenant, req.method, `${TENANT}${req.pathAndQuery}`, {
        rawBody: req.body ?? "",
        idempotencyKey: req.idempotencyKey,
      });

    it(`covers all ${routes.length} routes of the registry`, () => {
      expect(routes.length).toBeGreaterThanOrEqual(20);
      expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
    });

    for (const entry of routes) {
      it(`${entry.method} ${entry.path}`, { timeout: 60_000 * scale }, async () => {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(entry, world), async (req) => {
            const what = `${req.method} ${req.pathAndQuery} key=${JSON.stringify(req.idempotencyKey)} body=${(req.body ?? "").slice(0, 300)}`;
            const before = await worldSnapshot(store.uow, world.tenant.tenant.id);
            let res: Response;
            try {
              res = await send(req);
            } catch (e) {
              // The test's own Request refused to carry it (an invalid URL or header): nothing was sent.
              if (e instanceof TypeError) return;
              throw e;
            }
            tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
            await expectWellFormedAnswer(res, what);
            if (res.status >= 400) {
              expect(
                await worldSnapshot(store.uow, world.tenant.tenant.id),
                `${what} created something`,
              ).toBe(before);
            }
          }),
          { numRuns: runsPerRoute[kind.name] ?? 10, ...reproduction },
        );
      });
    }
  });
}
