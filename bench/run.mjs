#!/usr/bin/env node
// `pnpm bench`: builds the packages, then runs every scenario beside its baseline in interleaved
// rounds (loopback only), prints a table and writes bench/results/latest.json. Bounded: the whole
// run stops itself within BENCH_BUDGET_SECONDS (default 570 s, under the 10-minute contract).
// See docs/performance.md for what each figure means.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { BENCH_CURRENCY, BENCH_KID } from "./lib/bench-tenant.mjs";
import { startChild } from "./lib/child.mjs";
import { runLoad } from "./lib/load-generator.mjs";
import {
  benchPostgresUrl,
  createDatabase,
  dropDatabase,
  pgbenchInit,
  pgbenchRun,
  postgresUnavailable,
  withDatabase,
} from "./lib/postgres.mjs";
import { repoRoot } from "./lib/resolve.mjs";
import { benchKeyPair, createSigner, creditRequests, TENANT_API, uniqueGets } from "./lib/signing.mjs";
import { median } from "./lib/stats.mjs";

const num = (name, fallback) => {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return n;
};

const settings = {
  /** Measured seconds per scenario per round (after a short warm-up). */
  seconds: num("BENCH_SECONDS", 4),
  warmupMs: num("BENCH_WARMUP_MS", 500),
  rounds: num("BENCH_ROUNDS", 3),
  /** Concurrent keep-alive connections of the load generator for the SQLite and baseline runs. */
  connections: num("BENCH_CONNECTIONS", 32),
  /** Postgres: pool size of the ledger, client connections of the load and pgbench clients. */
  pgConnections: num("BENCH_PG_CONNECTIONS", 16),
  /** pgbench scale factor: one branch row per client, as pgbench's documentation advises. */
  pgbenchScale: num("BENCH_PGBENCH_SCALE", 16),
  /** Group-commit writers of the Postgres variant that has it on. */
  pgWriters: num("BENCH_PG_WRITERS", 4),
  wallets: num("BENCH_WALLETS", 200),
  coreWallets: num("BENCH_CORE_WALLETS", 100),
  statementRows: num("BENCH_STATEMENT_ROWS", 1_000_000),
  /** One connection: the figure is a p50 latency, so requests must not queue behind each other. */
  statementConnections: num("BENCH_STATEMENT_CONNECTIONS", 1),
  budgetSeconds: num("BENCH_BUDGET_SECONDS", 570),
  groups: (process.env.BENCH_ONLY || "core,http,postgres,statement").split(",").map((s) => s.trim()),
  build: process.env.BENCH_SKIP_BUILD !== "1",
  /**
   * Another checkout of the repository (built, with node_modules) whose ledger runs beside this
   * one in the HTTP rounds, group commit off: before/after figures from one run (docs/performance.md).
   */
  compareTree: process.env.BENCH_COMPARE_TREE || null,
  /** Extra node flags for the ledger servers, e.g. BENCH_SERVER_NODE_OPTIONS=--cpu-prof. */
  serverExecArgv: (process.env.BENCH_SERVER_NODE_OPTIONS || "").split(" ").filter(Boolean),
};

/** The issue's targets: ratios hold across machines, absolute figures do not. */
const targets = {
  "core.memory.credits": { on: "value", op: ">=", bound: 100_000 },
  "http.sqlite.credit.vs_signed_ceiling": { on: "ratio", op: ">=", bound: 0.7 },
  "http.sqlite.hot_wallet.vs_many_wallets": { on: "ratio", op: ">=", bound: 0.8 },
  "http.postgres.credit.vs_pgbench_tpcb": { on: "ratio", op: ">=", bound: 1.0 },
  "http.sqlite.statement.page5000_vs_page1": { on: "ratio", op: "<=", bound: 3.0 },
  "server.rss_mb_after_load": { on: "value", op: "<=", bound: 250 },
};

