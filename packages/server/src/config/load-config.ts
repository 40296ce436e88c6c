import { readFileSync } from "node:fs";
import * as v from "valibot";
import { ConfigError, formatJsonPath } from "./config-error.js";
import { crossCheck } from "./cross-check.js";
import { configSchema, type WalletConfig } from "./schema.js";

/** Config files are small; anything larger is a mistake (a database dump, a log). */
const maxConfigBytes = 4 * 1024 * 1024;

/**
 * Validates a config given as JSON text or as an already parsed value. Throws a `ConfigError`
 * naming the JSON path of the first problem; returns the config with every default applied.
 */
export function parseConfig(json: unknown): WalletConfig {
  let input = json;
  if (typeof json === "string") {
    try {
      input = JSON.parse(json);
    } catch (e) {
      throw new ConfigError("", `invalid JSON (${(e as Error).message})`);
    }
  }
  // valibot's object schemas take an array for an object: `[]` would read as missing keys.
  if (Array.isArray(input)) throw new ConfigError("", "expected a JSON object");
  const result = v.safeParse(configSchema, input);
  if (!result.success) {
    const issue = result.issues[0];
    throw new ConfigError(formatJsonPath(issuePath(issue)), describe(issue));
  }
  const [problem] = crossCheck(result.output);
  if (problem !== undefined) throw new ConfigError(formatJsonPath(problem.path), problem.message);
  return result.output;
}

/** Reads and validates the config file at `path`. */
export function loadConfig(path: string): WalletConfig {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > maxConfigBytes)
      throw new ConfigError("", `${path}: larger than ${maxConfigBytes} bytes`);
    text = bytes.toString("utf8");
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new ConfigError("", `cannot read ${path} (${code})`);
  }
  return parseConfig(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

type Issue = v.BaseIssue<unknown>;

const issuePath = (issue: Issue | undefined): (string | number)[] =>
  (issue?.path ?? []).map((item) => item.key as string | number);

/** Valibot's structural issues in the operator's words; our own messages are kept as written. */
function describe(issue: Issue | undefined): string {
  if (issue === undefined) return "invalid";
  const last = issue.path?.at(-1);
  if (issue.type === "strict_object" && last?.origin === "key") {
    return issue.expected === "never" ? "unknown key" : "is required";
  }
  if (issue.type === "variant" && issue.input === undefined) return "is required";
  return issue.message;
}
