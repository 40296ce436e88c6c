import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tx } from "@wallet/ledger-core";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSqliteStore, type Store } from "../src/index.js";
import { tenantFixture } from "./contract/fixtures.js";

const ROWS = 20_000;

/**
 * The operator's audit log and suspense lists are read one page at a time in the store: the
 * statement carries LIMIT and OFFSET, and SQLite walks an index in the list's order (no temporary
 * b-tree sorting the table), with or without the filter, before and after ANALYZE.
 */
describe("operator lists on SQLite: a bounded index walk", () => {
  let dir: string;
  let file: string;
  let store: Store;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "wallet-list-plans-"));
    file = join(dir, "wallet.db");
    store = createSqliteStore({ filename: file });
    await store.migrate();
    await store.uow.run((tx) => tx.tenants.upsert(tenantFixture("acme")));
    const raw = new BetterSqlite3(file);
    try {
      raw.pragma("busy_timeout = 5000");
      raw.exec(`
        insert into audit_log (at, tenant_id, kid, action, customer_uid, identifier_uids, request_id)
        with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS})
        select '2026-01-01T00:00:00.000Z', case when n % 10 = 0 then 'globex' else 'acme' end, null,
          'customer.read_unmasked', null, '[]', null from s;
        insert into suspense_items (uid, rail_code, tenant_id, reference, amount_minor, currency,
          provider_reference, reason, status, created_at)
        with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS})
        select 'sus_' || substr('0000000000' || n, -10), 'sandbox_mobile', null, '000000000000', 100,
          'KES', 'prv_' || n, 'unknown_reference', case when n % 3 = 0 then 'open' else 'refunded' end,
          strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + n / 2, 'unixepoch') from s;
        insert into operations (uid, tenant_id, type, state, amount_minor, fee_minor, tax_minor,
          currency, destination_wallet_uid, fee_breakdown, created_at, updated_at)
        with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS})
        select 'op_' || substr('0000000000' || n, -10), 'acme',
          case when n % 1000 = 0 then 'payout_b2c' else 'wallet_credit' end,
          case when n % 1000 = 0 then 'processing' else 'completed' end, 100, 0, 0, 'KES', null,
          '[]', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' from s;`);
    } finally {
      raw.close();
    }
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `read` in a unit of work, capturing every SELECT on `table` the driver ran. */
  async function captured(table: string, read: (tx: Tx) => Promise<unknown[]>) {
    const probe = new BetterSqlite3(":memory:");
    const statementClass = Object.getPrototypeOf(probe.prepare("select 1")) as BetterSqlite3.Statement;
    probe.close();
    const seen: { sql: string; params: unknown[] }[] = [];
    const all = statementClass.all;
    const spy = vi.spyOn(statementClass, "all").mockImplementation(function (
      this: BetterSqlite3.Statement,
      ...params: unknown[]
    ) {
      seen.push({ sql: this.source, params });
      return all.apply(this, params);
    });
    try {
      const rows = await store.uow.run(read);
      return {
        rows,
        queries: seen.filter((q) => /^\s*select\b/i.test(q.sql) && q.sql.includes(`"${table}"`)),
      };
    } finally {
      spy.mockRestore();
    }
  }

  function planOf(sql: string, params: unknown[]): string[] {
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      const flat = params.length === 1 && Array.isArray(params[0]) ? (params[0] as unknown[]) : params;
      return (raw.prepare(`explain query plan ${sql}`).all(...flat) as { detail: string }[]).map(
        (r) => r.detail,
      );
    } finally {
      raw.close();
    }
  }

  const cases: [string, string, (tx: Tx) => Promise<unknown[]>, RegExp][] = [
    [
      "audit, every tenant",
      "audit_log",
      (tx) => tx.audit.list({ limit: 100, offset: 500 }),
      /^SCAN audit_log$/,
    ],
    [
      "audit, one tenant",
      "audit_log",
      (tx) => tx.audit.list({ tenantId: "globex", limit: 100, offset: 500 }),
      /^SEARCH audit_log USING INDEX audit_log_tenant \(tenant_id=\?\)$/,
    ],
    [
      "suspense, every status",
      "suspense_items",
      (tx) => tx.suspense.list({ limit: 100, offset: 500 }),
      /^SCAN suspense_items USING INDEX suspense_items_created$/,
    ],
    [
      "suspense, one status",
      "suspense_items",
      (tx) => tx.suspense.list({ status: "open", limit: 100, offset: 500 }),
      /^SEARCH suspense_items USING INDEX suspense_items_status_created \(status=\?\)$/,
    ],
  ];

  it("reads the payouts still processing through their own index, whatever the history holds", async () => {
    const { rows, queries } = await captured("operations", (tx) => tx.operations.listProcessingPayouts(100));
    expect(rows).toHaveLength(ROWS / 1000);
    expect(queries).toHaveLength(1);
    expect(planOf(queries[0]!.sql, queries[0]!.params)).toEqual([
      expect.stringMatching(/^SCAN operations USING INDEX operations_processing_payouts$/),
    ]);
  });

  for (const analyzed of [false, true]) {
    it.each(cases)(`%s${analyzed ? " (after ANALYZE)" : ""}`, async (_label, table, read, walk) => {
      if (analyzed) {
        const raw = new BetterSqlite3(file);
        try {
          raw.exec("analyze");
        } finally {
          raw.close();
        }
      }
      const { rows, queries } = await captured(table, read);
      expect(rows).toHaveLength(100);
      expect(queries).toHaveLength(1);
      const [query] = queries;
      expect(query!.sql).toMatch(/\blimit\b.*\boffset\b/i);
      expect(planOf(query!.sql, query!.params)).toEqual([expect.stringMatching(walk)]);
    });
  }
});
