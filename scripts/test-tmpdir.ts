import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's scratch directory; `scripts/test-tmpdir-worker.ts` makes it each worker's TMPDIR. */
    scratchDir: string;
  }
}

/**
 * vitest global setup: the run's scratch files (SQLite databases, demo directories, keys) go to one
 * directory of its own, removed at the end, instead of dozens of `wallet-*` directories left in
 * the system's temporary directory. Each test worker points `TMPDIR` at it before its tests run
 * (`os.tmpdir()` reads it, and the processes the tests spawn inherit it). `WALLET_TEST_KEEP_TMP=1`
 * keeps it (its path is printed) to look into a failure.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "wallet-test-run-"));
  // Others may pass through (not list): a test runs a private Postgres as the postgres user in a
  // directory of its own below this one.
  chmodSync(dir, 0o711);
  project.provide("scratchDir", dir);
  return () => {
    if (process.env.WALLET_TEST_KEEP_TMP === "1") console.log(`\nTest scratch files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  };
}
