import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createFreshPostgresDatabase, postgresTestUrl } from "@wallet/persistence";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { piiKeyRing } from "../../src/crypto/index.js";
import { demoConfig } from "../../src/demo/demo-setup.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ensureServerBuilt } from "../reliability/support/server-process.js";
import { outputMatches, type Sample, samplesOf } from "./markdown-samples.js";

// Every code sample of the tenant and operator guides runs here, in page order, against a real
// server: ```ts test blocks are imported (vitest resolves @wallet/client to its sources),
// ```sh test blocks run in bash -euo pipefail, ```python test blocks in Python 3 with the
// `cryptography` package. A ```text output block right after a sample is what it must print
// (`…` matches anything within a line). Each page gets its own server and working directory.

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const docsDir = join(repoRoot, "docs");
const pages = [
  "quickstart.md",
  "concepts.md",
  "authentication.md",
  "sdk.md",
  "embedding.md",
  "webhooks-receiver.md",
  "operator-guide.md",
] as const;

const vectors = JSON.parse(readFileSync(join(docsDir, "vectors", "request-signing.json"), "utf8")) as {
  privateKeyPkcs8Pem: string;
  publicKeySpkiPem: string;
  cases: Array<{ canonical: string; signature: string; bodySha256: string }>;
};

const ADMIN_TOKEN = "docs-admin-token-0123456789abcdef";
const API_KEY = "docs-sandbox-api-key-0001";
const sampleTimeoutMs = 60_000;

/** The Python that has `cryptography`: the one on PATH, else Debian's. */
function findPython(): string | null {
  for (const candidate of ["python3", "/usr/bin/python3"]) {
    const probe = spawnSync(candidate, ["-c", "import cryptography"], { timeout: 20_000 });
    if (probe.status === 0) return candidate;
  }
  return null;
}
const python = findPython();
if (python === null) {
  if (process.env.CI)
    throw new Error("no python3 with the cryptography package; .ci/run installs python3-cryptography");
  console.warn(
    "docs: Python samples skipped: no python3 with `cryptography` (apt-get install -y python3-cryptography)",
  );
}
const postgresUrl = postgresTestUrl();

let binDir: string;

beforeAll(async () => {
  // Shell samples say `pnpm wallet ...`: a shim runs the built CLI in the sample's directory (so
  // ./data stays out of the repository), and passes every other pnpm command through. It prints
  // what real pnpm prints around the script (its banner first, a failure line after a non-zero
  // exit, both on stdout) unless `-s`/`--silent` comes before `wallet`, so a sample that keeps
  // the CLI's output (`> file`, `| head`, `$(...)`) without `-s` fails here as it would for a
  // reader. The build is shared with the reliability tests, under their lock.
  await ensureServerBuilt();
  binDir = mkdtempSync(join(tmpdir(), "wallet-docs-bin-"));
  const realPnpm = spawnSync("sh", ["-c", "command -v pnpm"], { encoding: "utf8" }).stdout.trim() || "false";
  const shim = join(binDir, "pnpm");
  writeFileSync(shim, pnpmShim(realPnpm));
  chmodSync(shim, 0o755);
}, 200_000);

/**
 * `pnpm [-s] wallet ...` as pnpm 10 runs the root package.json's script: `> <name>@<version>
 * <script> <dir>` and the command (each argument shell-quoted when it needs it) between blank
 * lines, then the CLI, then `ELIFECYCLE` (between thin spaces) when it exits non-zero. The CLI
 * runs in the background of a shell that waits for it, so a SIGTERM to the sample's process
 * group stops the CLI gracefully and the shim still ends with the CLI's exit status.
 */
