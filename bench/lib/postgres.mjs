import { execFile } from "node:child_process";

const ADMIN_TIMEOUT_MS = 30_000;
const INIT_TIMEOUT_MS = 240_000;

/** The Postgres the bench may use: BENCH_POSTGRES_URL, else the tests' URL, else the local default. */
export const benchPostgresUrl = () =>
  process.env.BENCH_POSTGRES_URL ||
  process.env.WALLET_TEST_POSTGRES_URL ||
  "postgres://postgres@127.0.0.1:5432/postgres";

function run(cmd, args, timeoutMs, env = {}) {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${cmd} failed: ${String(stderr || error.message).split("\n")[0]}`));
        else resolve(`${stdout}\n${stderr}`);
      },
    );
  });
}

/** libpq's environment for a URL, so no password ever appears on a command line. */
function libpqEnv(url, database) {
  const u = new URL(url);
  return {
    PGHOST: u.hostname,
    PGPORT: u.port || "5432",
    PGUSER: decodeURIComponent(u.username || "postgres"),
    ...(u.password ? { PGPASSWORD: decodeURIComponent(u.password) } : {}),
    PGDATABASE: database ?? (u.pathname.slice(1) || "postgres"),
    PGCONNECT_TIMEOUT: "5",
  };
}

/** The URL of another database on the same server. */
export function withDatabase(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Null when Postgres answers and psql + pgbench exist; otherwise why the Postgres rows are skipped. */
export async function postgresUnavailable(url) {
  for (const tool of ["psql", "pgbench"]) {
    try {
      await run(tool, ["--version"], ADMIN_TIMEOUT_MS);
    } catch {
      return `${tool} is not installed`;
    }
  }
  try {
    await run("psql", ["-X", "-q", "-c", "select 1"], ADMIN_TIMEOUT_MS, libpqEnv(url));
  } catch {
    return "Postgres does not answer at the configured URL";
  }
  return null;
}

/** Creates a scratch database (dropped by `dropDatabase`); names are generated, never user input. */
export async function createDatabase(url, name) {
  await run("psql", ["-X", "-q", "-c", `create database "${name}"`], ADMIN_TIMEOUT_MS, libpqEnv(url));
}

export async function dropDatabase(url, name) {
  await run(
    "psql",
    ["-X", "-q", "-c", `drop database if exists "${name}" with (force)`],
    ADMIN_TIMEOUT_MS,
    libpqEnv(url),
  );
}

/** `pgbench -i` at `scale` into `database` (which must exist). */
export async function pgbenchInit(url, database, scale) {
  await run("pgbench", ["-i", "-q", "-s", String(scale)], INIT_TIMEOUT_MS, libpqEnv(url, database));
}

/**
 * One timed tpcb-like run (pgbench's default script, simple protocol, default durability).
 * `-n`: no vacuum between runs; the runs are short and interleaved with the ledger's.
 */
export async function pgbenchRun(url, database, { clients, seconds }) {
  const threads = Math.max(1, Math.min(clients, 2));
  const out = await run(
    "pgbench",
    ["-n", "-c", String(clients), "-j", String(threads), "-T", String(seconds), "-r"],
    (seconds + 60) * 1000,
    libpqEnv(url, database),
  );
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(out)?.[1] ?? Number.NaN);
  const latencyMs = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? Number.NaN);
  const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
  if (!Number.isFinite(tps)) throw new Error(`pgbench printed no tps: ${out.slice(0, 500)}`);
  // pgbench reports a mean latency, not percentiles (that would need a per-transaction log).
  return {
    perSecond: tps,
    meanMs: latencyMs,
    p50Ms: Number.NaN,
    p99Ms: Number.NaN,
    ok: Math.round(tps * seconds),
    failed,
  };
}
