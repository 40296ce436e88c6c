import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StoreUnavailableError } from "@wallet/ledger-core";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStore, openStore, type Store } from "../src/index.js";
import { sqlOperationRepository } from "../src/repositories/operation-repository.js";
import { newHousekeeping, RowVersions } from "../src/repositories/sql-context.js";
import { REPLAY_PURGE_EVERY } from "../src/repositories/tenant-repository.js";
import type { Database } from "../src/schema/database.js";
import { safeIntegerDatabase } from "../src/sqlite/safe-integer-database.js";
import {
  at,
  customerFixture,
  journalFixture,
  tenantFixture,
  unique,
  walletFixture,
} from "./contract/fixtures.js";

describe("SQLite store", () => {
  let dir: string;
  let file: string;
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "wallet-sqlite-"));
    file = join(dir, "wallet.db");
    store = createSqliteStore({ filename: file, busyTimeoutMs: 200 });
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A second connection to the same file, as another process would have. */
  const rawConnection = () => {
    const raw = new BetterSqlite3(file);
    raw.defaultSafeIntegers(true);
    raw.pragma("busy_timeout = 200");
    return raw;
  };

  it("opens sqlite: URLs, creating parent directories; migrating again is a no-op; ping answers", async () => {
    const nested = join(dir, "a", "b", "wallet.db");
    const opened = openStore(`sqlite:${nested}`);
    expect(opened.dialect).toBe("sqlite");
    await opened.migrate();
    await opened.migrate();
    await opened.ping();
    await opened.close();
    expect(existsSync(nested)).toBe(true);
    const raw = new BetterSqlite3(nested);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    const tables = raw
      .prepare("select name from sqlite_master where type = 'table' order by name")
      .pluck()
      .all();
    raw.close();
    expect(tables).toEqual(
      expect.arrayContaining([
        "accounts",
        "agreements",
        "audit_log",
        "customers",
        "identifiers",
        "idempotency_keys",
        "journal_entries",
        "journals",
        "kyc_versions",
        "operation_timeline",
        "operations",
        "outbox_events",
        "replay_guard",
        "signing_keys",
        "tenant_api_keys",
        "tenants",
        "wallets",
      ]),
    );
  });

  it("creates a new database's directories and files for its owner only; an existing file keeps its mode", async () => {
    // They hold every tenant's webhook secrets and the idempotency answers: not for other users.
    const nested = join(dir, "private", "data", "wallet.db");
    const opened = createSqliteStore({ filename: nested });
    await opened.migrate();
    await opened.uow.run((tx) => tx.tenants.upsert(tenantFixture(unique("tn"))));
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect([mode(join(dir, "private")), mode(join(dir, "private", "data"))]).toEqual([0o700, 0o700]);
    expect([mode(nested), mode(`${nested}-wal`), mode(`${nested}-shm`)]).toEqual([0o600, 0o600, 0o600]);
    await opened.close();
    chmodSync(nested, 0o640);
    const reopened = createSqliteStore({ filename: nested });
    await reopened.ping();
    await reopened.close();
    expect(mode(nested)).toBe(0o640);
  });

  it("refuses URLs it does not know without echoing them", () => {
    expect(() => openStore("mysql://user:secret@host/db")).toThrow(/Unsupported database URL/);
    expect(() => openStore("mysql://user:secret@host/db")).not.toThrow(/secret/);
    expect(() => openStore("sqlite:")).toThrow(/file path/);
  });

  it("reports a file it cannot open as StoreUnavailableError", () => {
    const aDirectory = join(dir, "is-a-dir");
    mkdirSync(aDirectory);
    expect(() => createSqliteStore({ filename: aDirectory })).toThrow(StoreUnavailableError);
  });

  it("begins every transaction IMMEDIATE: it waits for, then gives up on, another connection's write lock", async () => {
    const other = rawConnection();
    other.exec("begin immediate");
    try {
      // Even read-only work needs the write lock up front; a deferred BEGIN would have read fine.
      const e = await store.uow.run((tx) => tx.tenants.get("nobody")).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(StoreUnavailableError);
    } finally {
      other.exec("commit");
      other.close();
    }
    expect(await store.uow.run((tx) => tx.tenants.get("nobody"))).toBeNull();
  });

  it("waits for another process's write transaction and then commits its own", async () => {
    const waiting = createSqliteStore({ filename: file, busyTimeoutMs: 5_000 });
    // A separate process holds the write lock for ~300 ms, then commits a tenant row.
    const script = `
      const D = require(${JSON.stringify(createRequire(import.meta.url).resolve("better-sqlite3"))});
      const db = new D(${JSON.stringify(file)});
      db.pragma("busy_timeout = 5000");
      db.exec("begin immediate");
      db.prepare("insert into tenants values ('other-process','x','active','[]','[]','[]',null,'[]','[]','{}','{}')").run();
      process.stdout.write("locked\\n");
      const until = Date.now() + 300;
      while (Date.now() < until) {}
      db.exec("commit");
      db.close();`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    // Listened for at once: the child may be gone before the store answers.
    const closed = new Promise((resolve) => child.once("close", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
      child.on("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    const t0 = Date.now();
    const tenant = tenantFixture(unique("tn"));
    const seen = await waiting.uow.run(async (tx) => {
      await tx.tenants.upsert(tenant);
      return tx.tenants.get("other-process");
    });
    expect(seen?.id).toBe("other-process");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(50);
    expect(await waiting.uow.run((tx) => tx.tenants.get(tenant.id))).toEqual(tenant);
    await closed;
    await waiting.close();
  });

  it("enforces foreign keys at commit, so parent and child may be written in any order", async () => {
    const tenant = tenantFixture(unique("tn"));
    const customer = customerFixture(tenant.id);
    await store.uow.run(async (tx) => {
      await tx.wallets.insert(walletFixture(customer));
      await tx.customers.insert(customer);
      await tx.tenants.upsert(tenant);
    });
    const orphan = walletFixture(customerFixture(tenant.id));
    const e = await store.uow.run((tx) => tx.wallets.insert(orphan)).catch((err: unknown) => err);
    expect(String(e)).toMatch(/FOREIGN KEY/);
    expect(await store.uow.run((tx) => tx.wallets.getAny(orphan.uid))).toBeNull();
  });

  it("refuses to read an integer beyond 2^53-1 instead of rounding it", async () => {
    const raw = rawConnection();
    raw.prepare("insert into accounts values ('rail:x:clearing', 'KES', ?, null)").run(2n ** 53n + 1n);
    raw.close();
    const e = await store.uow
      .run((tx) => tx.ledger.balances("KES", ["rail:x:clearing"]))
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(RangeError);
  });

  it("sums the trial balance exactly past 2^53-1 instead of rounding or refusing it", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    await store.uow.run(async (tx) => {
      await tx.ledger.post(
        journalFixture("t", "KES", [{ from: "rail:x:clearing", to: "suspense:x", amountMinor: max }]),
      );
      // Other accounts: no balance may pass 2^53-1 (the posting refuses that), the sums may.
      await tx.ledger.post(
        journalFixture("t", "KES", [{ from: "rail:y:clearing", to: "suspense:y", amountMinor: 2 }]),
      );
    });
    expect(await store.uow.run((tx) => tx.ledger.trialBalance())).toEqual([
      { currency: "KES", debitsMinor: BigInt(max) + 2n, creditsMinor: BigInt(max) + 2n },
    ]);
  });

  it("binds integers exactly: arithmetic near 2^53 in SQL stays integer", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    await store.uow.run(async (tx) => {
      await tx.ledger.post(
        journalFixture("t", "KES", [{ from: "rail:x:clearing", to: "suspense:x", amountMinor: max - 1 }]),
      );
      await tx.ledger.post(
        journalFixture("t", "KES", [{ from: "suspense:x", to: "rail:x:clearing", amountMinor: max - 2 }]),
      );
    });
    const raw = rawConnection();
    const row = raw
      .prepare(
        "select balance_minor, typeof(balance_minor) as t from accounts where account_key = 'suspense:x'",
      )
      .get() as {
      balance_minor: bigint;
      t: string;
    };
    raw.close();
    expect(row).toEqual({ balance_minor: 1n, t: "integer" });
  });

  it("purges expired replay signatures now and then, so the table stays small", async () => {
    await store.uow.run(async (tx) => {
      for (let i = 0; i < 50; i++) await tx.replayGuard.remember(`old-${i}`, at(0), at(600_000));
    });
    await store.uow.run(async (tx) => {
      for (let i = 0; i < REPLAY_PURGE_EVERY; i++)
        await tx.replayGuard.remember(`new-${i}`, at(700_000), at(1_300_000));
    });
    const raw = rawConnection();
    const old = raw.prepare("select count(*) from replay_guard where signature like 'old-%'").pluck().get();
    const fresh = raw.prepare("select count(*) from replay_guard where signature like 'new-%'").pluck().get();
    raw.close();
    expect(old).toBe(0n);
    expect(fresh).toBe(BigInt(REPLAY_PURGE_EVERY));
  });

  it("works off a burst's expired signatures under steady traffic, rather than keeping its size", async () => {
    // 5,000 signatures at once, then one a second for 2,000 s from when the burst has expired.
    await store.uow.run(async (tx) => {
      for (let i = 0; i < 5_000; i++) await tx.replayGuard.remember(`burst-${i}`, at(i), at(600_000 + i));
    });
    await store.uow.run(async (tx) => {
      for (let i = 0; i < 2_000; i++) {
        const now = 700_000 + i * 1_000;
        await tx.replayGuard.remember(`steady-${i}`, at(now), at(now + 600_000));
      }
    });
    const raw = rawConnection();
    const rows = Number(raw.prepare("select count(*) from replay_guard").pluck().get());
    raw.close();
    // Live: the last 600 s of the steady signatures; expired ones wait at most a purge or two.
    expect(rows).toBeLessThanOrEqual(600 + 2 * REPLAY_PURGE_EVERY);
  });

  /** The query plan of every select `work` runs through the operation repository. */
  const selectPlans = async (work: (repo: ReturnType<typeof sqlOperationRepository>) => Promise<unknown>) => {
    const raw = new BetterSqlite3(file);
    raw.defaultSafeIntegers(true);
    const queries: { sql: string; parameters: readonly unknown[] }[] = [];
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: safeIntegerDatabase(raw) }),
      log: (event) => {
        if (event.query.sql.startsWith("select")) queries.push(event.query);
      },
    });
    await db.transaction().execute((trx) =>
      work(
        sqlOperationRepository({
          trx,
          dialect: "sqlite",
          housekeeping: newHousekeeping(),
          versions: new RowVersions(),
        }),
      ),
    );
    const plans = queries.map((q) =>
      (
        raw
          .prepare(`explain query plan ${q.sql}`)
          .all(...q.parameters.map((p) => (typeof p === "number" ? BigInt(p) : p))) as {
          detail: string;
        }[]
      ).map((r) => r.detail),
    );
    await db.destroy();
    return plans;
  };

  it("pages wallet, tenant and customer listings by walking indexes, not by sorting the matches", async () => {
    const sort = [
      { field: "createdAt", direction: "DESC" },
      { field: "id", direction: "DESC" },
    ] as const;
    const page = { page: 3, limit: 20, sort: [...sort] };
    // wallet: page + one count per side; tenant and customer: page + count
    const plans = await selectPlans(async (repo) => {
      await repo.list({ tenantId: "acme", walletUid: "wal_1" }, page);
      await repo.list({ tenantId: "acme" }, page);
      await repo.list({ tenantId: "acme", customerUid: "cus_1" }, page);
    });
    const [walletPage, , , tenantPage, , customerPage] = plans;
    expect(walletPage!.join("\n")).toMatch(/USING INDEX operations_source_created/);
    expect(walletPage!.join("\n")).toMatch(/USING INDEX operations_destination_created/);
    expect(walletPage!.join("\n")).not.toMatch(/SCAN operations/);
    expect(tenantPage).toEqual([expect.stringMatching(/USING INDEX operations_tenant_created/)]);
    expect(customerPage).toEqual([expect.stringMatching(/USING INDEX operations_customer_created/)]);
  });

  it("sums a wallet's day or month from its day totals alone; another instant searches the wallet's operations", async () => {
    const plans = await selectPlans(async (repo) => {
      await repo.sumForWallet("wal_1", "2026-11-22T00:00:00.000Z", "both");
      await repo.sumForWallet("wal_1", "2026-11-01T00:00:00.000Z", "outbound");
      await repo.sumForWallet("wal_1", "2026-11-22T10:00:00.000Z", "inbound");
    });
    expect(plans).toHaveLength(3);
    for (const plan of plans.map((p) => p.join("\n"))) {
      expect(plan).toMatch(/SEARCH wallet_day_totals USING PRIMARY KEY \(wallet_uid=\? AND day>\?\)/);
      expect(plan).not.toMatch(/SCAN (operations|wallet_day_totals)/);
    }
    // The limit checks ask from a midnight: the totals answer, no operation is read.
    expect(plans[0]!.join("\n")).not.toMatch(/operations/);
    expect(plans[1]!.join("\n")).not.toMatch(/operations/);
    // Any other instant (no core use case asks one) reads the wallet's side of the operations.
    expect(plans[2]!.join("\n")).toMatch(
      /SEARCH operations USING INDEX operations_destination_created \(destination_wallet_uid=\?\)/,
    );
  });
});
