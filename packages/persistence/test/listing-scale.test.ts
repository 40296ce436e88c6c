import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "@wallet/ledger-core";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  createSqliteStore,
  postgresTestUrl,
  type Store,
} from "../src/index.js";

/**
 * Listing stays fast at 1,000,000 operations. Opt-in (`WALLET_TEST_SCALE=1`): seeding takes a
 * while. Rows are generated inside the database; one "hot" wallet holds 1 in 10 of them.
 */
const ROWS = 1_000_000;
const enabled = process.env.WALLET_TEST_SCALE === "1";
const newestFirst: Page["sort"] = [
  { field: "createdAt", direction: "DESC" },
  { field: "id", direction: "DESC" },
];

// Row n: created n seconds after the epoch below; wallet `wal_hot` is the source of every 20th
// and the destination of every 20th (offset 10); the rest spread over 10,000 wallets.
const seedSelect = (series: string, n: string, isoOf: (n: string) => string, pad: (n: string) => string) => `
  select 'op_' || ${pad(n)} as uid, 'acme' as tenant_id,
    case when ${n} % 2 = 0 then 'wallet_credit' else 'payout_b2c' end as type,
    case when ${n} % 7 = 0 then 'processing' else 'completed' end as state,
    100 + ${n} % 1000 as amount_minor, 0 as fee_minor, 0 as tax_minor, 'KES' as currency,
    'ref-' || ${n} as client_reference, 'cus_' || (${n} % 50000) as customer_uid,
    case when ${n} % 20 = 0 then 'wal_hot' else 'wal_' || (${n} % 10000) end as source_wallet_uid,
    case when ${n} % 20 = 10 then 'wal_hot' else 'wal_' || ((${n} + 1) % 10000) end as destination_wallet_uid,
    null as counterparty_hint, '[]' as fee_breakdown, null as provider, null as details, null as metadata,
    ${isoOf(n)} as created_at, null as completed_at, ${isoOf(n)} as funds_moved_at, ${isoOf(n)} as updated_at
  from ${series}`;

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await run();
  return { ms: performance.now() - t0, value };
}

function describeScale(
  name: string,
  open: () => Promise<{ store: Store; seed(): Promise<void>; close(): Promise<void> }>,
) {
  describe.runIf(enabled)(`listing at ${ROWS} operations: ${name}`, () => {
    let ctx: Awaited<ReturnType<typeof open>>;
    beforeAll(async () => {
      ctx = await open();
      await ctx.seed();
    }, 600_000);
    afterAll(async () => ctx?.close());

    it.each([
      ["tenant, page 1", { tenantId: "acme" }, 1],
      ["tenant, page 50", { tenantId: "acme" }, 50],
      ["hot wallet, page 1", { tenantId: "acme", walletUid: "wal_hot" }, 1],
      ["hot wallet, page 100", { tenantId: "acme", walletUid: "wal_hot" }, 100],
      ["hot wallet statements, page 1", { tenantId: "acme", walletUid: "wal_hot", movedOrFinal: true }, 1],
      ["quiet wallet, page 1", { tenantId: "acme", walletUid: "wal_42" }, 1],
      ["customer, page 1", { tenantId: "acme", customerUid: "cus_42" }, 1],
    ] as const)("%s", async (_label, filter, page) => {
      const { ms, value } = await timed(() =>
        ctx.store.uow.run((tx) => tx.operations.list(filter, { page, limit: 20, sort: newestFirst })),
      );
      const pageOnly = await timed(() =>
        ctx.store.uow.run((tx) => tx.operations.list(filter, { page, limit: 20, sort: newestFirst })),
      );
      console.log(
        `${name} ${_label}: ${ms.toFixed(1)} ms (again ${pageOnly.ms.toFixed(1)} ms), total ${value.total}`,
      );
      expect(value.data).toHaveLength(20);
      // Generous: the page itself is an index walk of offset + limit rows; the total is a count.
      expect(pageOnly.ms).toBeLessThan(1_500);
      expect(value.data[0]!.createdAt >= value.data[19]!.createdAt).toBe(true);
    });
  });
}

describeScale("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "wallet-scale-"));
  const file = join(dir, "wallet.db");
  const store = createSqliteStore({ filename: file });
  await store.migrate();
  return {
    store,
    async seed() {
      await store.uow.run((tx) =>
        tx.tenants.upsert({
          id: "acme",
          name: "Acme",
          status: "active",
          scopes: [],
          ipAllowlist: [],
          approvedProfiles: [],
          defaultProfile: null,
          approvedKycLevels: [],
          approvedRails: [],
          rateLimit: { perSecond: 1, burst: 1 },
          webhook: { url: null, enabled: false, events: [], secrets: [] },
        }),
      );
      const raw = new BetterSqlite3(file);
      raw.pragma("busy_timeout = 5000");
      raw.exec(
        `insert into operations ${seedSelect(
          `(with recursive s(n) as (select 1 union all select n + 1 from s where n < ${ROWS}) select n from s)`,
          "n",
          (n) => `strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + ${n}, 'unixepoch')`,
          (n) => `substr('0000000000' || ${n}, -10)`,
        )}`,
      );
      raw.exec("analyze");
      raw.close();
    },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const pgUrl = postgresTestUrl();
if (pgUrl) {
  describeScale("postgres", async () => {
    const fresh = await createFreshPostgresDatabase(pgUrl);
    const store = createPostgresStore({ connectionString: fresh.url });
    await store.migrate();
    return {
      store,
      async seed() {
        const client = new pg.Client({ connectionString: fresh.url });
        await client.connect();
        await client.query(
          `insert into tenants values ('acme','Acme','active','[]','[]','[]',null,'[]','[]','{"perSecond":1,"burst":1}','{}')`,
        );
        await client.query(
          `insert into operations ${seedSelect(
            `generate_series(1, ${ROWS}) as s(n)`,
            "n",
            (n) =>
              `to_char(to_timestamp(1700000000 + ${n}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
            (n) => `lpad(${n}::text, 10, '0')`,
          )}`,
        );
        await client.query("analyze operations");
        await client.end();
      },
      async close() {
        await store.close();
        await fresh.drop();
      },
    };
  });
}
