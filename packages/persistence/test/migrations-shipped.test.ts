import { Migrator, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../src/index.js";
import { inCodeMigrationProvider, migrationsFor } from "../src/migrations/migration-provider.js";
import { type Engine, migrationEngines } from "./support/migration-engines.js";

/**
 * Every migration name that ever reached a database, in order. Kysely refuses to migrate a
 * database that ran a migration the list no longer has ("previously executed migration ... is
 * missing"), so a shipped name is never removed or renamed: append a migration that undoes it.
 */
const SHIPPED = [
  "0001-initial",
  "0002-wallet-day-totals",
  "0003-wallet-day-totals-by-funds-moved",
  "0004-api-key-revocation",
  "0005-suspense-items-created",
  "0006-operations-in-flight",
  "0007-drop-operations-in-flight",
  "0008-processing-payouts",
];

describe("the shipped migrations", () => {
  it.each(["sqlite", "postgres"] as const)("keep their names and their order on %s", (dialect) => {
    expect(Object.keys(migrationsFor(dialect)).slice(0, SHIPPED.length)).toEqual(SHIPPED);
  });
});

describe.each(migrationEngines())(
  "a database that ran 0006 (shipped, then removed for half an hour) on %s",
  (dialect, open) => {
    let engine: Engine;
    let store: Store | undefined;
    beforeAll(async () => {
      engine = await open();
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      await engine?.drop();
    });

    const indexNames = async () => {
      const db = engine.kysely();
      try {
        const rows =
          dialect === "sqlite"
            ? await sql<{ name: string }>`select name from sqlite_master where type = 'index'`.execute(db)
            : await sql<{
                name: string;
              }>`select indexname as name from pg_indexes where schemaname = current_schema()`.execute(db);
        return rows.rows.map((r) => r.name);
      } finally {
        await db.destroy();
      }
    };

    it("starts, migrates to the end and loses 0006's index", async () => {
      const db = engine.kysely();
      try {
        const { error } = await new Migrator({ db, provider: inCodeMigrationProvider(dialect) }).migrateTo(
          "0005-suspense-items-created",
        );
        if (error) throw error;
        // What the build of 2026-11-24 08:09 (919af14) did as 0006.
        await db.schema
          .createIndex("operations_in_flight")
          .on("operations")
          .column("uid")
          .where(sql<boolean>`state in ('pending_provider', 'processing', 'held')`)
          .execute();
        const ranAt = new Date().toISOString();
        await sql`insert into kysely_migration (name, timestamp) values ('0006-operations-in-flight', ${ranAt})`.execute(
          db,
        );
      } finally {
        await db.destroy();
      }
      expect(await indexNames()).toContain("operations_in_flight");

      store = engine.openStore();
      await store.migrate();
      expect(await indexNames()).not.toContain("operations_in_flight");
      const check = engine.kysely();
      try {
        const ran = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          check,
        );
        expect(ran.rows.map((r) => r.name)).toEqual(Object.keys(migrationsFor(dialect)));
      } finally {
        await check.destroy();
      }
    });
  },
);
