import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is packages/server/test/reliability/support/). */
export const repoRoot = fileURLToPath(new URL("../../../../../", import.meta.url));
export const cliPath = join(repoRoot, "packages/server/dist/cli.js");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds packages/server (and its references) into dist with `tsc -b`, which only re-emits what
 * changed. Several test files may ask at once, so a lock directory serializes them. A failed
 * build with a dist already present only warns: another engineer's half-edited file must not
 * stop these tests from running the last good build.
 */
export async function ensureServerBuilt(): Promise<void> {
  const lock = join(tmpdir(), "wallet-reliability-build.lock");
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run is stale after 5 minutes.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 300_000)
        rmSync(lock, { recursive: true });
      if (Date.now() > deadline) throw new Error("timed out waiting for the server build lock");
      await sleep(200);
    }
  }
  try {
    const error = await new Promise<Error | null>((resolve) =>
      execFile(
        join(repoRoot, "node_modules/.bin/tsc"),
        ["-b", "packages/server/tsconfig.json"],
        { cwd: repoRoot, timeout: 170_000, maxBuffer: 4 * 1024 * 1024 },
        (e, stdout) =>
          resolve(e ? new Error(`tsc -b packages/server failed:\n${stdout.slice(0, 4000)}`) : null),
      ),
    );
    if (error !== null) {
      if (!existsSync(cliPath)) throw error;
      console.warn(`${error.message.split("\n")[0]}; using the existing packages/server/dist`);
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** A port nobody listens on right now (the server binds it a moment later). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** The last 32 KiB of stdout and stderr (pino lines; never a secret). */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Sends the signal (default SIGKILL) and waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  configPath: string;
  databaseUrl: string;
  dataDir: string;
  /** Environment of the child: only what the server needs. */
  env: Record<string, string>;
  port?: number;
  readyTimeoutMs?: number;
  noScheduler?: boolean;
}

const started = new Set<ChildProcess>();

/** Kills every server process this test file started and is still running (afterAll). */
export async function killStartedServers(): Promise<void> {
  await Promise.all(
    [...started].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
  started.clear();
}

/**
 * `node packages/server/dist/cli.js serve` as a real OS process, so it can be killed with
 * SIGKILL. Ready when GET /health answers (the server listens only after migrating and seeding).
 */
export async function startServerProcess(options: StartOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const args = [
    cliPath,
    "serve",
    "--config",
    options.configPath,
    "--db",
    options.databaseUrl,
    "--port",
    String(port),
    "--data-dir",
    options.dataDir,
    ...(options.noScheduler ? ["--no-scheduler"] : []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.add(child);
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-32_768);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      started.delete(child);
      resolve(code);
    }),
  );
  let exitCode: number | null | undefined;
  void exited.then((c) => {
    exitCode = c;
  });

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (exitCode !== undefined) throw new Error(`server exited (${exitCode}) before listening:\n${output}`);
    try {
      const res = await fetch(`${url}/api/v1/tenant/health`, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server not ready within ${options.readyTimeoutMs ?? 30_000} ms:\n${output}`);
    }
    await sleep(100);
  }
  return {
    url,
    port,
    pid: child.pid ?? -1,
    output: () => output,
    exited,
    kill: async (signal = "SIGKILL") => {
      if (exitCode === undefined) child.kill(signal);
      await exited;
    },
  };
}
