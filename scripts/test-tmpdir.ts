import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * vitest global setup: the run's scratch files (SQLite databases, demo directories, keys) go to one
 * directory of its own, removed at the end, instead of dozens of `wallet-*` directories left in
 * the system's temporary directory. Workers and the servers the tests spawn inherit `TMPDIR`, and
 * `os.tmpdir()` reads it. `WALLET_TEST_KEEP_TMP=1` keeps it (its path is printed) to look into a
 * failure.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "wallet-test-run-"));
  // Others may pass through (not list): a test runs a private Postgres as the postgres user in a
  // directory of its own below this one.
  chmodSync(dir, 0o711);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    if (process.env.WALLET_TEST_KEEP_TMP === "1") console.log(`\nTest scratch files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