function pnpmShim(realPnpm: string): string {
  const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as {
    name: string;
    version?: string;
    scripts: { wallet: string };
  };
  const banner = `> ${root.name}@${root.version ?? ""} wallet ${repoRoot.replace(/\/$/, "")}`;
  const cli = join(repoRoot, "packages/server/dist/cli.js");
  return String.raw`#!/bin/sh
silent=
case "$1" in -s | --silent) silent=1; shift ;; esac
if [ "$1" != "wallet" ]; then
  if [ -n "$silent" ]; then set -- -s "$@"; fi
  exec "${realPnpm}" "$@"
fi
shift
if [ -z "$silent" ]; then
  command="> ${root.scripts.wallet}"
  for arg in "$@"; do
    case "$arg" in
      "" | *[!A-Za-z0-9_./:=@%+,-]*) arg="'$(printf '%s' "$arg" | sed "s/'/'\"'\"'/g")'" ;;
    esac
    command="$command $arg"
  done
  printf '\n%s\n%s\n\n' "${banner}" "$command"
fi
trap : TERM INT
"${process.execPath}" "${cli}" "$@" &
pid=$!
while :; do
  wait "$pid"
  status=$?
  kill -0 "$pid" 2>/dev/null || break
done
if [ "$status" -ne 0 ] && [ -z "$silent" ]; then
  printf '\342\200\211ELIFECYCLE\342\200\211 Command failed with exit code %s.\n' "$status"
fi
exit "$status"
`;
}

interface PageContext {
  cwd: string;
  env: Record<string, string>;
  server: RunningServer;
  background: ChildProcess[];
}

/** The server a page's samples talk to: the demo catalog, the RFC 8032 test key as kid k1, every scope, a funded prefund. */
async function pageContext(page: string): Promise<PageContext> {
  const cwd = mkdtempSync(join(tmpdir(), `wallet-docs-${page.replace(/\W/g, "-")}-`));
  const config = demoConfig(API_KEY, vectors.publicKeySpkiPem);
  config.tenants[0]!.signingKeys[0]!.kid = "k1";
  const server = await startServer({
    config: parseConfig(config),
    databaseUrl: `sqlite:${join(cwd, "docs-server.db")}`,
    piiKeys: piiKeyRing(randomBytes(32).toString("base64")),
    port: 0,
    adminToken: ADMIN_TOKEN,
    webhookIntervalMs: 100,
  });
  const funded = await fetch(`${server.url}/api/v1/admin/tenants/demo/prefund`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ amountMinor: 50_000_000, currency: "KES" }),
  });
  expect(funded.status).toBe(200);
  const keyFile = join(cwd, "docs-k1.private.pem");
  writeFileSync(keyFile, vectors.privateKeyPkcs8Pem, { mode: 0o600 });
  const env: Record<string, string> = {
    PATH: `${binDir}:${process.env.PATH ?? ""}`,
    HOME: process.env.HOME ?? cwd,
    LANG: "C.UTF-8",
    // The run's scratch directory (scripts/test-tmpdir.ts): `wallet call` keeps a small file there.
    TMPDIR: tmpdir(),
    // `pnpm wallet serve` in a sample listens on a free port, not 8080.
    PORT: "0",
    WALLET_URL: server.url,
    WALLET_API_KEY: API_KEY,
    WALLET_KID: "k1",
    WALLET_KEY_FILE: keyFile,
    WALLET_ADMIN_TOKEN: ADMIN_TOKEN,
    WALLET_TENANT: "demo",
  };
  return { cwd, env, server, background: [] };
}

async function closeContext(context: PageContext): Promise<void> {
  for (const child of context.background) {
    if (child.exitCode !== null || child.pid === undefined) continue;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(-child.pid, "SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  }
  await context.server.close();
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  skipped?: string;
}

/**
 * Runs a command to completion without blocking this process: the page's server lives here, so a
 * synchronous spawn would leave the sample's requests unanswered.
 */
function runProcess(command: string, args: string[], context: PageContext): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: context.cwd,
      env: context.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString("utf8");
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), sampleTimeoutMs);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const runShell = (sample: Sample, context: PageContext) =>
  runProcess("bash", ["-euo", "pipefail", "-c", sample.code], context);

/**
 * A long-running command (a server): started, awaited until it prints `ready=` text (on stdout or
 * stderr), stopped with the page.
 */