const startedAt = Date.now();
const deadline = startedAt + settings.budgetSeconds * 1000;
const remainingS = () => (deadline - Date.now()) / 1000;
const log = (msg) =>
  process.stderr.write(`[bench ${((Date.now() - startedAt) / 1000).toFixed(0).padStart(3)}s] ${msg}\n`);

const children = new Set();
const cleanups = [];
async function child(script, options, extra) {
  const c = await startChild(script, options, extra);
  children.add(c);
  return c;
}
async function stopChild(c) {
  children.delete(c);
  await c.stop().catch(() => {});
}
async function shutdown() {
  await Promise.all([...children].map(stopChild));
  for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch(() => {});
}

// The hard stop: whatever hangs, the run ends (and says so) shortly after its budget.
const watchdog = setTimeout(
  () => {
    log("time budget exhausted: stopping every server and exiting");
    for (const c of children) c.stop();
    process.exit(2);
  },
  settings.budgetSeconds * 1000 + 20_000,
);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.once(signal, () => {
    log(`${signal}: stopping`);
    void shutdown().finally(() => process.exit(130));
  });
}

const rows = [];
const details = {};
const notices = [];

/** Median figures of one series of per-round results. */
function summary(results) {
  return {
    perSecond: median(results.map((r) => r.perSecond)),
    p50Ms: median(results.map((r) => r.p50Ms)),
    p99Ms: median(results.map((r) => r.p99Ms)),
    failed: results.reduce((n, r) => n + (r.failed ?? 0), 0),
    failures: results.flatMap((r) => r.failures ?? []).slice(0, 3),
    rounds: results.map((r) => ({
      perSecond: r.perSecond,
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      ok: r.ok,
      failed: r.failed,
    })),
  };
}

/** A throughput row plus its two latency rows, each against the same baseline. */
function addThroughput(name, unit, s, baselineName, b) {
  const ratio = (x, y) => (b && Number.isFinite(x) && Number.isFinite(y) && y > 0 ? x / y : null);
  rows.push({
    name,
    value: s.perSecond,
    unit,
    baseline: baselineName,
    baselineValue: b ? b.perSecond : null,
    ratio: ratio(s.perSecond, b?.perSecond),
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
  });
  for (const q of ["p50", "p99"]) {
    const key = `${q}Ms`;
    if (!Number.isFinite(s[key])) continue;
    const bv = b && Number.isFinite(b[key]) ? b[key] : null;
    rows.push({
      name: `${name}.latency_${q}`,
      value: s[key],
      unit: "ms",
      baseline: bv === null ? null : `${baselineName}.latency_${q}`,
      baselineValue: bv,
      ratio: bv === null ? null : ratio(s[key], bv),
    });
  }
  if (s.failed > 0) notices.push(`${name}: ${s.failed} requests failed, e.g. ${s.failures[0] ?? "?"}`);
}

/** Runs `runners` (name -> () => result) `rounds` times, interleaved: A B C, A B C, ... */
async function interleaved(label, runners) {
  const results = Object.fromEntries(Object.keys(runners).map((k) => [k, []]));
  for (let round = 1; round <= settings.rounds; round++) {
    for (const [name, run] of Object.entries(runners)) {
      if (remainingS() < settings.seconds + 5) {
        notices.push(`${label}: stopped after round ${round - 1} (time budget)`);
        return results;
      }
      const r = await run(round);
      results[name].push(r);
      log(
        `${label} round ${round}: ${name} ${r.perSecond.toFixed(0)}/s p50 ${fmt(r.p50Ms)} ms p99 ${fmt(r.p99Ms)} ms${r.failed ? ` (${r.failed} failed)` : ""}`,
      );
    }
  }
  return results;
}

const fmt = (v, digits = 2) =>
  v === null || v === undefined || !Number.isFinite(v) ? "-" : v.toFixed(digits);

