import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteStore, type Store } from "@wallet/persistence";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { customerViewSchema } from "../src/customers/schemas.js";
import { statementPageSchema } from "../src/wallets/schemas.js";
import {
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  TENANT,
} from "./support/fixture.js";

/** The slice of better-sqlite3 this test uses (its types belong to the persistence package). */
interface RawStatement {
  source: string;
  all(...params: unknown[]): unknown[];
}
interface RawDatabase {
  prepare(sql: string): RawStatement;
  exec(sql: string): void;
  pragma(sql: string): unknown;
  close(): void;
}
type RawDatabaseClass = new (filename: string, options?: { readonly?: boolean }) => RawDatabase;

/** better-sqlite3 exactly as @wallet/persistence loads it: the same module, hence the same Statement class. */
const Database = createRequire(new URL("../node_modules/@wallet/persistence/package.json", import.meta.url))(
  "better-sqlite3",
) as RawDatabaseClass;

/**
 * Seeded rows. The statement's wallet receives every 4th and pays out every 4th (offset 2); the
 * rest spread over 1,000 other wallets; every 7th is still in flight (not listed by default). That
 * leaves about 107,000 listed rows on the wallet: page 5,000 of 20 (offset 99,980) is full.
 */
const ROWS = 250_000;

/** A plan line that reads the whole table or an index whole, or sorts. */
const FULL_SCAN = /^SCAN operations\b/;
const SORT = /USE TEMP B-TREE/;
/** Statements of one wallet must walk the (wallet, created_at, uid) indexes, not the tenant's. */
const WALLET_INDEX = /^SEARCH operations USING (COVERING )?INDEX operations_(source|destination)_created\b/;

/** What in a plan breaks "runs on a wallet index": empty when the query is index-only. */
function planViolations(plan: string[]): string[] {
  return plan.filter(
    (line) =>
      FULL_SCAN.test(line) ||
      SORT.test(line) ||
      (/^SEARCH operations\b/.test(line) && !WALLET_INDEX.test(line)),
  );
}

/**
 * GET /wallets/{uid}/transactions on SQLite with many rows: EXPLAIN QUERY PLAN of each statement
 * the route runs (captured from the driver while the signed request is served) must show an index
 * walk on the wallet's indexes, no full scan, and no temporary b-tree for the ORDER BY. Plans, not
 * timings: a slow machine cannot make it flaky and a fast one cannot hide a sort.
 *
 * KNOWN GAP (packages/persistence, operation-repository `list` with a walletUid): today
 * - the page query wraps two `ORDER BY .. LIMIT offset+limit` walks in an outer
 *   `SELECT * FROM (.. UNION ALL ..) ORDER BY .. LIMIT .. OFFSET ..`; SQLite merges the two arms but
 *   re-sorts each one in a temp b-tree (offset + limit rows each: ~100,000 at page 5,000);
 * - the total is one `count(*) .. WHERE tenant_id = ? AND (source = ? OR destination = ?)`, which
 *   SQLite runs on the tenant index (every operation of the tenant), and after ANALYZE as a full
 *   SCAN of operations.
 * The tests marked `.fails` assert the goal and pass only while the gap exists: when persistence is
 * fixed they fail, and `.fails` must be removed. The reference queries below show the fix: a plain
 * compound `SELECT .. UNION ALL SELECT .. ORDER BY .. LIMIT .. OFFSET ..` (MERGE over the two index
 * walks, no sort) and a sum of two scalar counts, one per wallet index.
 */
