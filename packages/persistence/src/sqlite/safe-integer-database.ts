import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { toExactNumber } from "../shared/exact-integer.js";

/** Prepared statements kept per connection; Kysely prepares on every query otherwise. */
const STATEMENT_CACHE_MAX = 500;

/**
 * Wraps a better-sqlite3 connection opened with `safeIntegers(true)` for Kysely so that 64-bit
 * integers are exact both ways:
 * - integer parameters are bound as BigInt (better-sqlite3 binds a plain number as REAL, which
 *   would turn `balance_minor + ?` into floating-point arithmetic inside SQLite);
 * - integers read back (BigInt) become numbers only when they are safe integers, else the read
 *   throws.
 */
export function safeIntegerDatabase(raw: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  const prepared = (sql: string): BetterSqlite3.Statement => {
    const hit = cache.get(sql);
    if (hit) return hit;
    const stmt = raw.prepare(sql);
    if (cache.size >= STATEMENT_CACHE_MAX) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(sql, stmt);
    return stmt;
  };
  return {
    close: () => {
      cache.clear();
      raw.close();
    },
    prepare(sql: string): SqliteStatement {
      const stmt = prepared(sql);
      return {
        reader: stmt.reader,
        all: (params) => stmt.all(toSqliteParams(params)).map(toExactRow),
        run: (params) => stmt.run(toSqliteParams(params)),
        iterate: function* (params) {
          for (const row of stmt.iterate(toSqliteParams(params))) yield toExactRow(row);
        },
      };
    },
  };
}

function toSqliteParams(params: ReadonlyArray<unknown>): unknown[] {
  return params.map((p) => (typeof p === "number" && Number.isInteger(p) ? BigInt(p) : p));
}

function toExactRow(row: unknown): unknown {
  if (typeof row !== "object" || row === null) return row;
  const record = row as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === "bigint") record[k] = toExactNumber(v);
  }
  return record;
}
