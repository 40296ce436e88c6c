/** 64 MiB of page cache instead of SQLite's 2 MiB (docs/performance.md, "SQLite page cache"). */
export const PAGE_CACHE_KIB = 64 * 1024;

/**
 * When a commit reaches the disk (SQLite's `synchronous`, in WAL mode):
 * - `full`: every commit syncs the WAL before it returns, so an acknowledged write survives a
 *   power loss or an operating-system crash, as on Postgres with its default durability. With
 *   group commit that is one sync per batch.
 * - `normal`: commits return once written to the operating system; a crash of the process loses
 *   nothing, but a power loss or OS crash may undo the last commits (never corrupt the file).
 */
export type SqliteSynchronous = "full" | "normal";

export interface ConnectionSettings {
  inMemory: boolean;
  busyTimeoutMs: number;
  synchronous: SqliteSynchronous;
}

/**
 * The settings every connection of the SQLite store runs with (they are per connection, not
 * stored in the file).
 */
export function applyConnectionPragmas(
  // A better-sqlite3 connection, by the one method used: the package's declarations (which
  // export SqliteSynchronous) then need no @types/better-sqlite3 in a consumer's project.
  raw: { pragma(source: string): unknown },
  { inMemory, busyTimeoutMs, synchronous }: ConnectionSettings,
): void {
  raw.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
  if (!inMemory) raw.pragma("journal_mode = WAL");
  raw.pragma(synchronous === "normal" ? "synchronous = NORMAL" : "synchronous = FULL");
  // The operations table carries eight indexes, and a credit touches pages of most of them.
  raw.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  // Every unit of work runs in a savepoint (group commit), and in WAL mode SQLite keeps the
  // original of each page a savepoint modifies in a sub-journal, which spills to a temporary file
  // past 64 KiB: a credit touches ~30 pages, so each opened a temp file and wrote ~36 pages to it
  // (strace). In memory instead: x1.2-1.3 credits/s over HTTP (docs/performance.md, fourth pass).
  // It also keeps sorts and temporary b-trees in memory; the store's queries walk indexes.
  raw.pragma("temp_store = MEMORY");
  raw.pragma("foreign_keys = ON");
}
