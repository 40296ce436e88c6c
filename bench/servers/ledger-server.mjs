// The ledger itself, as `wallet serve` runs it (startServer from @wallet/server's build), with the
// bench tenant, `wallets` onboarded customers and a funded prefund. Optionally seeds `seedOperations`
// statement rows into the first wallet (SQLite only) for the statement scenario.
import { randomBytes } from "node:crypto";
import {
  BENCH_CURRENCY,
  BENCH_KID,
  BENCH_PREFUND_MINOR,
  BENCH_TENANT_ID,
  benchConfig,
  benchOnboarding,
} from "../lib/bench-tenant.mjs";
import { serveParent } from "../lib/child.mjs";
import { importFrom } from "../lib/resolve.mjs";

const server = await importFrom("server", "@wallet/server");
const core = await importFrom("server", "@wallet/ledger-core");

/** Onboardings in flight at once while setting up (Postgres benefits; SQLite serializes anyway). */
const SETUP_CONCURRENCY = 8;

let running;
serveParent({
  async setup(options) {
    const config = server.parseConfig(
      benchConfig({
        apiKey: options.apiKey,
        publicKeyPem: options.publicKeyPem,
        scopes: core.scopes,
        database: options.database,
      }),
    );
    running = await server.startServer({
      config,
      databaseUrl: options.databaseUrl,
      piiKeys: server.piiKeyRing(randomBytes(32).toString("base64")),
      port: 0,
      scheduler: false,
    });
    const { store, core: deps } = running;
    const tenant = await store.uow.run((tx) => tx.tenants.get(BENCH_TENANT_ID));
    const ctx = { tenant, kid: BENCH_KID, requestId: "bench-setup", scopes: tenant.scopes };
    await store.uow.run((tx) =>
      core.fundPrefund(deps, tx, {
        tenantId: BENCH_TENANT_ID,
        amountMinor: BENCH_PREFUND_MINOR,
        currency: BENCH_CURRENCY,
      }),
    );
    const walletUids = [];
    for (let start = 0; start < options.wallets; start += SETUP_CONCURRENCY) {
      const batch = [];
      for (let n = start; n < Math.min(options.wallets, start + SETUP_CONCURRENCY); n++) {
        batch.push(store.uow.run((tx) => core.onboardCustomer(deps, ctx, tx, benchOnboarding(n))));
      }
      for (const customer of await Promise.all(batch)) walletUids.push(customer.walletUid);
    }
    let seeded = null;
    if (options.seedOperations > 0) {
      seeded = await seedStatement(options.databaseUrl, walletUids[0], options.seedOperations);
    }
    return { info: { url: running.url, walletUids, seeded } };
  },
  close: () => running?.close(),
});

/**
 * Writes `count` completed credits to `walletUid` straight into the real `operations` table, in one
 * transaction on a second connection (the server is idle meanwhile). Only the operations rows are
 * written: the statement reads nothing else, and journals for a million rows would triple the
 * setup time without changing the query measured. Dated in the past, one millisecond apart, so they
 * never count toward today's limits.
 */
async function seedStatement(databaseUrl, walletUid, count) {
  if (!databaseUrl.startsWith("sqlite:")) throw new Error("statement seeding is implemented for SQLite only");
  const { default: Database } = await importFrom("persistence", "better-sqlite3");
  const db = new Database(databaseUrl.slice("sqlite:".length));
  const started = performance.now();
  try {
    db.pragma("busy_timeout = 10000");
    const customerUid = db
      .prepare("select customer_uid from wallets where uid = ?")
      .get(walletUid).customer_uid;
    const insert = db.prepare(
      `insert into operations (uid, tenant_id, type, state, amount_minor, fee_minor, tax_minor, currency,
         client_reference, customer_uid, source_wallet_uid, destination_wallet_uid, fee_breakdown,
         created_at, completed_at, funds_moved_at, updated_at)
       values (?, ?, 'wallet_credit', 'completed', 100, 0, 0, ?, ?, ?, null, ?, '[]', ?, ?, ?, ?)`,
    );
    const base = Date.parse("2025-01-01T00:00:00.000Z");
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        const at = new Date(base + i).toISOString();
        const n = String(i).padStart(10, "0");
        insert.run(
          `op_seed_${n}`,
          BENCH_TENANT_ID,
          BENCH_CURRENCY,
          `seed-${n}`,
          customerUid,
          walletUid,
          at,
          at,
          at,
          at,
        );
      }
    })();
    db.pragma("optimize");
  } finally {
    db.close();
  }
  return { count, seconds: (performance.now() - started) / 1000 };
}