describe("statement query plans on SQLite with many rows", () => {
  let dir: string;
  let file: string;
  let store: Store;
  let h: Harness;
  let acme: SeededTenant;
  let walletUid: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "wallet-plan-"));
    file = join(dir, "wallet.db");
    store = createSqliteStore({ filename: file });
    await store.migrate();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, { id: "acme" });
    const res = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(res.status).toBe(201);
    walletUid = v.parse(customerViewSchema, await res.json()).walletUid;

    // Generated inside the database (a few seconds), one second apart, before the fixture's clock.
    const raw = new Database(file);
    try {
      raw.pragma("busy_timeout = 5000");
      raw.exec(`
        insert into operations (uid, tenant_id, type, state, amount_minor, fee_minor, tax_minor, currency,
          client_reference, customer_uid, source_wallet_uid, destination_wallet_uid, fee_breakdown,
          created_at, completed_at, funds_moved_at, updated_at)
        with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS})
        select 'op_seed' || substr('0000000000' || n, -10), 'acme',
          case when n % 4 = 2 then 'payout_b2c' else 'wallet_credit' end,
          case when n % 7 = 0 then 'processing' else 'completed' end,
          100, 0, 0, 'KES', 'seed-' || n, 'cus_seed',
          case when n % 4 = 2 then '${walletUid}' else null end,
          case when n % 4 = 0 then '${walletUid}' else 'wal_seed_' || (n % 1000) end,
          '[]', t, case when n % 7 = 0 then null else t end, case when n % 7 = 0 then null else t end, t
        from (select n, strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + n, 'unixepoch') as t from s)`);
    } finally {
      raw.close();
    }
  }, 180_000);

  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Serves the signed request, capturing every SELECT on operations the driver ran, with its parameters. */
  async function serve(path: string) {
    const probe = new Database(":memory:");
    const statementClass = Object.getPrototypeOf(probe.prepare("select 1")) as RawStatement;
    probe.close();
    const seen: { sql: string; params: unknown[] }[] = [];
    const all = statementClass.all;
    const spy = vi.spyOn(statementClass, "all").mockImplementation(function (this: RawStatement, ...params) {
      seen.push({ sql: this.source, params });
      return all.apply(this, params);
    });
    try {
      const res = await h.call(acme, "GET", path);
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const queries = seen.filter((q) => /^\s*select\b/i.test(q.sql) && /"operations"/.test(q.sql));
      return { page: v.parse(statementPageSchema, JSON.parse(text)), queries };
    } finally {
      spy.mockRestore();
    }
  }

  function planOf(sql: string, params: unknown[] = []): string[] {
    const raw = new Database(file, { readonly: true });
    try {
      return (raw.prepare(`explain query plan ${sql}`).all(...params) as { detail: string }[]).map(
        (r) => r.detail,
      );
    } finally {
      raw.close();
    }
  }

  function rawAll<T>(sql: string, params: unknown[] = []): T[] {
    const raw = new Database(file, { readonly: true });
    try {
      return raw.prepare(sql).all(...params) as T[];
    } finally {
      raw.close();
    }
  }

  const listed = `tenant_id = 'acme' and (funds_moved_at is not null or state in ('completed', 'failed', 'reversed', 'held'))`;
  const touches = (w: string) => `(source_wallet_uid = '${w}' or destination_wallet_uid = '${w}')`;

  const cases = [
    ["page 1", "", 1, "desc"],
    ["page 5,000", "?page=5000", 5_000, "desc"],
    ["page 5,000 oldest first", "?page=5000&sortBy=createdAt:ASC&sortBy=id:ASC", 5_000, "asc"],
  ] as const;

  it.each(cases)("%s returns the right rows and meta", async (_label, query, pageNo, direction) => {
    const { page, queries } = await serve(`${TENANT}/wallets/${walletUid}/transactions${query}`);
    const expected = rawAll<{ uid: string }>(
      `select uid from operations where ${listed} and ${touches(walletUid)}
       order by created_at ${direction}, uid ${direction} limit 20 offset ${(pageNo - 1) * 20}`,
    ).map((r) => r.uid);
    const [{ n: total } = { n: 0 }] = rawAll<{ n: number }>(
      `select count(*) as n from operations where ${listed} and ${touches(walletUid)}`,
    );
    expect(total).toBeGreaterThan(100_000);
    expect(page.data.map((i) => i.operationUid)).toEqual(expected);
    expect(page.data).toHaveLength(20);
    expect(page.meta).toEqual({ total, page: pageNo, limit: 20, totalPages: Math.ceil(total / 20) });
    expect(queries.length).toBeGreaterThanOrEqual(2);
  });

  // KNOWN GAP, see above: remove `.fails` when the persistence query is fixed.
  it.each(cases)("%s: the page query merges two wallet-index walks without sorting", async (_l, query) => {
    const { queries } = await serve(`${TENANT}/wallets/${walletUid}/transactions${query}`);
    const pageQuery = queries.find((q) => !/count\(/i.test(q.sql));
    expect(pageQuery).toBeDefined();
    expect(planViolations(planOf(pageQuery!.sql, pageQuery!.params))).toEqual([]);
  });

  // KNOWN GAP, see above: remove `.fails` when the persistence query is fixed.
  it.each(cases)("%s: the total is counted on the wallet indexes", async (_l, query) => {
    const { queries } = await serve(`${TENANT}/wallets/${walletUid}/transactions${query}`);
    const countQuery = queries.find((q) => /count\(/i.test(q.sql));
    expect(countQuery).toBeDefined();
    expect(planViolations(planOf(countQuery!.sql, countQuery!.params))).toEqual([]);
  });

  it("the check is not vacuous: it flags a sort and a scan, and index-only reference queries pass it", async () => {
    const sorted = `select * from operations where ${listed} and ${touches(walletUid)} order by amount_minor limit 20`;
    expect(planViolations(planOf(sorted)).some((line) => SORT.test(line))).toBe(true);

    const arm = (side: "source" | "destination") =>
      `select * from operations where ${listed} and ${side}_wallet_uid = ?` +
      (side === "destination" ? " and (source_wallet_uid is null or source_wallet_uid <> ?)" : "");
    for (const direction of ["desc", "asc"]) {
      const page = `${arm("source")} union all ${arm("destination")}
        order by created_at ${direction}, uid ${direction} limit 20 offset 99980`;
      const plan = planOf(page, [walletUid, walletUid, walletUid]);
      expect(plan.some((line) => /MERGE \(UNION ALL\)/.test(line))).toBe(true);
      expect(planViolations(plan)).toEqual([]);
      const expected = rawAll<{ uid: string }>(
        `select uid from operations where ${listed} and ${touches(walletUid)}
         order by created_at ${direction}, uid ${direction} limit 20 offset 99980`,
      );
      expect(rawAll<{ uid: string }>(page, [walletUid, walletUid, walletUid]).map((r) => r.uid)).toEqual(
        expected.map((r) => r.uid),
      );
    }
    const count = `select (select count(*) from operations where ${listed} and source_wallet_uid = ?)
      + (select count(*) from operations where ${listed} and destination_wallet_uid = ?
         and (source_wallet_uid is null or source_wallet_uid <> ?)) as n`;
    expect(planViolations(planOf(count, [walletUid, walletUid, walletUid]))).toEqual([]);
    expect(planViolations(planOf("select * from operations where amount_minor = 100"))).toEqual([
      "SCAN operations",
    ]);
  });
});
