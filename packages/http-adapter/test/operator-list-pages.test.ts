import type { AuditEntry, SuspenseItem } from "@wallet/ledger-core";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suspenseListSchema, suspenseQuerySchema } from "../src/operator/rail-schemas.js";
import { auditListSchema, auditQuerySchema } from "../src/operator/schemas.js";
import { ADMIN, createHarness, type Harness, seedTenant } from "./support/fixture.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

/** More rows than the largest page, so the clamp shows. */
const ROWS = 1005;
const ms = (n: number) => new Date(Date.parse("2026-01-01T00:00:00.000Z") + n * 1000).toISOString();

const auditRow = (tenantId: string, n: number): AuditEntry => ({
  // `at` runs backwards: the order is the log's insertion, not `at`.
  at: ms(ROWS - n),
  tenantId,
  kid: "k1",
  action: "customer.read_unmasked",
  customerUid: `cus_${n}`,
  identifierUids: [],
  requestId: `${tenantId}-${n}`,
});

/** Item n is created at second floor(n / 2): pairs share createdAt, and the uid orders each pair. */
const suspenseItem = (n: number): SuspenseItem => ({
  uid: `sus_${String(n).padStart(5, "0")}`,
  railCode: "sandbox_mobile",
  tenantId: null,
  reference: "000000000000",
  amountMinor: 100 + n,
  currency: "KES",
  providerReference: `prv_${n}`,
  reason: "unknown_reference",
  status: n % 3 === 0 ? "refunded" : "open",
  createdAt: ms(Math.floor(n / 2)),
  resolvedAt: n % 3 === 0 ? ms(ROWS) : null,
  resolution: n % 3 === 0 ? { action: "refund", walletUid: null, operationUid: null } : null,
});

const range = (from: number, count: number, step = 1) =>
  Array.from({ length: count }, (_, i) => from + i * step);

