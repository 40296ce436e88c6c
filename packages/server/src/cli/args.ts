import { parseArgs } from "node:util";
import { UsageError } from "./io.js";

type Spec = Record<string, { type: "string" | "boolean"; short?: string }>;

/**
 * Strict option parsing: an unknown option or a missing value is a `UsageError`, never ignored.
 * Returns the string options (booleans as "true") and the positionals.
 */
export function parseCommandArgs(
  argv: readonly string[],
  spec: Spec,
): { values: Record<string, string | undefined>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: spec,
      allowPositionals: true,
      strict: true,
    });
    const out: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(values)) out[k] = typeof v === "boolean" ? String(v) : (v as string);
    return { values: out, positionals };
  } catch (e) {
    // Every line: the later ones say how to write a value that starts with a dash (--port=-1).
    throw new UsageError((e as Error).message.replace(/\s*\n\s*/g, " ").trim() || "invalid arguments");
  }
}

/** `--port` / `PORT`: an integer from 0 (any free port) to 65535. */
export function parsePort(value: string, source: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) {
    throw new UsageError(`${source}: expected a port number from 0 to 65535, got "${value}"`);
  }
  return Number(value);
}
