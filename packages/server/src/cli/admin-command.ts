import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { readCredentials } from "../demo/demo-setup.js";
import { parseCommandArgs } from "./args.js";
import { sendAndPrint } from "./call-command.js";
import { type CliIo, UsageError } from "./io.js";
import { parseRequestArgs } from "./request-args.js";

const adminPrefix = "/api/v1/admin";
const methods = ["GET", "POST", "PATCH", "PUT"] as const;

/**
 * `wallet admin METHOD PATH [json]`: one operator API request with `WALLET_ADMIN_TOKEN` (never a
 * flag: a token on the command line ends up in shell history and `ps`). The base URL comes from
 * `--base-url`, else the demo credentials, else `http://127.0.0.1:$PORT` (8080).
 */
export async function adminCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    "base-url": { type: "string" },
    "data-dir": { type: "string" },
    "request-id": { type: "string" },
  });
  const cwd = io.cwd ?? process.cwd();
  const { method, path, body } = parseRequestArgs("admin", positionals, {
    methods,
    prefix: adminPrefix,
    example: "/ledger/trial-balance",
    cwd,
  });
  const token = io.env.WALLET_ADMIN_TOKEN;
  if (!token) throw new UsageError("admin: set WALLET_ADMIN_TOKEN to the server's operator token");

  const demoCredentials = join(resolve(cwd, values["data-dir"] ?? join("data", "demo")), "credentials.json");
  const baseUrl =
    values["base-url"] ??
    (existsSync(demoCredentials)
      ? readCredentials(demoCredentials).baseUrl
      : `http://127.0.0.1:${io.env.PORT || 8080}`);
  let url: URL;
  try {
    url = new URL(path, baseUrl);
  } catch {
    throw new UsageError(`admin: cannot build a URL from base "${baseUrl}" and "${path}"`);
  }

  const headers: Record<string, string> = {
    Accept: "application/json",
    Authorization: `Bearer ${token}`,
    "X-Request-Id": values["request-id"] ?? `cli-${randomUUID()}`,
  };
  return sendAndPrint(io, { method, url, shownPath: url.pathname, headers, body, timeoutMs: 30_000 });
}
