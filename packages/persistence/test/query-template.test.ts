import { StoreUnavailableError } from "@wallet/ledger-core";
import BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inCodeMigrationProvider } from "../src/migrations/migration-provider.js";
import { exactIntegerTypes } from "../src/postgres/exact-integer-types.js";
import { prepareTemplates } from "../src/postgres/prepared-templates.js";
import type { Database } from "../src/schema/database.js";
import { preparedStatementName, queryTemplate } from "../src/shared/query-template.js";
import type { SqlDialect } from "../src/shared/sql-dialect.js";
import { mapStoreError } from "../src/shared/store-errors.js";
import { safeIntegerDatabase } from "../src/sqlite/safe-integer-database.js";
import { createFreshPostgresDatabase, type FreshPostgresDatabase, postgresTestUrl } from "../src/testing.js";
import { unique } from "./contract/fixtures.js";

interface Engine {
  db: Kysely<Database>;
  close(): Promise<void>;
}

const baseUrl = postgresTestUrl();

describeTemplates("sqlite", async () => {
  const raw = new BetterSqlite3(":memory:");
  raw.defaultSafeIntegers(true);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: safeIntegerDatabase(raw) }) });
  return { db, close: () => db.destroy() };
});

describe.runIf(baseUrl)("postgres", () => {
  describeTemplates("postgres", async () => {
    const fresh: FreshPostgresDatabase = await createFreshPostgresDatabase(baseUrl!);
    const pool = new pg.Pool({ connectionString: fresh.url, max: 2, types: exactIntegerTypes });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      close: async () => {
        await db.destroy();
        await fresh.drop();
      },
    };
  });
});

function describeTemplates(dialect: SqlDialect, open: () => Promise<Engine>) {
  describe(`query templates (${dialect})`, () => {
    let engine: Engine;
    beforeAll(async () => {
      engine = await open();
      const { error } = await new Migrator({
        db: engine.db,
        provider: inCodeMigrationProvider(dialect),
      }).migrateToLatest();
      if (error) throw error;
    });
    afterAll(() => engine?.close());

    /** Runs `work` in its own transaction, as the repositories do. */
    const inTx = <T>(work: (target: { trx: Kysely<Database>; dialect: SqlDialect }) => Promise<T>) =>
      engine.db.transaction().execute((trx) => work({ trx, dialect }));

    it("maps each argument to its parameters, in SQL order, around the query's own constants", async () => {
      const echo = queryTemplate((db, p: { a: string; b: number; c: string }) =>
        db.selectNoFrom([
          sql<string>`${p.c}`.as("first"),
          sql<string>`${"constant"}`.as("second"),
          sql<number>`cast(${p.b} as bigint)`.as("third"),
          sql<string>`${p.a}`.as("fourth"),
          sql<string>`${p.c}`.as("again"),
        ]),
      );
      const row = await inTx((t) => echo.first(t, { a: "A", b: 42, c: "C" }));
      expect(row).toEqual({ first: "C", second: "constant", third: 42, fourth: "A", again: "C" });
    });

    it("builds once per engine and is reused across transactions with new values", async () => {
      let builds = 0;
      const getAccount = queryTemplate((db, p: { key: string; currency: string }) => {
        builds++;
        return db
          .selectFrom("accounts")
          .select(["account_key", "balance_minor"])
          .where("account_key", "=", p.key)
          .where("currency", "=", p.currency);
      });
      const keys = [unique("ledger:a"), unique("ledger:b")];
      await engine.db
        .insertInto("accounts")
        .values(
          keys.map((k, i) => ({ account_key: k, currency: "KES", balance_minor: i + 1, updated_at: null })),
        )
        .execute();
      const first = await inTx((t) => getAccount.first(t, { key: keys[0]!, currency: "KES" }));
      const second = await inTx((t) => getAccount.first(t, { currency: "KES", key: keys[1]! }));
      const none = await inTx((t) => getAccount.first(t, { key: keys[1]!, currency: "EUR" }));
      expect([first?.balance_minor, second?.balance_minor, none]).toEqual([1, 2, undefined]);
      expect(builds).toBe(1);
    });

    it("round-trips every column type: text, bigint at the safe limits, integer, null", async () => {
      const insertAccount = queryTemplate(
        (
          db,
          row: { account_key: string; currency: string; balance_minor: number; updated_at: string | null },
        ) => db.insertInto("accounts").values(row),
      );
      const rows = [
        {
          account_key: unique("ledger:max"),
          currency: "KES",
          balance_minor: Number.MAX_SAFE_INTEGER,
          updated_at: null,
        },
        {
          account_key: unique("ledger:min"),
          currency: "KES",
          balance_minor: -Number.MAX_SAFE_INTEGER,
          updated_at: "t",
        },
        {
          account_key: unique("ledger:ünïcødé 'q'"),
          currency: "KES",
          balance_minor: 0,
          updated_at: "2026-01-01",
        },
      ];
      for (const row of rows) expect(await inTx((t) => insertAccount.affected(t, row))).toBe(1);
      const read = await engine.db
        .selectFrom("accounts")
        .selectAll()
        .where(
          "account_key",
          "in",
          rows.map((r) => r.account_key),
        )
        .execute();
      expect(new Set(read)).toEqual(new Set(rows));

      const claim = queryTemplate(
        (
          db,
          r: { tenantId: string; key: string; status: number | null; body: string | null; state: string },
        ) =>
          db
            .insertInto("idempotency_keys")
            .values({
              tenant_id: r.tenantId,
              key: r.key,
              request_hash: "h",
              state: r.state,
              response_status: r.status,
              response_body: r.body,
              locked_until: "l",
              created_at: "c",
            })
            .returning(["response_status", "response_body"]),
      );
      const tenantId = unique("tenant");
      const done = await inTx((t) =>
        claim.first(t, { tenantId, key: "k1", status: 201, body: "{}", state: "completed" }),
      );
      const open = await inTx((t) =>
        claim.first(t, { tenantId, key: "k2", status: null, body: null, state: "in_progress" }),
      );
      expect([done, open]).toEqual([
        { response_status: 201, response_body: "{}" },
        { response_status: null, response_body: null },
      ]);
    });

    it("compiles one query per shape of its arguments (IN lists, rows of a multi-row insert)", async () => {
      let builds = 0;
      const balances = queryTemplate((db, p: { keys: string[] }) => {
        builds++;
        return db
          .selectFrom("accounts")
          .select("account_key")
          .where("account_key", "in", p.keys)
          .orderBy("account_key");
      });
      const keys = [unique("ledger:s1"), unique("ledger:s2"), unique("ledger:s3")].sort();
      await engine.db
        .insertInto("accounts")
        .values(keys.map((k) => ({ account_key: k, currency: "KES", balance_minor: 0, updated_at: null })))
        .execute();
      const found = async (ks: string[]) =>
        (await inTx((t) => balances.rows(t, { keys: ks }))).map((r) => r.account_key);
      expect(await found([keys[0]!])).toEqual([keys[0]]);
      expect(await found(keys)).toEqual(keys);
      expect(await found([keys[2]!])).toEqual([keys[2]]);
      expect(await found([keys[1]!, keys[0]!, keys[2]!])).toEqual(keys);
      expect(builds).toBe(2);
    });

    it("refuses arguments that would change the SQL text", async () => {
      // Kysely itself refuses a placeholder as a literal; an argument the query leaves out is ours.
      const literal = queryTemplate((db, p: { x: string }) => db.selectNoFrom(sql.lit(p.x).as("x")));
      await expect(inTx((t) => literal.first(t, { x: "a" }))).rejects.toThrow();
      const unused = queryTemplate((db, p: { x: string; y: string }) =>
        db.selectNoFrom(sql<string>`${p.x}`.as("x")),
      );
      await expect(inTx((t) => unused.first(t, { x: "a", y: "b" }))).rejects.toThrow(
        /not bound as parameters: y/,
      );
      const optional = queryTemplate(
        (
          db,
          row: {
            account_key: string;
            currency: string;
            balance_minor: number;
            updated_at?: string | undefined;
          },
        ) => db.insertInto("accounts").values(row),
      );
      await expect(
        inTx((t) =>
          optional.execute(t, { account_key: "k", currency: "KES", balance_minor: 0, updated_at: undefined }),
        ),
      ).rejects.toThrow(/undefined/);
    });
  });
}