const load = (origin, makeRequest, expectStatus, connections = settings.connections) =>
  runLoad({
    origin,
    connections,
    durationMs: settings.seconds * 1000,
    warmupMs: settings.warmupMs,
    expectStatus,
    makeRequest,
  });

// ---------------------------------------------------------------------------------------------

const keys = benchKeyPair();
const apiKey = `wk_bench_${randomBytes(18).toString("base64url")}`;
const signer = createSigner({ apiKey, kid: BENCH_KID, privateKeyPem: keys.privateKeyPem });
const tag = (what, round) => `${what}-${round}-${randomBytes(4).toString("hex")}`;
const workDir = mkdtempSync(join(tmpdir(), "wallet-bench-"));
cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
const rssMb = {};

function ledgerOptions(databaseUrl, extra = {}) {
  return { databaseUrl, apiKey, publicKeyPem: keys.publicKeyPem, wallets: settings.wallets, ...extra };
}

async function coreGroup() {
  log("core: in-process credits on the memory adapters");
  const c = await child("scenarios/core-memory.mjs", {});
  const results = await interleaved("core", {
    memory: (round) =>
      c.call("run", {
        durationMs: settings.seconds * 1000,
        wallets: settings.coreWallets,
        runTag: tag("core", round),
      }),
  });
  await stopChild(c);
  const s = summary(results.memory);
  details.core = s;
  addThroughput("core.memory.credits", "credits/s", s, null, null);
}

async function httpGroup() {
  log("http: starting the baselines and the ledger on SQLite");
  const bare = await child("servers/baseline-server.mjs", { kind: "bare" });
  const signed = await child("servers/baseline-server.mjs", {
    kind: "signed",
    apiKey,
    kid: BENCH_KID,
    publicKeyPem: keys.publicKeyPem,
  });
  const raw = await child("servers/raw-sqlite.mjs", {
    filename: join(workDir, "raw.db"),
    wallets: settings.wallets,
  });
  const ledger = await child(
    "servers/ledger-server.mjs",
    ledgerOptions(`sqlite:${join(workDir, "ledger.db")}`),
    { execArgv: settings.serverExecArgv },
  );
  // The same server with group commit switched off: one transaction per unit of work.
  const ledgerOneByOne = await child(
    "servers/ledger-server.mjs",
    ledgerOptions(`sqlite:${join(workDir, "ledger-no-group-commit.db")}`, {
      database: { groupCommit: { enabled: false } },
    }),
  );
  const before =
    settings.compareTree === null
      ? null
      : await child(
          join(settings.compareTree, "bench", "servers", "ledger-server.mjs"),
          // Its own defaults: whatever the other checkout would run in production.
          ledgerOptions(`sqlite:${join(workDir, "ledger-before.db")}`),
        );
  const walletUids = ledger.info.walletUids;
  const credits = (origin, uids, round, what) =>
    load(
      origin,
      creditRequests({ signer, walletUids: uids, currency: BENCH_CURRENCY, runTag: tag(what, round) }),
      201,
    );

  const results = await interleaved("http", {
    bare: (round) => credits(bare.info.url, walletUids, round, "bare"),
    signed: (round) => credits(signed.info.url, walletUids, round, "signed"),
    sqliteMany: (round) => credits(ledger.info.url, walletUids, round, "many"),
    sqliteHot: (round) => credits(ledger.info.url, walletUids.slice(0, 1), round, "hot"),
    sqliteNoGroupCommit: (round) =>
      credits(ledgerOneByOne.info.url, ledgerOneByOne.info.walletUids, round, "nogc"),
    rawSqlite: (round) => raw.call("run", { durationMs: settings.seconds * 1000, runTag: tag("raw", round) }),
    ...(before === null
      ? {}
      : { sqliteBefore: (round) => credits(before.info.url, before.info.walletUids, round, "before") }),
  });
  rssMb.sqlite = (await ledger.call("rss")).rssMb;
  await Promise.all([bare, signed, raw, ledger, ledgerOneByOne, ...(before ? [before] : [])].map(stopChild));

  const s = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, summary(v)]));
  details.http = s;
  addThroughput("baseline.hono.bare", "req/s", s.bare, null, null);
  addThroughput("baseline.signed_ceiling", "req/s", s.signed, "baseline.hono.bare", s.bare);
  addThroughput("baseline.sqlite.raw_credit_tx", "tx/s", s.rawSqlite, null, null);
  addThroughput(
    "http.sqlite.credit.vs_signed_ceiling",
    "req/s",
    s.sqliteMany,
    "baseline.signed_ceiling",
    s.signed,
  );
  addThroughput(
    "http.sqlite.credit.vs_raw_sqlite",
    "req/s",
    s.sqliteMany,
    "baseline.sqlite.raw_credit_tx",
    s.rawSqlite,
  );
  addThroughput(
    "http.sqlite.hot_wallet.vs_many_wallets",
    "req/s",
    s.sqliteHot,
    "http.sqlite.credit",
    s.sqliteMany,
  );
  if (s.sqliteBefore) {
    addThroughput(
      "compare.before.http.sqlite.credit.vs_signed_ceiling",
      "req/s",
      s.sqliteBefore,
      "baseline.signed_ceiling",
      s.signed,
    );
    addThroughput(
      "http.sqlite.credit.after_vs_before",
      "req/s",
      s.sqliteMany,
      "compare.before.http.sqlite.credit",
      s.sqliteBefore,
    );
  }
  addThroughput(
    "http.sqlite.credit.group_commit_on_vs_off",
    "req/s",
    s.sqliteMany,
    "http.sqlite.credit.group_commit_off",
    s.sqliteNoGroupCommit,
  );
}

