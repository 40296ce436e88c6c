import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "./io.js";

const bodyBytesMax = 1024 * 1024;

/** What `wallet call` and `wallet admin` take: METHOD PATH [json | @file]. */
export interface RequestArgs {
  method: string;
  /** The path as typed, under `prefix` (added when the caller left it out). */
  path: string;
  /** The body exactly as given (validated as JSON), or read from `@file`. */
  body: string | undefined;
}

/**
 * Parses METHOD PATH [json] for `command`; every mistake is a UsageError (exit 2) that names the
 * command, e.g. `admin: METHOD must be one of GET, POST, PATCH, PUT`.
 */
export function parseRequestArgs(
  command: "call" | "admin",
  positionals: readonly string[],
  rules: { methods: readonly string[]; prefix: string; example: string; cwd: string },
): RequestArgs {
  const [methodArg, pathArg, bodyArg, ...extra] = positionals;
  if (methodArg === undefined || pathArg === undefined)
    throw new UsageError(`${command}: expected METHOD PATH [json]`);
  if (extra.length > 0)
    throw new UsageError(`${command}: unexpected "${extra[0]}" (quote the JSON body as one argument)`);
  const method = methodArg.toUpperCase();
  if (!rules.methods.includes(method)) {
    throw new UsageError(`${command}: METHOD must be one of ${rules.methods.join(", ")}`);
  }
  if (!pathArg.startsWith("/"))
    throw new UsageError(`${command}: PATH must start with "/", e.g. ${rules.example}`);
  const { prefix } = rules;
  const path =
    pathArg === prefix || pathArg.startsWith(`${prefix}/`) || pathArg.startsWith(`${prefix}?`)
      ? pathArg
      : `${prefix}${pathArg}`;
  const body = bodyArg === undefined ? undefined : readBody(command, bodyArg, rules.cwd);
  return { method, path, body };
}

/** The body exactly as given (validated as JSON), or `@file` to read it from a file. */
function readBody(command: string, arg: string, cwd: string): string {
  let text = arg;
  if (arg.startsWith("@")) {
    try {
      text = readFileSync(resolve(cwd, arg.slice(1)), "utf8");
    } catch (e) {
      // A command-line mistake (exit 2), named without the stack.
      throw new UsageError(
        `${command}: cannot read the body file ${arg.slice(1)} (${(e as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  }
  if (Buffer.byteLength(text) > bodyBytesMax) throw new UsageError(`${command}: body larger than 1 MiB`);
  try {
    JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${command}: the body is not JSON (${(e as Error).message})`);
  }
  return text;
}
