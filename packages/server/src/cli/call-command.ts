import { createPrivateKey, randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { STATUS_CODES } from "node:http";
import { join, resolve } from "node:path";
import { signRequest } from "@wallet/client";
import { type Credentials, readCredentials } from "../demo/demo-setup.js";
import { parseCommandArgs } from "./args.js";
import { allocateTimestamp } from "./call-timestamps.js";
import { type CliIo, line, UsageError } from "./io.js";
import { parseRequestArgs } from "./request-args.js";

const tenantPrefix = "/api/v1/tenant";
const methods = ["GET", "POST", "PATCH"] as const;
const headersOfNote = ["X-Request-Id", "Idempotent-Replayed", "Retry-After"] as const;

export const callOptions = {
  credentials: { type: "string" },
  "data-dir": { type: "string" },
  "key-file": { type: "string" },
  "api-key": { type: "string" },
  kid: { type: "string" },
  "base-url": { type: "string" },
  "idempotency-key": { type: "string" },
  "request-id": { type: "string" },
  "timeout-ms": { type: "string" },
} as const;

/**
 * `wallet call METHOD PATH [json]`: signs and sends one tenant request, like curl. Prints the
 * status line, the headers of note and the pretty JSON body. Exit 0 for 2xx, 1 otherwise. Never
 * retries: what you typed is what was sent, once.
 */
export async function callCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, callOptions);
  const cwd = io.cwd ?? process.cwd();
  const { method, path, body } = parseRequestArgs("call", positionals, {
    methods,
    prefix: tenantPrefix,
    example: "/customers",
    cwd,
  });
  const timeoutMs = values["timeout-ms"] === undefined ? 30_000 : Number(values["timeout-ms"]);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 600_000) {
    throw new UsageError("--timeout-ms: expected an integer from 1 to 600000");
  }

  const credentials = resolveCredentials(values, cwd);

  let url: URL;
  try {
    url = new URL(path, credentials.baseUrl);
  } catch {
    throw new UsageError(`call: cannot build a URL from base "${credentials.baseUrl}" and "${path}"`);
  }
  // Sign what goes on the wire: the URL's own serialization of the path and query.
  const pathAndQuery = `${url.pathname}${url.search}`;
  const isWrite = method !== "GET";
  const idempotencyKey = values["idempotency-key"] ?? (isWrite ? randomUUID() : undefined);
  const requestId = values["request-id"] ?? `cli-${randomUUID()}`;

  const { timestamp, waitMs } = allocateTimestamp(
    `${credentials.apiKey}\n${credentials.kid}`,
    `${method}\n${pathAndQuery}\n${body ?? ""}`,
    Math.floor(Date.now() / 1000),
  );
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  const headers: Record<string, string> = {
    Accept: "application/json",
    "X-Request-Id": requestId,
    ...signRequest({
      method,
      pathAndQuery,
      body: body ?? "",
      apiKey: credentials.apiKey,
      kid: credentials.kid,
      privateKey: credentials.privateKeyPem,
      timestamp,
    }),
  };
  if (idempotencyKey !== undefined) headers["Idempotency-Key"] = idempotencyKey;
  return sendAndPrint(io, { method, url, shownPath: pathAndQuery, headers, body, timeoutMs, idempotencyKey });
}

/**
 * Sends one request of `call` or `admin` (a JSON body gets its Content-Type) and prints the answer
 * (`formatResponse`); 0 for a 2xx, 1 otherwise or when no answer came. A redirect is shown, never
 * followed: it would carry the API key and a fresh signature, or the admin token, elsewhere.
 */
export async function sendAndPrint(
  io: CliIo,
  request: {
    method: string;
    url: URL;
    /** The path as the error line names it. */
    shownPath: string;
    headers: Record<string, string>;
    body: string | undefined;
    timeoutMs: number;
    idempotencyKey?: string | undefined;
  },
): Promise<number> {
  const { method, url, body } = request;
  const headers =
    body === undefined ? request.headers : { ...request.headers, "Content-Type": "application/json" };
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body ?? null,
      redirect: "manual",
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await response.text();
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    io.stderr(
      line(`wallet: ${method} ${url.origin}${request.shownPath} failed: ${cause ?? (e as Error).message}`),
    );
    return 1;
  }
  io.stdout(formatResponse(response, text, request.idempotencyKey));
  return response.ok ? 0 : 1;
}

