import { main } from "../src/cli/main.js";
import type { RunningServer } from "../src/server/start-server.js";

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one short command in-process. */
export async function run(
  argv: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: options.env ?? {},
    cwd: options.cwd,
  });
  return { code, stdout, stderr };
}

export interface Serving {
  server: RunningServer;
  output(): { stdout: string; stderr: string };
  /** Aborts the serve command (as SIGTERM does) and resolves with its exit code. */
  stop(): Promise<number>;
}

/** Starts `wallet serve` in-process and waits until it listens (or fails). */
export async function serve(
  argv: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Serving> {
  let stdout = "";
  let stderr = "";
  const shutdown = new AbortController();
  let listening: (s: RunningServer) => void = () => {};
  const ready = new Promise<RunningServer>((resolve) => {
    listening = resolve;
  });
  const exit = main(["serve", ...argv], {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: options.env ?? {},
    cwd: options.cwd,
    signal: shutdown.signal,
    onListening: (s) => listening(s),
  });
  const server = await Promise.race([
    ready,
    exit.then((code): never => {
      throw new Error(`serve exited with ${code}: ${stderr}`);
    }),
  ]);
  return {
    server,
    output: () => ({ stdout, stderr }),
    stop: () => {
      shutdown.abort();
      return exit;
    },
  };
}
