import type { RunningServer } from "../server/start-server.js";

/** Everything a command touches outside itself, so tests run `main` in-process. */
export interface CliIo {
  /** Writes text as is (callers add the newlines). */
  stdout(text: string): void;
  stderr(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  /** Base of relative paths. Default: `process.cwd()`. */
  cwd?: string | undefined;
  /** `serve` shuts down gracefully when this aborts (the bin wires SIGTERM and SIGINT to it). */
  signal?: AbortSignal | undefined;
  /** Called once `serve` listens (tests, embedding). */
  onListening?(server: RunningServer): void;
}

/** A refusal of the command line itself: printed as one line with the usage hint, exit 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const line = (text: string) => `${text}\n`;
