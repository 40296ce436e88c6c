import { beforeAll, describe, expect, it } from "vitest";
import { listSuspense, type SuspenseItem } from "../src/index.js";
import { createCore } from "./support/core.js";

const ROWS = 1005;

/** Item n is created at second floor(n / 2), so pairs share createdAt; every 4th is refunded. */
const item = (n: number): SuspenseItem => ({
  uid: `sus_${String(n).padStart(5, "0")}`,
  railCode: "sandbox_mobile",
  tenantId: null,
  reference: "000000000000",
  amountMinor: 100 + n,
  currency: "KES",
  providerReference: `prv_${n}`,
  reason: "unknown_reference",
  status: n % 4 === 0 ? "refunded" : "open",
  createdAt: new Date(Date.parse("2026-01-01T00:00:00.000Z") + Math.floor(n / 2) * 1000).toISOString(),
  resolvedAt: null,
  resolution: null,
});

describe("listSuspense: one page, read from the store", () => {
  const core = createCore();
  const uids = (status?: SuspenseItem["status"]) =>
    Array.from({ length: ROWS }, (_, n) => item(n))
      .filter((i) => status === undefined || i.status === status)
      .map((i) => i.uid);
  const list = async (filter: Parameters<typeof listSuspense>[2]) =>
    (await core.run((tx) => listSuspense(core.deps, tx, filter))).data.map((i) => i.uid);

  beforeAll(async () => {
    // Inserted newest first: the order comes from the store, not from insertion.
    await core.run(async (tx) => {
      for (let n = ROWS - 1; n >= 0; n--) await tx.suspense.insert(item(n));
    });
  });

  it("answers the first 100, oldest first then by uid, by default", async () => {
    expect(await list(undefined)).toEqual(uids().slice(0, 100));
    expect(await list({ status: "refunded" })).toEqual(uids("refunded").slice(0, 100));
  });

  it("clamps the limit to 1..1000 and reads page n after (n - 1) x limit items", async () => {
    expect(await list({ limit: 5000 })).toEqual(uids().slice(0, 1000));
    expect(await list({ limit: 0 })).toEqual(uids().slice(0, 1));
    expect(await list({ limit: 7, page: 3 })).toEqual(uids().slice(14, 21));
    expect(await list({ status: "open", limit: 100, page: 8 })).toEqual(uids("open").slice(700, 800));
    expect(await list({ limit: 1000, page: 2 })).toEqual(uids().slice(1000));
    expect(await list({ limit: 1000, page: 3 })).toEqual([]);
    expect(await list({ limit: 10, page: 0 })).toEqual(uids().slice(0, 10));
  });

  it("asks the store for that page only", async () => {
    const seen: unknown[] = [];
    await core.run(async (tx) => {
      const spied: typeof tx = {
        ...tx,
        suspense: {
          ...tx.suspense,
          list: async (query) => {
            seen.push(query);
            return tx.suspense.list(query);
          },
        },
      };
      await listSuspense(core.deps, spied, { status: "open", limit: 20, page: 4 });
      await listSuspense(core.deps, spied);
    });
    expect(seen).toEqual([
      { status: "open", limit: 20, offset: 60 },
      { limit: 100, offset: 0 },
    ]);
  });
});