/** Status line, the headers of note, a blank line and the pretty JSON body. */
export function formatResponse(response: Response, text: string, idempotencyKey: string | undefined): string {
  const reason = response.statusText || STATUS_CODES[response.status] || "";
  const out = [`HTTP ${response.status} ${reason}`.trimEnd()];
  for (const name of headersOfNote) {
    const value = response.headers.get(name);
    if (value !== null) out.push(`${name}: ${value}`);
  }
  if (idempotencyKey !== undefined) out.push(`Idempotency-Key: ${idempotencyKey} (sent)`);
  out.push("");
  if (text !== "") out.push(prettyJson(text));
  return out.map(line).join("");
}

/**
 * The signing credentials of `call` and `demo`: flags (`--base-url`, `--api-key`, `--kid`,
 * `--key-file`) win over the credentials file (`--credentials`, else `--data-dir`'s, else the
 * demo's), which is read only when a flag is missing.
 */
export function resolveCredentials(
  values: Record<string, string | undefined>,
  cwd: string,
  command = "call",
): Credentials {
  const flags = {
    baseUrl: values["base-url"],
    apiKey: values["api-key"],
    kid: values.kid,
    privateKeyPem: values["key-file"] === undefined ? undefined : readKeyFile(values["key-file"], cwd),
  };
  const file =
    values.credentials !== undefined
      ? resolve(cwd, values.credentials)
      : join(resolve(cwd, values["data-dir"] ?? join("data", "demo")), "credentials.json");
  const complete = Object.values(flags).every((v) => v !== undefined);
  let base: Partial<Credentials> = {};
  if (!complete) {
    if (!existsSync(file)) {
      throw new UsageError(
        `${command}: no credentials at ${file}; run "wallet serve" once without a config to create the demo, or pass --base-url, --api-key, --kid and --key-file`,
      );
    }
    base = readCredentials(file);
  }
  const merged = {
    baseUrl: flags.baseUrl ?? base.baseUrl,
    apiKey: flags.apiKey ?? base.apiKey,
    kid: flags.kid ?? base.kid,
    privateKeyPem: flags.privateKeyPem ?? base.privateKeyPem,
  };
  for (const [k, v] of Object.entries(merged)) if (!v) throw new UsageError(`${command}: missing ${k}`);
  assertSigningKey(merged.privateKeyPem as string, flags.privateKeyPem !== undefined ? "--key-file" : file);
  return merged as Credentials;
}

/** The private key PEM of `--key-file`: a missing, unreadable or empty file is a command-line mistake. */
function readKeyFile(path: string, cwd: string): string {
  // An unset variable (`--key-file "$WALLET_KEY_FILE"`) would otherwise read the directory.
  if (path === "")
    throw new UsageError("--key-file: expected the path of a private key PEM, got an empty string");
  let pem: string;
  try {
    pem = readFileSync(resolve(cwd, path), "utf8");
  } catch (e) {
    throw new UsageError(`--key-file: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (pem.trim() === "") throw new UsageError(`--key-file: ${path} is empty`);
  return pem;
}

/** A key that cannot sign is a command-line mistake too (status 2): nothing is sent. */
function assertSigningKey(pem: string, source: string): void {
  let type: string | undefined;
  try {
    type = createPrivateKey(pem).asymmetricKeyType;
  } catch {
    throw new UsageError(
      `${source}: not a private key PEM (expected "-----BEGIN PRIVATE KEY-----", Ed25519)`,
    );
  }
  if (type !== "ed25519")
    throw new UsageError(`${source}: expected an Ed25519 private key, got ${type ?? "another kind"}`);
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
