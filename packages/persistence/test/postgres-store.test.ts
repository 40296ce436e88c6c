import { DomainError, StoreUnavailableError, type Tx } from "@wallet/ledger-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  type FreshPostgresDatabase,
  migrationsFor,
  openStore,
  postgresTestUrl,
  type Store,
} from "../src/index.js";
import { exactIntegerTypes } from "../src/postgres/exact-integer-types.js";
import {
  at,
  customerFixture,
  journalFixture,
  mandateFixture,
  operationFixture,
  tenantFixture,
  unique,
  walletFixture,
} from "./contract/fixtures.js";

const baseUrl = postgresTestUrl();

describe.runIf(baseUrl)("Postgres store migrations", () => {
  it("run on a connection of their own, outside the timeouts meant for requests", async () => {
    const fresh = await createFreshPostgresDatabase(baseUrl!);
    // A 1 ms statement timeout: the DDL and backfills of the migrations would not fit in it.
    const store = createPostgresStore({ connectionString: fresh.url, poolSize: 1, statementTimeoutMs: 1 });
    try {
      await store.migrate();
      const admin = new pg.Client({ connectionString: fresh.url });
      await admin.connect();
      const { rows } = await admin.query("select count(*)::int as n from kysely_migration");
      await admin.end();
      expect(rows[0].n).toBe(Object.keys(migrationsFor("postgres")).length);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});

describe.runIf(baseUrl)("Postgres store", () => {
  let fresh: FreshPostgresDatabase;
  let store: Store;
  let admin: pg.Client;

  beforeAll(async () => {
    fresh = await createFreshPostgresDatabase(baseUrl!);
    store = createPostgresStore({ connectionString: fresh.url, poolSize: 4 });
    await store.migrate();
    admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await store?.close();
    await fresh?.drop();
  });

  it("opens postgres:// and postgresql:// URLs; migrations run concurrently from several processes", async () => {
    const a = openStore(fresh.url);
    const b = openStore(fresh.url.replace(/^postgres:/, "postgresql:"));
    expect([a.dialect, b.dialect]).toEqual(["postgres", "postgres"]);
    await Promise.all([a.migrate(), b.migrate(), a.migrate()]);
    await Promise.all([a.ping(), b.ping()]);
    await Promise.all([a.close(), b.close()]);
    const { rows } = await admin.query("select name from kysely_migration order by name");
    expect(rows).toEqual(Object.keys(migrationsFor("postgres")).map((name) => ({ name })));
    expect(rows).toContainEqual({ name: "0002-wallet-day-totals" });
  });

  it("getForUpdate serializes read-modify-write of a tenant: concurrent changes are all kept", async () => {
    // Its own pool, so the connections it opens do not change what later tests of `store` see.
    const own = createPostgresStore({ connectionString: fresh.url, poolSize: 8 });
    const id = unique("tenant");
    await own.uow.run((tx) => tx.tenants.upsert(tenantFixture(id, { ipAllowlist: [] })));
    const cidrs = Array.from({ length: 8 }, (_, i) => `10.0.${i}.0/24`);
    await Promise.all(
      cidrs.map((cidr) =>
        own.uow.run(async (tx) => {
          const t = (await tx.tenants.getForUpdate(id))!;
          await new Promise((r) => setTimeout(r, 5)); // widen the race window
          await tx.tenants.upsert({ ...t, ipAllowlist: [...t.ipAllowlist, cidr] });
        }),
      ),
    );
    const t = await own.uow.run((tx) => tx.tenants.get(id));
    await own.close();
    expect([...t!.ipAllowlist].sort()).toEqual([...cidrs].sort());
  });

  it("creates and drops fresh databases", async () => {
    const extra = await createFreshPostgresDatabase(baseUrl!);
    const name = new URL(extra.url).pathname.slice(1);
    const exists = async () =>
      (await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 1;
    expect(await exists()).toBe(true);
    const holder = new pg.Client({ connectionString: extra.url });
    await holder.connect();
    holder.on("error", () => {});
    await extra.drop(); // FORCE: an open connection does not stop it
    expect(await exists()).toBe(false);
    await holder.end().catch(() => {});
  });

  it("reads int8 and numeric as exact numbers and refuses values beyond 2^53-1; the trial balance's sums are exact", async () => {
    const max = Number.MAX_SAFE_INTEGER;
    await store.uow.run((tx) =>
      tx.ledger.post(
        journalFixture("t", "BIG", [{ from: "rail:x:clearing", to: "suspense:x", amountMinor: max }]),
      ),
    );
    expect((await store.uow.run((tx) => tx.ledger.balances("BIG", ["suspense:x"]))).get("suspense:x")).toBe(
      max,
    );
    await admin.query("insert into accounts values ('rail:y:clearing', 'BIG', 9007199254740993, null)");
    const e = await store.uow
      .run((tx) => tx.ledger.balances("BIG", ["rail:y:clearing"]))
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(RangeError);
    // Other accounts (no balance may pass 2^53-1: the posting refuses that), the sums past it.
    await store.uow.run((tx) =>
      tx.ledger.post(
        journalFixture("t", "BIG", [{ from: "rail:z:clearing", to: "suspense:z", amountMinor: 2 }]),
      ),
    );
    // sum(bigint) is numeric in Postgres: past 2^53-1 a numeric read fails rather than rounds...
    const sums = await admin.query(
      "select sum(amount_minor)::text as s, sum(abs(amount_minor)) as n from journal_entries where currency = 'BIG'",
    );
    const numeric = exactIntegerTypes.getTypeParser(1700, "text") as (text: string) => unknown;
    expect(() => numeric(String(sums.rows[0].n))).toThrow(RangeError);
    // ...and the trial balance, whose sums grow past it by design, reads them exactly.
    const trial = (await store.uow.run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === "BIG");
    expect(trial).toEqual({ currency: "BIG", debitsMinor: BigInt(max) + 2n, creditsMinor: BigInt(max) + 2n });
    await admin.query("delete from journal_entries where currency = 'BIG'");
  });

  it("installs its type parsers on its own pool only", () => {
    expect(pg.types.getTypeParser(20, "text")("5")).toBe("5");
  });

  it("maps a terminated connection (57P01) to StoreUnavailableError and recovers", async () => {
    const e = await store.uow
      .run(async (tx) => {
        await tx.tenants.get("x");
        await admin.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
        );
        await tx.tenants.get("y");
      })
      .catch((err: unknown) => err);
    expect(e).toBeInstanceOf(StoreUnavailableError);
    const tenant = tenantFixture(unique("tn"));
    await store.uow.run((tx) => tx.tenants.upsert(tenant));
    expect(await store.uow.run((tx) => tx.tenants.get(tenant.id))).toEqual(tenant);
  });

  it("maps a refused connection to StoreUnavailableError", async () => {
    const down = createPostgresStore({
      connectionString: "postgres://postgres@127.0.0.1:1/none",
      connectTimeoutMs: 2_000,
    });
    await expect(down.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.uow.run((tx) => tx.tenants.list())).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(down.migrate()).rejects.toBeInstanceOf(StoreUnavailableError);
    await down.close();
  });

  it("maps a database that refuses connections (55000) or no longer exists (3D000) to StoreUnavailableError", async () => {
    // Each its own database: closed to connections, then dropped, as an operator might.
    const closing = await createFreshPostgresDatabase(baseUrl!);
    const closed = createPostgresStore({ connectionString: closing.url, poolSize: 1 });
    const name = new URL(closing.url).pathname.slice(1);
    const server = new pg.Client({ connectionString: baseUrl! });
    await server.connect();
    try {
      await closed.migrate();
      await server.query(`alter database "${name}" allow_connections false`);
      await server.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = $1", [name]);
      await expect(closed.uow.run((tx) => tx.tenants.list())).rejects.toBeInstanceOf(StoreUnavailableError);
      await closed.close();
      await server.query(`drop database "${name}" with (force)`);
      const gone = createPostgresStore({ connectionString: closing.url, poolSize: 1 });
      await expect(gone.uow.run((tx) => tx.tenants.list())).rejects.toBeInstanceOf(StoreUnavailableError);
      await gone.close();
    } finally {
      await server.end();
      await closing.drop();
    }
  });

  it("maps text holding U+0000, which Postgres cannot store (22021), to InvalidRequest, in a lookup or a write", async () => {
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => (e instanceof DomainError ? e.code : String(e)),
      );
    expect(await refusal(store.uow.run((tx) => tx.tenants.get("acme\u0000")))).toBe("InvalidRequest");
    expect(await refusal(store.uow.run((tx) => tx.operations.getAny("op_\u0000")))).toBe("InvalidRequest");
  });

  it("maps an exhausted pool (connect timeout) to StoreUnavailableError", async () => {
    const small = createPostgresStore({ connectionString: fresh.url, poolSize: 1, connectTimeoutMs: 200 });
    let release!: () => void;
    const held = small.uow.run(() => new Promise<void>((resolve) => (release = resolve)));
    await new Promise((r) => setTimeout(r, 50));
    const e = await small.uow.run((tx) => tx.tenants.list()).catch((err: unknown) => err);
    release();
    await held;
    expect(e).toBeInstanceOf(StoreUnavailableError);
    await small.close();
  });

  it("runs READ COMMITTED: each statement sees what others committed meanwhile", async () => {
    const tenant = tenantFixture(unique("tn"));
    const seen = await store.uow.run(async (tx) => {
      const before = await tx.tenants.get(tenant.id);
      const other = createPostgresStore({ connectionString: fresh.url, poolSize: 1 });
      await other.uow.run((otx) => otx.tenants.upsert(tenant));
      await other.close();
      return [before, await tx.tenants.get(tenant.id)];
    });
    expect(seen).toEqual([null, tenant]);
  });

  it("snapshot: one state for all of a read's statements; a serialization failure runs it again", async () => {
    const tenant = tenantFixture(unique("tn"));
    await store.uow.run((tx) => tx.tenants.upsert(tenant));
    const other = createPostgresStore({ connectionString: fresh.url, poolSize: 1 });
    try {
      // Two reads of one snapshot see the same state, whatever commits in between.
      const names = await store.uow.snapshot!(async (tx) => {
        const before = (await tx.tenants.get(tenant.id))!.name;
        await other.uow.run((otx) => otx.tenants.upsert({ ...tenant, name: "renamed" }));
        return [before, (await tx.tenants.get(tenant.id))!.name];
      });
      expect(names).toEqual([tenant.name, tenant.name]);
      // Locking a row changed since the snapshot began fails (40001); the read runs again.
      let attempts = 0;
      const locked = await store.uow.snapshot!(async (tx) => {
        attempts++;
        await tx.tenants.get(tenant.id);
        if (attempts === 1) await other.uow.run((otx) => otx.tenants.upsert({ ...tenant, name: "again" }));
        return (await tx.tenants.getForUpdate(tenant.id))!.name;
      });
      expect([attempts, locked]).toEqual([2, "again"]);
    } finally {
      await other.close();
    }
  });

  describe("read, decide, write back", () => {
    /**
     * Two transactions interleaved by hand: `first` reads and calls `paused()`, `second` runs and
     * commits, then `first` resumes and writes.
     */
    const interleave = async <T>(
      first: (tx: Tx, paused: () => Promise<void>) => Promise<T>,
      second: (tx: Tx) => Promise<void>,
    ): Promise<T> => {
      let reachedPause!: () => void;
      const atPause = new Promise<void>((r) => (reachedPause = r));
      let resume!: () => void;
      const resumed = new Promise<void>((r) => (resume = r));
      const running = store.uow.run((tx) =>
        first(tx, () => {
          reachedPause();
          return resumed;
        }),
      );
      await atPause;
      await store.uow.run(second);
      resume();
      return running;
    };

    it("refuses to write back an operation another transaction changed since it was read", async () => {
      const tenant = tenantFixture(unique("tn"));
      const op = operationFixture(tenant.id, { type: "payout_b2c", state: "processing" });
      await store.uow.run(async (tx) => {
        await tx.tenants.upsert(tenant);
        await tx.operations.insert(op);
      });
      const e = await interleave(
        async (tx, paused) => {
          const read = (await tx.operations.get(tenant.id, op.uid))!;
          await paused();
          await tx.operations.update({ ...read, state: "failed", updatedAt: at(5) });
        },
        async (tx) => {
          const read = (await tx.operations.get(tenant.id, op.uid))!;
          await tx.operations.update({ ...read, state: "completed", completedAt: at(4), updatedAt: at(4) });
        },
      ).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe("Conflict");
      expect((await store.uow.run((tx) => tx.operations.get(tenant.id, op.uid)))?.state).toBe("completed");
    });

    it("a mandate job locks the due mandates it takes; another run at once skips them without waiting", async () => {
      const tenant = tenantFixture(unique("tn"));
      const customer = customerFixture(tenant.id);
      const wallet = walletFixture(customer);
      // Due long before any other test's mandates: this job's batch is exactly these two.
      const due = [1, 2].map((i) =>
        mandateFixture(customer.uid, wallet.uid, tenant.id, {
          uid: `man_0000_${i}_${unique("skip")}`,
          status: "pending",
          validFrom: "1990-01-01T00:00:00.000Z",
          validTo: null,
        }),
      );
      await store.uow.run(async (tx) => {
        await tx.tenants.upsert(tenant);
        await tx.customers.insert(customer);
        await tx.wallets.insert(wallet);
        for (const m of due) await tx.mandates.insert(m);
      });
      const asOf = "1990-01-02T00:00:00.000Z";
      let second: string[] = [];
      const first = await interleave(
        async (tx, paused) => {
          const taken = await tx.mandates.listDue("activate", asOf, 10);
          await paused();
          return taken.map((m) => m.uid);
        },
        async (tx) => {
          second = (await tx.mandates.listDue("activate", asOf, 10)).map((m) => m.uid);
        },
      );
      expect(first).toEqual(due.map((m) => m.uid));
      expect(second).toEqual([]);
    });

    it("accepts the write back when the transaction re-read the row after the change (lock, then re-read)", async () => {
      const tenant = tenantFixture(unique("tn"));
      const op = operationFixture(tenant.id, { type: "payout_b2c", state: "processing" });
      await store.uow.run(async (tx) => {
        await tx.tenants.upsert(tenant);
        await tx.operations.insert(op);
      });
      await interleave(
        async (tx, paused) => {
          await tx.operations.get(tenant.id, op.uid);
          await paused();
          const fresh = (await tx.operations.get(tenant.id, op.uid))!;
          expect(fresh.provider?.state).toBe("uncertain");
          await tx.operations.update({ ...fresh, state: "completed", completedAt: at(6), updatedAt: at(6) });
        },
        async (tx) => {
          const read = (await tx.operations.get(tenant.id, op.uid))!;
          await tx.operations.update({
            ...read,
            provider: { railCode: "r", state: "uncertain", reference: null, lastUpdatedAt: at(3) },
            updatedAt: at(3),
          });
        },
      );
      expect((await store.uow.run((tx) => tx.operations.get(tenant.id, op.uid)))?.state).toBe("completed");
    });
  });

  it("runs the hot statements prepared, unless preparedStatements is false: a migration under one is a 503, then it recovers", async () => {
    // A database of its own: the test changes the tenants table.
    const own = await createFreshPostgresDatabase(baseUrl!);
    const prepared = createPostgresStore({ connectionString: own.url, poolSize: 1 });
    const unnamed = createPostgresStore({
      connectionString: own.url,
      poolSize: 1,
      preparedStatements: false,
    });
    const ddl = new pg.Client({ connectionString: own.url });
    try {
      await prepared.migrate();
      await ddl.connect();
      const tenant = tenantFixture(unique("tn"));
      await prepared.uow.run((tx) => tx.tenants.upsert(tenant));
      const read = (s: Store) => s.uow.run((tx) => tx.tenants.get(tenant.id));
      expect(await read(prepared)).toEqual(tenant);
      expect(await read(unnamed)).toEqual(tenant);
      // Another process migrates: a column appears under the prepared `select * from tenants`.
      await ddl.query("alter table tenants add column added_later text");
      expect(await read(unnamed)).toEqual(tenant);
      await expect(read(prepared)).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await read(prepared)).toEqual(tenant);
    } finally {
      await ddl.end();
      await Promise.all([prepared.close(), unnamed.close()]);
      await own.drop();
    }
  });
});
