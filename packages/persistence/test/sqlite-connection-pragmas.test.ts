import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyConnectionPragmas, PAGE_CACHE_KIB } from "../src/sqlite/connection-pragmas.js";

describe("SQLite connection settings", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "wallet-pragmas-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const settings = (raw: BetterSqlite3.Database) =>
    Object.fromEntries(
      ["journal_mode", "synchronous", "cache_size", "temp_store", "foreign_keys", "busy_timeout"].map(
        (name) => [name, raw.pragma(name, { simple: true })],
      ),
    );

  it("a file connection: WAL, every commit synced, the large cache, temporary data in memory", () => {
    const raw = new BetterSqlite3(join(dir, "w.db"));
    try {
      const before = settings(raw);
      applyConnectionPragmas(raw, { inMemory: false, busyTimeoutMs: 1234.7, synchronous: "full" });
      expect(before.temp_store).toBe(0); // SQLite's default: a file past the spill threshold
      expect(settings(raw)).toEqual({
        journal_mode: "wal",
        synchronous: 2, // FULL
        cache_size: -PAGE_CACHE_KIB,
        temp_store: 2, // MEMORY
        foreign_keys: 1,
        busy_timeout: 1234,
      });
    } finally {
      raw.close();
    }
  });

  it("synchronous normal, when asked for", () => {
    const raw = new BetterSqlite3(join(dir, "w.db"));
    try {
      applyConnectionPragmas(raw, { inMemory: false, busyTimeoutMs: 0, synchronous: "normal" });
      expect(settings(raw)).toMatchObject({ journal_mode: "wal", synchronous: 1 });
    } finally {
      raw.close();
    }
  });

  it("an in-memory database keeps its journal mode; a negative timeout becomes 0", () => {
    const raw = new BetterSqlite3(":memory:");
    try {
      applyConnectionPragmas(raw, { inMemory: true, busyTimeoutMs: -5, synchronous: "full" });
      expect(settings(raw)).toMatchObject({ journal_mode: "memory", temp_store: 2, busy_timeout: 0 });
    } finally {
      raw.close();
    }
  });
});
