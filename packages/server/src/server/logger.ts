import pino, { type Logger } from "pino";
import { StartupError } from "../startup-error.js";

export type { Logger } from "pino";

/**
 * Header and credential-like paths that must never reach a log line, wherever a caller put them.
 * The HTTP adapter logs no headers today; this is the net under a future mistake.
 */
export const redactedPaths = [
  "authorization",
  "apiKey",
  "privateKeyPem",
  "secret",
  "token",
  "password",
  "headers.authorization",
  'headers["x-api-key"]',
  'headers["x-signature"]',
  'headers["cookie"]',
  "*.authorization",
  "*.apiKey",
  "*.privateKeyPem",
  "*.secret",
  "*.token",
  "*.password",
  "*.headers.authorization",
  '*.headers["x-api-key"]',
  '*.headers["x-signature"]',
  '*.headers["cookie"]',
];

/** JSON lines through `write` (one call per line). */
/** The levels `LOG_LEVEL` may name (pino's). */
export const logLevels = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** `LOG_LEVEL` checked, naming the variable and the valid values (default info). */
export function logLevelFrom(value: string | undefined): string {
  if (value === undefined || value === "") return "info";
  if ((logLevels as readonly string[]).includes(value)) return value;
  throw new StartupError(`LOG_LEVEL: expected one of ${logLevels.join(", ")}, got "${value.slice(0, 40)}"`);
}

export function createLogger(write: (line: string) => void, level = "info"): Logger {
  return pino(
    {
      level,
      base: { service: "wallet" },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactedPaths, censor: "[redacted]" },
    },
    { write },
  );
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger = (): Logger => pino({ level: "silent" });
