import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TENANT_API_BASE as TENANT } from "../../src/index.js";
import { type OpenedStore, storeKinds } from "../support/stores.js";
import {
  createFuzzWorld,
  expectWellFormedAnswer,
  type FuzzWorld,
  worldSnapshot,
} from "./support/fuzz-world.js";

/**
 * Found by the route fuzz: Postgres cannot store U+0000 in text, so a NUL in any string (body,
 * path or query) became a 500 on Postgres while SQLite and memory stored it. Text that is not
 * well-formed Unicode (a lone surrogate) was stored differently by each engine. Both are refused
 * at the boundary, on every store alike: 400 naming the field, nothing created.
 */
for (const kind of storeKinds()) {
  describe(`text no store can hold faithfully (${kind.name})`, () => {
    let store: OpenedStore;
    let world: FuzzWorld;
    beforeAll(async () => {
      store = await kind.open();
      world = await createFuzzWorld(store.uow);
    }, 60_000);
    afterAll(async () => store?.close());

    const credit = (extra: Record<string, unknown>) => ({
      walletUid: world.ids.walletUid,
      amountMinor: 5,
      currency: "KES",
      clientReference: "text-check",
      ...extra,
    });
    const cases: [string, () => [string, string, unknown], string][] = [
      [
        "NUL in a body string",
        () => ["POST", "/wallet-credits", credit({ clientReference: "a\u0000b" })],
        "clientReference",
      ],
      [
        "lone surrogate in a body string",
        () => ["POST", "/wallet-credits", credit({ clientReference: "a\ud800" })],
        "clientReference",
      ],
      [
        "NUL in a free-form object",
        () => ["POST", "/wallet-credits", credit({ metadata: { note: "x\u0000" } })],
        "metadata.note",
      ],
      ["NUL in a path parameter", () => ["GET", "/operations/op%00x", undefined], "uid"],
      ["NUL in a query parameter", () => ["GET", `/operations?customerUid=a%00b`, undefined], "customerUid"],
    ];
    for (const [name, build, field] of cases) {
      it(`refuses ${name} with 400`, async () => {
        const [method, path, body] = build();
        const before = await worldSnapshot(store.uow, world.tenant.tenant.id);
        const res = await world.h.call(
          world.tenant,
          method,
          `${TENANT}${path}`,
          body === undefined ? {} : { body },
        );
        const text = await expectWellFormedAnswer(res, `${method} ${path}`);
        expect(res.status, text).toBe(400);
        expect(JSON.parse(text).details.map((d: { field: string }) => d.field)).toContain(field);
        expect(await worldSnapshot(store.uow, world.tenant.tenant.id)).toBe(before);
      });
    }
  });
}