async function postgresGroup() {
  const url = benchPostgresUrl();
  const why = await postgresUnavailable(url);
  if (why !== null) {
    notices.push(`postgres: skipped (${why}); set BENCH_POSTGRES_URL to run it`);
    log(`postgres: skipped (${why})`);
    return;
  }
  const suffix = `${process.pid}_${randomBytes(3).toString("hex")}`;
  const pgbenchDb = `wallet_bench_pgbench_${suffix}`;
  const ledgerDb = `wallet_bench_ledger_${suffix}`;
  await createDatabase(url, pgbenchDb);
  cleanups.push(() => dropDatabase(url, pgbenchDb));
  await createDatabase(url, ledgerDb);
  cleanups.push(() => dropDatabase(url, ledgerDb));
  log(`postgres: pgbench -i -s ${settings.pgbenchScale}`);
  await pgbenchInit(url, pgbenchDb, settings.pgbenchScale);
  const ledgerGroupDb = `wallet_bench_ledger_gc_${suffix}`;
  await createDatabase(url, ledgerGroupDb);
  cleanups.push(() => dropDatabase(url, ledgerGroupDb));
  const ledgerBeforeDb = `wallet_bench_ledger_before_${suffix}`;
  if (settings.compareTree !== null) {
    await createDatabase(url, ledgerBeforeDb);
    cleanups.push(() => dropDatabase(url, ledgerBeforeDb));
  }
  const ledger = await child(
    "servers/ledger-server.mjs",
    ledgerOptions(withDatabase(url, ledgerDb), { database: { poolSize: settings.pgConnections } }),
    { execArgv: settings.serverExecArgv },
  );
  const ledgerGrouped = await child(
    "servers/ledger-server.mjs",
    ledgerOptions(withDatabase(url, ledgerGroupDb), {
      database: {
        poolSize: settings.pgConnections,
        groupCommit: { enabled: true, writers: settings.pgWriters },
      },
    }),
  );
  const before =
    settings.compareTree === null
      ? null
      : await child(
          join(settings.compareTree, "bench", "servers", "ledger-server.mjs"),
          ledgerOptions(withDatabase(url, ledgerBeforeDb), {
            database: { poolSize: settings.pgConnections },
          }),
        );
  const credits = (server, round, what) =>
    load(
      server.info.url,
      creditRequests({
        signer,
        walletUids: server.info.walletUids,
        currency: BENCH_CURRENCY,
        runTag: tag(what, round),
      }),
      201,
      settings.pgConnections,
    );
  const results = await interleaved("postgres", {
    pgbench: () => pgbenchRun(url, pgbenchDb, { clients: settings.pgConnections, seconds: settings.seconds }),
    ledger: (round) => credits(ledger, round, "pg"),
    ledgerGroupCommit: (round) => credits(ledgerGrouped, round, "pggc"),
    ...(before ? { ledgerBefore: (round) => credits(before, round, "pgbefore") } : {}),
  });
  rssMb.postgres = (await ledger.call("rss")).rssMb;
  await Promise.all([ledger, ledgerGrouped, ...(before ? [before] : [])].map(stopChild));
  const s = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, summary(v)]));
  details.postgres = s;
  addThroughput("baseline.pgbench.tpcb", "tx/s", s.pgbench, null, null);
  addThroughput(
    "http.postgres.credit.vs_pgbench_tpcb",
    "req/s",
    s.ledger,
    "baseline.pgbench.tpcb",
    s.pgbench,
  );
  addThroughput(
    "http.postgres.credit.group_commit.vs_pgbench_tpcb",
    "req/s",
    s.ledgerGroupCommit,
    "baseline.pgbench.tpcb",
    s.pgbench,
  );
  if (s.ledgerBefore) {
    addThroughput(
      "compare.before.http.postgres.credit.vs_pgbench_tpcb",
      "req/s",
      s.ledgerBefore,
      "baseline.pgbench.tpcb",
      s.pgbench,
    );
    addThroughput(
      "http.postgres.credit.after_vs_before",
      "req/s",
      s.ledger,
      "compare.before.http.postgres.credit",
      s.ledgerBefore,
    );
  }
}