async function runBackground(sample: Sample, context: PageContext): Promise<Ran> {
  const readyTag = sample.tags.findIndex((t) => t.startsWith("ready="));
  const ready =
    readyTag === -1 ? '"msg":"listening"' : sample.tags.slice(readyTag).join(" ").slice("ready=".length);
  const child = spawn("bash", ["-euo", "pipefail", "-c", sample.code], {
    cwd: context.cwd,
    env: context.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  context.background.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString("utf8");
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const deadline = Date.now() + sampleTimeoutMs;
  while (!stdout.includes(ready) && !stderr.includes(ready)) {
    if (child.exitCode !== null) return { status: child.exitCode, stdout, stderr };
    if (Date.now() > deadline) return { status: null, stdout, stderr: `${stderr}\n(not ready: "${ready}")` };
    await new Promise((r) => setTimeout(r, 50));
  }
  return { status: 0, stdout, stderr };
}

async function runPython(sample: Sample, context: PageContext, index: number): Promise<Ran> {
  if (python === null)
    return { status: 0, stdout: "", stderr: "", skipped: "no python3 with `cryptography`" };
  const file = join(context.cwd, `sample-${index}.py`);
  writeFileSync(file, sample.code);
  return runProcess(python, [file], context);
}

/**
 * Imported in this process, in the page's directory and environment, with console.log captured.
 * A `file=name.ts` tag names the module, so later samples of the page can import it (`./name.js`).
 */
async function runTypeScript(sample: Sample, context: PageContext, index: number): Promise<Ran> {
  const dir = join(context.cwd, "ts-samples");
  mkdirSync(dir, { recursive: true });
  const named = sample.tags.find((t) => t.startsWith("file="))?.slice("file=".length);
  const file = join(dir, named ?? `sample-${index}.ts`);
  writeFileSync(file, sample.code);
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  const savedLog = console.log;
  let stdout = "";
  Object.assign(process.env, context.env);
  process.chdir(context.cwd);
  console.log = (...args: unknown[]) => {
    stdout += `${args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ")}\n`;
  };
  try {
    await import(/* @vite-ignore */ pathToFileURL(file).href);
    return { status: 0, stdout, stderr: "" };
  } catch (e) {
    return {
      status: 1,
      stdout,
      stderr: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ""}` : String(e),
    };
  } finally {
    console.log = savedLog;
    process.chdir(savedCwd);
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  }
}

async function runSample(sample: Sample, context: PageContext, index: number): Promise<Ran> {
  if (sample.tags.includes("postgres")) {
    if (postgresUrl === null)
      return { status: 0, stdout: "", stderr: "", skipped: "WALLET_TEST_POSTGRES_URL is not set" };
    const fresh = await createFreshPostgresDatabase(postgresUrl);
    context.env.WALLET_DATABASE_URL = fresh.url;
    try {
      return await runShell(sample, context);
    } finally {
      delete context.env.WALLET_DATABASE_URL;
      await fresh.drop();
    }
  }
  switch (sample.lang) {
    case "sh":
    case "bash":
      return sample.tags.includes("background") ? runBackground(sample, context) : runShell(sample, context);
    case "python":
      return runPython(sample, context, index);
    case "ts":
      return runTypeScript(sample, context, index);
    default:
      throw new Error(`no runner for ${sample.lang} samples`);
  }
}

describe.each(pages)("docs/%s", (page) => {
  const markdown = readFileSync(join(docsDir, page), "utf8");
  const samples = samplesOf(markdown, `docs/${page}`);
  let context: PageContext;

  beforeAll(async () => {
    context = await pageContext(page);
  });
  afterAll(async () => {
    if (context) await closeContext(context);
  });

  it("has samples, and every JSON block parses", () => {
    expect(samples.length).toBeGreaterThan(0);
    for (const block of markdown.matchAll(/```json\n([\s\S]*?)```/g)) {
      expect(() => JSON.parse(block[1] ?? ""), block[1]).not.toThrow();
    }
  });

  // One test per sample, in page order: later samples use what earlier ones made.
  samples.forEach((sample, index) => {
    it(
      `${sample.lang} sample at line ${sample.line}`,
      async () => {
        const ran = await runSample(sample, context, index);
        if (ran.skipped !== undefined) {
          console.warn(`docs/${page}:${sample.line}: skipped: ${ran.skipped}`);
          return;
        }
        const report = `docs/${page}:${sample.line}\n--- stdout\n${ran.stdout}\n--- stderr\n${ran.stderr}`;
        expect(ran.status, report).toBe(0);
        if (sample.expectedOutput !== undefined) {
          expect(
            outputMatches(sample.expectedOutput, ran.stdout),
            `${report}\n--- expected\n${sample.expectedOutput}`,
          ).toBe(true);
        }
      },
      sampleTimeoutMs + 30_000,
    );
  });
});

/** tsconfig.typecheck.json's `paths` (each package to its sources), absolute. */
function sourcePaths(): Record<string, string[]> {
  const { compilerOptions } = JSON.parse(readFileSync(join(repoRoot, "tsconfig.typecheck.json"), "utf8")) as {
    compilerOptions: { paths: Record<string, string[]> };
  };
  return Object.fromEntries(
    Object.entries(compilerOptions.paths).map(([name, targets]) => [
      name,
      targets.map((t) => join(repoRoot, t)),
    ]),
  );
}

describe("the TypeScript samples", () => {
  it("type-check against the packages' sources, as a tenant's code would (tsc, strict)", () => {
    const dir = mkdtempSync(join(tmpdir(), "wallet-docs-tsc-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
    let count = 0;
    for (const page of pages) {
      const pageDir = join(dir, page.replace(/\.md$/, ""));
      mkdirSync(pageDir);
      samplesOf(readFileSync(join(docsDir, page), "utf8"), page).forEach((sample, index) => {
        if (sample.lang !== "ts") return;
        const named = sample.tags.find((t) => t.startsWith("file="))?.slice("file=".length);
        writeFileSync(join(pageDir, named ?? `sample-${index}.ts`), sample.code);
        count++;
      });
    }
    expect(count).toBeGreaterThan(10);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        extends: join(repoRoot, "tsconfig.base.json"),
        compilerOptions: {
          noEmit: true,
          composite: false,
          declaration: false,
          declarationMap: false,
          sourceMap: false,
          incremental: false,
          types: ["node"],
          typeRoots: [join(repoRoot, "node_modules/@types")],
          // The packages' sources, as tsconfig.typecheck.json maps them: docs/embedding.md uses them all.
          paths: sourcePaths(),
        },
        include: ["**/*.ts"],
      }),
    );
    const result = spawnSync(
      process.execPath,
      [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", dir],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  }, 150_000);
});

describe("docs/authentication.md", () => {
  it("shows the vectors' canonical string and signatures, so its samples reproduce them byte for byte", () => {
    const page = readFileSync(join(docsDir, "authentication.md"), "utf8");
    const post = vectors.cases[1]!;
    expect(page).toContain(post.canonical);
    expect(page).toContain(post.bodySha256);
    // The signature appears in the output blocks every language's sample is checked against.
    const outputs = [...page.matchAll(/```text output\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(outputs.filter((o) => o.includes(post.signature)).length).toBeGreaterThanOrEqual(3);
  });
});

describe("markdown samples", () => {
  it("refuses an untested code block and an orphan output block", () => {
    expect(() => samplesOf("```ts\nconst x = 1;\n```\n", "p.md")).toThrow(/must be tagged `test`/);
    expect(() => samplesOf("```text output\nx\n```\n", "p.md")).toThrow(/must directly follow/);
    expect(
      samplesOf("```json\n{}\n```\n```sh test\necho hi\n```\n```text output\nhi\n```\n", "p.md"),
    ).toEqual([{ lang: "sh", tags: ["test"], code: "echo hi\n", line: 4, expectedOutput: "hi\n" }]);
  });

  it("matches output line by line with … as a wildcard", () => {
    expect(outputMatches("op_… completed\n", "op_01ABC completed\n")).toBe(true);
    expect(outputMatches("op_… completed\n", "op_01ABC failed\n")).toBe(false);
    expect(outputMatches("a\nb\n", "a\nb\nc\n")).toBe(false);
    expect(outputMatches("1.5 (x)", "1.5 (x)  \n")).toBe(true);
  });

  it("finds the docs directory", () => {
    expect(existsSync(join(docsDir, "vectors"))).toBe(true);
  });
});