describe.each(storeKinds())("operator lists, one page at a time ($name)", (kind) => {
  let store: OpenedStore;
  let h: Harness;

  beforeAll(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    await seedTenant(store.uow, { id: "acme" });
    await seedTenant(store.uow, { id: "globex" });
    await store.uow.run(async (tx) => {
      // Every 10th row is globex's, interleaved with acme's.
      for (let n = 0; n < ROWS; n++) await tx.audit.append(auditRow(n % 10 === 9 ? "globex" : "acme", n));
      // Inserted out of order: the store sorts.
      for (const n of range(0, ROWS).reverse()) await tx.suspense.insert(suspenseItem(n));
    });
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const get = async (path: string) => {
    const res = await h.admin("GET", `${ADMIN}${path}`);
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBe(200);
    return JSON.parse(text) as unknown;
  };
  const audit = async (query: string) =>
    v.parse(auditListSchema, await get(`/audit${query}`)).data.map((r) => r.requestId);
  const suspense = async (query: string) =>
    v.parse(suspenseListSchema, await get(`/suspense${query}`)).data.map((i) => i.uid);
  /** Request ids of the log's rows n (every tenant's, or only those of `tenantId`), newest first. */
  const newest = (count: number, skip = 0, tenantId?: string) =>
    range(ROWS - 1, ROWS, -1)
      .map((n) => ({ n, tenant: n % 10 === 9 ? "globex" : "acme" }))
      .filter((r) => tenantId === undefined || r.tenant === tenantId)
      .slice(skip, skip + count)
      .map((r) => `${r.tenant}-${r.n}`);
  /** Uids of the suspense items (of one status), oldest first. */
  const oldest = (count: number, skip = 0, status?: SuspenseItem["status"]) =>
    range(0, ROWS)
      .map(suspenseItem)
      .filter((i) => status === undefined || i.status === status)
      .slice(skip, skip + count)
      .map((i) => i.uid);

  describe("GET /audit", () => {
    it("answers 100 rows by default, newest first by insertion, of every tenant or one", async () => {
      expect(await audit("")).toEqual(newest(100));
      expect(await audit("?tenantId=acme")).toEqual(newest(100, 0, "acme"));
      expect(await audit("?tenantId=globex")).toEqual(newest(100, 0, "globex"));
      expect(await audit("?tenantId=nobody")).toEqual([]);
    });

    it("clamps any positive limit above 1000 to 1000, however many digits it has", async () => {
      for (const limit of ["1000", "1001", "999999999", "99999999999", "9".repeat(40)]) {
        expect(await audit(`?limit=${limit}`), limit).toEqual(newest(1000));
        expect(v.parse(auditQuerySchema, { limit }).limit, limit).toBe(1000);
      }
      expect(await audit("?limit=7")).toEqual(newest(7));
      expect(await audit("?limit=1")).toEqual(newest(1));
    });

    it("pages: page n skips (n - 1) x limit rows; past the end is an empty page", async () => {
      expect(await audit("?limit=10&page=2")).toEqual(newest(10, 10));
      expect(await audit("?page=2")).toEqual(newest(100, 100));
      expect(await audit("?tenantId=acme&limit=50&page=3")).toEqual(newest(50, 100, "acme"));
      expect(await audit("?tenantId=globex&limit=40&page=3")).toEqual(newest(20, 80, "globex"));
      expect(await audit("?limit=1000&page=2")).toEqual(newest(5, 1000));
      expect(await audit("?limit=1000&page=3")).toEqual([]);
      expect(await audit("?page=999999999")).toEqual([]);
      // The pages of the log are the log: each row once, none missed.
      const pages: (string | null)[] = [];
      for (let page = 1; page <= 11; page++) pages.push(...(await audit(`?limit=100&page=${page}`)));
      expect(pages).toEqual(newest(ROWS));
    });

    it("refuses a bad limit or page, and any other parameter, with 400", async () => {
      expect(await audit("?limit=1&page=2")).toEqual(newest(1, 1));
      for (const [query, field] of [
        ...["0", "-1", "1.5", "abc", "01", ""].map((l) => [`limit=${l}`, "limit"]),
        ...["0", "-1", "1.5", "abc", "01", "", "1000000000"].map((p) => [`page=${p}`, "page"]),
        ["offset=10", "offset"],
        ["cursor=abc", "cursor"],
        ["sortBy=createdAt:ASC", "sortBy"],
      ] as const) {
        const res = await h.admin("GET", `${ADMIN}/audit?${query}`);
        expect(res.status, query).toBe(400);
        const body = (await res.json()) as { error: string; details?: { field: string }[] };
        expect(body.error, query).toBe("InvalidRequest");
        expect(body.details, query).toEqual([expect.objectContaining({ field })]);
      }
    });
  });

  describe("GET /suspense", () => {
    it("answers 100 items by default, oldest first then by uid, of every status or one", async () => {
      expect(await suspense("")).toEqual(oldest(100));
      expect(await suspense("?status=open")).toEqual(oldest(100, 0, "open"));
      expect(await suspense("?status=refunded")).toEqual(oldest(100, 0, "refunded"));
      expect(await suspense("?status=applied")).toEqual([]);
    });

    it("clamps any positive limit above 1000 to 1000, however many digits it has", async () => {
      for (const limit of ["1000", "1001", "999999999", "99999999999", "9".repeat(40)]) {
        expect(await suspense(`?limit=${limit}`), limit).toEqual(oldest(1000));
        expect(v.parse(suspenseQuerySchema, { limit }).limit, limit).toBe(1000);
      }
      expect(await suspense("?limit=7")).toEqual(oldest(7));
    });

    it("pages: page n skips (n - 1) x limit items; past the end is an empty page", async () => {
      // Items 10 and 11 share createdAt: the uid orders them, on every page boundary.
      expect(await suspense("?limit=11&page=1")).toEqual(oldest(11));
      expect(await suspense("?limit=11&page=2")).toEqual(oldest(11, 11));
      expect(await suspense("?page=2")).toEqual(oldest(100, 100));
      expect(await suspense("?status=refunded&limit=30&page=4")).toEqual(oldest(30, 90, "refunded"));
      expect(await suspense("?status=open&limit=500&page=2")).toEqual(oldest(500, 500, "open"));
      expect(await suspense("?limit=1000&page=2")).toEqual(oldest(5, 1000));
      expect(await suspense("?limit=1000&page=3")).toEqual([]);
      expect(await suspense("?page=999999999")).toEqual([]);
      const pages: string[] = [];
      for (let page = 1; page <= 11; page++) pages.push(...(await suspense(`?limit=100&page=${page}`)));
      expect(pages).toEqual(oldest(ROWS));
    });

    it("refuses a bad limit or page, and any other parameter, with 400", async () => {
      expect(await suspense("?limit=1&page=2")).toEqual(oldest(1, 1));
      for (const [query, field] of [
        ...["0", "-1", "1.5", "abc", "01", ""].map((l) => [`limit=${l}`, "limit"]),
        ...["0", "-1", "1.5", "abc", "01", "", "1000000000"].map((p) => [`page=${p}`, "page"]),
        ["status=lost", "status"],
        ["offset=10", "offset"],
        ["tenantId=acme", "tenantId"],
        ["sortBy=createdAt:ASC", "sortBy"],
      ] as const) {
        const res = await h.admin("GET", `${ADMIN}/suspense?${query}`);
        expect(res.status, query).toBe(400);
        const body = (await res.json()) as { error: string; details?: { field: string }[] };
        expect(body.error, query).toBe("InvalidRequest");
        expect(body.details, query).toEqual([expect.objectContaining({ field })]);
      }
    });
  });
});