async function statementGroup() {
  log(`statement: seeding ${settings.statementRows} operations into one wallet`);
  const ledger = await child(
    "servers/ledger-server.mjs",
    ledgerOptions(`sqlite:${join(workDir, "statement.db")}`, {
      wallets: 1,
      seedOperations: settings.statementRows,
    }),
    { execArgv: settings.serverExecArgv },
  );
  log(`statement: seeded in ${ledger.info.seeded.seconds.toFixed(1)} s`);
  const walletUid = ledger.info.walletUids[0];
  const path = `${TENANT_API}/wallets/${walletUid}/transactions`;
  // Same answer under several spellings of the query (the defaults written out), so that every
  // request carries a signature the replay guard has not seen.
  const defaults = { limit: "20", includePending: "false", sortBy: "createdAt:DESC,id:DESC" };
  const pages = {
    1: uniqueGets({ signer, path, fixed: { page: "1" }, defaults }),
    5000: uniqueGets({ signer, path, fixed: { page: "5000" }, defaults }),
  };
  const results = await interleaved("statement", {
    page1: () => load(ledger.info.url, pages[1], 200, settings.statementConnections),
    page5000: () => load(ledger.info.url, pages[5000], 200, settings.statementConnections),
  });
  rssMb.statement = (await ledger.call("rss")).rssMb;
  await stopChild(ledger);
  const p1 = summary(results.page1);
  const p5000 = summary(results.page5000);
  details.statement = { page1: p1, page5000: p5000, seeded: ledger.info.seeded };
  addThroughput("http.sqlite.statement.page1", "req/s", p1, null, null);
  addThroughput("http.sqlite.statement.page5000", "req/s", p5000, "http.sqlite.statement.page1", p1);
  rows.push({
    name: "http.sqlite.statement.page5000_vs_page1",
    value: p5000.p50Ms,
    unit: "ms p50",
    baseline: "http.sqlite.statement.page1.latency_p50",
    baselineValue: p1.p50Ms,
    ratio: p5000.p50Ms / p1.p50Ms,
  });
}