describe.runIf(baseUrl)("templates as prepared statements (postgres)", () => {
  let fresh: FreshPostgresDatabase;
  let db: Kysely<Database>;
  let admin: pg.Client;
  beforeAll(async () => {
    fresh = await createFreshPostgresDatabase(baseUrl!);
    // One connection, so every statement below runs on the client whose prepared statements we read.
    const pool = new pg.Pool({ connectionString: fresh.url, max: 1, types: exactIntegerTypes });
    pool.on("connect", prepareTemplates);
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    await admin.query(
      "create table probe (id integer primary key, label text); insert into probe values (1, 'one')",
    );
  });
  afterAll(async () => {
    await admin?.end();
    await db?.destroy();
    await fresh?.drop();
  });

  const target = () => ({ trx: db, dialect: "postgres" as const });
  const prepared = async () =>
    (
      await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements`.execute(db)
    ).rows;
  // A table outside the schema, so a migration-like change can be made under the template.
  const probe = queryTemplate((d, p: { id: number }) =>
    (d as unknown as Kysely<{ probe: { id: number; label: string } }>)
      .selectFrom("probe")
      .selectAll()
      .where("id", "=", p.id),
  );

  it("prepares a template's SQL once per connection under a stable name; other SQL stays unnamed", async () => {
    expect(await probe.rows(target(), { id: 1 })).toEqual([{ id: 1, label: "one" }]);
    expect(await probe.rows(target(), { id: 2 })).toEqual([]);
    const sqlText = `select * from "probe" where "id" = $1`;
    const name = preparedStatementName(sqlText);
    expect(name).toMatch(/^wallet_q\d+$/);
    const statements = await prepared();
    expect(statements.filter((s) => s.statement === sqlText).map((s) => s.name)).toEqual([`${name}_0`]);
    await sql`select 1 as one`.execute(db);
    expect((await prepared()).map((s) => s.statement)).not.toContain("select 1 as one");
  });

  it("prepares again under a new name once a table changed under a prepared SELECT *", async () => {
    await probe.rows(target(), { id: 1 });
    await admin.query("alter table probe add column extra text default 'x'");
    // Postgres refuses the stale plan once (0A000)...
    const stale = await probe.rows(target(), { id: 1 }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: "0A000" });
    // A retryable 503 for the request that met it, not a 500.
    expect(mapStoreError(stale)).toBeInstanceOf(StoreUnavailableError);
    // ...and the next call prepares the new shape.
    expect(await probe.rows(target(), { id: 1 })).toEqual([{ id: 1, label: "one", extra: "x" }]);
    const name = preparedStatementName(`select * from "probe" where "id" = $1`);
    expect((await prepared()).map((s) => s.name)).toContain(`${name}_1`);
  });
});