function printTable() {
  const header = [
    "name",
    "value",
    "unit",
    "p50 ms",
    "p99 ms",
    "baseline",
    "baseline value",
    "ratio",
    "target",
  ];
  const lines = rows
    .filter((r) => !r.name.includes(".latency_"))
    .map((r) => {
      const t = targets[r.name];
      const measured = t ? (t.on === "ratio" ? r.ratio : r.value) : null;
      const met = t && measured !== null ? (t.op === ">=" ? measured >= t.bound : measured <= t.bound) : null;
      return [
        r.name,
        fmt(r.value, r.unit === "MB" || r.unit.startsWith("ms") ? 2 : 0),
        r.unit,
        fmt(r.p50Ms),
        fmt(r.p99Ms),
        r.baseline ?? "",
        r.baselineValue === null ? "" : fmt(r.baselineValue, r.unit.startsWith("ms") ? 2 : 0),
        r.ratio === null ? "" : fmt(r.ratio, 3),
        t ? `${t.on} ${t.op} ${t.bound} ${met ? "met" : "NOT met"}` : "",
      ];
    });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const show = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(" | ")} |`;
  process.stdout.write(`${show(header)}\n${show(widths.map((w) => "-".repeat(w)))}\n`);
  for (const l of lines) process.stdout.write(`${show(l)}\n`);
  for (const n of notices) process.stdout.write(`note: ${n}\n`);
}

async function main() {
  if (settings.build) {
    log("building the packages (pnpm build)");
    const built = spawnSync("pnpm", ["build"], {
      cwd: repoRoot,
      stdio: ["ignore", "inherit", "inherit"],
      timeout: 300_000,
    });
    if (built.status !== 0) throw new Error("pnpm build failed; the bench runs the built packages");
  }
  const groups = { core: coreGroup, http: httpGroup, postgres: postgresGroup, statement: statementGroup };
  for (const name of settings.groups) {
    const group = groups[name];
    if (group === undefined)
      throw new Error(`BENCH_ONLY: unknown group ${name} (core, http, postgres, statement)`);
    if (remainingS() < 30) {
      notices.push(`${name}: skipped (time budget)`);
      continue;
    }
    try {
      await group();
    } catch (e) {
      notices.push(`${name}: failed: ${String(e?.message ?? e).split("\n")[0]}`);
      log(`${name} failed: ${e?.stack ?? e}`);
      await Promise.all([...children].map(stopChild));
    }
  }
  const rss = Object.values(rssMb);
  if (rss.length > 0) {
    rows.push({
      name: "server.rss_mb_after_load",
      value: Math.max(...rss),
      unit: "MB",
      baseline: null,
      baselineValue: null,
      ratio: null,
    });
  }
  printTable();
  const dir = join(repoRoot, "bench", "results");
  mkdirSync(dir, { recursive: true });
  const latest = rows.map(({ name, value, unit, baseline, baselineValue, ratio }) => ({
    name,
    value,
    unit,
    baseline,
    baselineValue,
    ratio,
  }));
  writeFileSync(join(dir, "latest.json"), `${JSON.stringify(latest, null, 2)}\n`);
  const run = {
    at: new Date(startedAt).toISOString(),
    node: process.version,
    cpus: cpus().length,
    loadavgAtEnd: loadavg(),
    settings,
    rssMb,
    notices,
    details,
  };
  writeFileSync(join(dir, "latest-details.json"), `${JSON.stringify(run, null, 2)}\n`);
  log(
    `wrote bench/results/latest.json (${latest.length} rows) in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
  );
}

try {
  await main();
} catch (e) {
  process.stderr.write(`bench: ${e?.stack ?? e}\n`);
  process.exitCode = 1;
} finally {
  await shutdown();
  clearTimeout(watchdog);
}
