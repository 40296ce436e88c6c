import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signRequest } from "@wallet/client";
import { getTrialBalance } from "@wallet/ledger-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/index.js";
import { piiKeyRing } from "../../src/crypto/index.js";
import { createLogger } from "../../src/server/logger.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import {
  type Credentials,
  creditBody,
  newCredentials,
  onboardingBody,
  reliabilityConfig,
  TENANT,
  TENANT_ID,
  WalletHttp,
} from "./support/wallet-http.js";

/**
 * Attacks only a raw socket can make (fetch refuses to send them): CR/LF and NUL inside header
 * values, duplicated headers, request smuggling (two Content-Lengths, Transfer-Encoding with
 * Content-Length), obsolete line folding, unnormalized request targets (dot segments, double
 * slashes, absolute form, raw UTF-8), oversized request lines. Against the real server (Node's
 * HTTP parser + @hono/node-server + the app): never a 5xx, every answer from the app is the one
 * error body, and nothing is created.
 */
let server: RunningServer;
let creds: Credentials;
let customerUid = "";
let walletUid = "";
const dir = mkdtempSync(join(tmpdir(), "wallet-wire-"));
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  creds = newCredentials();
  server = await startServer({
    config: parseConfig(reliabilityConfig(creds)),
    databaseUrl: `sqlite:${join(dir, "wallet.db")}`,
    piiKeys: piiKeyRing(creds.piiKey),
    port: 0,
    adminToken: creds.adminToken,
    scheduler: false,
    requestTimeoutMs: 2_000,
    logger: createLogger((line) => logLines.push(JSON.parse(line))),
  });
  const http = new WalletHttp(creds);
  await http.admin(server.url, "POST", `/tenants/${TENANT_ID}/prefund`, {
    amountMinor: 1_000_000,
    currency: "KES",
  });
  const c = await http.signed(server.url, "POST", "/customers", onboardingBody("+254744000001"), {
    idempotencyKey: "wire-1",
  });
  expect(c.status, c.text).toBe(201);
  customerUid = c.json().uid;
  walletUid = c.json().walletUid;
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
}

/** Writes `request` bytes as they are and reads until the server closes the connection (bounded). */
function raw(request: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer within 10 s"));
    }, 10_000);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, headers: head, body });
    });
    // Connection: close (or a parse error) makes the server close once it has answered.
    socket.write(request);
  });
}

/** Auth headers for exactly this method, target and body. */
function auth(method: string, target: string, body = "", timestampOffset = 0): string[] {
  const h = signRequest({
    method,
    pathAndQuery: target,
    body,
    apiKey: creds.apiKey,
    kid: creds.kid,
    privateKey: creds.privateKeyPem,
    timestamp: Math.floor(Date.now() / 1000) - timestampOffset,
  });
  return Object.entries(h).map(([k, v]) => `${k}: ${v}`);
}

const request = (lines: string[], body = "") =>
  `${lines.join("\r\n")}\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** The access log line ("request") of the wallet-credits route logged after `from`, if any. */
function accessLine(from: number, requestId?: string): Record<string, unknown> | undefined {
  return logLines
    .slice(from)
    .find(
      (l) =>
        l.msg === "request" &&
        l.route === `${TENANT}/wallet-credits` &&
        (requestId === undefined || l.requestId === requestId),
    );
}

async function ledgerState(): Promise<string> {
  return server.store.uow.run(async (tx) => {
    const ops = await tx.operations.list(
      { tenantId: TENANT_ID },
      { page: 1, limit: 1, sort: [{ field: "id", direction: "ASC" }] },
    );
    return JSON.stringify({ ops: ops.total, trial: await getTrialBalance(tx) });
  });
}

/** Never 5xx; every answer, the HTTP parser's own refusals included, is the one error body with a request id. */
function expectRefused(a: RawAnswer, what: string, allowed: number[]) {
  expect(a.status, `${what}: ${a.headers}`).toBeGreaterThanOrEqual(400);
  expect(a.status, `${what}: ${a.headers}`).toBeLessThan(500);
  expect(allowed, `${what}: ${a.status} ${a.body}`).toContain(a.status);
  expect(a.headers, what).toMatch(/content-type: application\/json/i);
  expect(a.headers, what).toMatch(/x-request-id: \S+/i);
  // The server's own answers as the app's: never stored by a cache, never sniffed.
  expect(a.headers, what).toMatch(/cache-control: no-store/i);
  expect(a.headers, what).toMatch(/x-content-type-options: nosniff/i);
  const body = JSON.parse(a.body);
  expect(
    Object.keys(body)
      .filter((k) => k !== "details")
      .sort(),
    what,
  ).toEqual(["error", "message"]);
  // The code names the status, as everywhere else.
  expect(body.error, what).toBe(errorCodeOf[a.status]);
}

const errorCodeOf: Record<number, string> = {
  400: "InvalidRequest",
  401: "Unauthorized",
  404: "NotFound",
  408: "RequestTimeout",
  413: "PayloadTooLarge",
  431: "RequestHeaderFieldsTooLarge",
};

describe("raw-socket attacks on the real server", () => {
  it("a well-formed raw request works (the baseline the attacks change)", async () => {
    const target = `${TENANT}/customers/${customerUid}`;
    const a = await raw(request([`GET ${target} HTTP/1.1`, ...auth("GET", target)]));
    expect(a.status, a.body).toBe(200);
  });

  it("refuses header injection, duplicates and smuggling", async () => {
    const before = await ledgerState();
    const target = `${TENANT}/wallet-credits`;
    const body = JSON.stringify(creditBody({ customerUid, walletUid, msisdnUid: "" }, 100, "wire-credit"));
    const signed = auth("POST", target, body);
    const [apiKey = "", kid = "", ts = "", sig = ""] = signed;
    const base = [
      `POST ${target} HTTP/1.1`,
      "Content-Type: application/json",
      "Idempotency-Key: wire-attack",
    ];
    const cases: [string, string | Buffer, number[]][] = [
      ["CR inside a header value", request([...base, apiKey, kid, ts, `${sig}\rX-Injected: 1`], body), [400]],
      [
        "LF inside a header value",
        request([...base, apiKey, kid, ts, `${sig}\nX-Injected: 1`], body),
        [400, 401],
      ],
      ["NUL inside a header value", request([...base, apiKey, `${kid}\u0000`, ts, sig], body), [400]],
      [
        "bare CR in the Idempotency-Key",
        request([...base.slice(0, 2), "Idempotency-Key: a\rb", ...signed], body),
        [400],
      ],
      ["X-Signature twice", request([...base, ...signed, sig], body), [401]],
      ["X-Api-Key twice", request([...base, ...signed, apiKey], body), [401]],
      ["X-Timestamp twice", request([...base, ...signed, ts], body), [401]],
      [
        "obsolete line folding",
        request([...base, apiKey, kid, ts, sig.slice(0, 30), ` ${sig.slice(30)}`], body),
        [400, 401],
      ],
      [
        "two Content-Lengths",
        `${[...base, ...signed].join("\r\n")}\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length}\r\nContent-Length: 5\r\n\r\n${body}`,
        [400],
      ],
      [
        "Transfer-Encoding with Content-Length",
        `${[...base, ...signed].join("\r\n")}\r\nHost: x\r\nConnection: close\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${body}`,
        [400],
      ],
      ["a header name with a space", request([...base, ...signed, "X Bad: 1"], body), [400]],
      ["a 100 KiB header", request([...base, ...signed, `X-Big: ${"a".repeat(100_000)}`], body), [400, 431]],
    ];
    for (const [name, bytes, allowed] of cases) expectRefused(await raw(bytes), name, allowed);
    expect(await ledgerState(), "nothing created").toBe(before);
  });

  it("a body shorter than its Content-Length: 408 RequestTimeout once the request timeout passes", async () => {
    const before = await ledgerState();
    const target = `${TENANT}/wallet-credits`;
    const body = JSON.stringify(creditBody({ customerUid, walletUid, msisdnUid: "" }, 100, "wire-slow"));
    const lines = [`POST ${target} HTTP/1.1`, "Content-Type: application/json", "Idempotency-Key: wire-slow"];
    const head = `${[...lines, ...auth("POST", target, body)].join("\r\n")}\r\nHost: x\r\nConnection: close\r\nContent-Length: ${body.length + 13}\r\n\r\n`;
    const logged = logLines.length;
    const a = await raw(head + body); // 13 bytes never come
    expectRefused(a, "short body", [408]);
    expect(JSON.parse(a.body).error).toBe("RequestTimeout");
    // The app's access log records the same request under the id the client got, as a 408, and
    // nothing at error level (it used to be an "unhandled error" and a 500 under another id).
    const requestId = /x-request-id: (\S+)/i.exec(a.headers)?.[1];
    await expect.poll(() => accessLine(logged, requestId)?.status).toBe(408);
    expect(logLines.slice(logged).filter((l) => Number(l.level) >= 50)).toEqual([]);
    // Headers that never end: the same answer.
    const stalled = await raw(`GET ${TENANT}/operations HTTP/1.1\r\nHost: x\r\n`);
    expectRefused(stalled, "unfinished headers", [408]);
    expect(await ledgerState(), "nothing created").toBe(before);
  });

  it("a client that closes mid-body: logged as a 408, never as an unhandled error", async () => {
    const before = await ledgerState();
    const logged = logLines.length;
    const target = `${TENANT}/wallet-credits`;
    const socket = connect(server.port, "127.0.0.1");
    socket.on("error", () => {});
    // Signed: a caller without credentials is refused before its body is read.
    const signed = auth("POST", target, `{"amountMinor":${" ".repeat(85)}}`, 3);
    socket.write(
      `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${signed.join("\r\n")}\r\nContent-Length: 100\r\n\r\n{"amountMinor":`,
    );
    // The head is complete: give the app time to start on it and wait for the body.
    await new Promise((r) => setTimeout(r, 500));
    expect(accessLine(logged), "the app is still reading the body").toBeUndefined();
    socket.destroy();
    await expect.poll(() => accessLine(logged)?.status).toBe(408);
    expect(logLines.slice(logged).filter((l) => Number(l.level) >= 50)).toEqual([]);
    expect(await ledgerState(), "nothing created").toBe(before);
  });

  it("an HTTP/1.1 request without Host: 400 in the error body; HTTP/1.0 needs none", async () => {
    const a = await raw(`GET ${TENANT}/health HTTP/1.1\r\nConnection: close\r\n\r\n`);
    expectRefused(a, "no Host", [400]);
    expect(JSON.parse(a.body).message).toBe("The Host header is missing");
    const old = await raw(`GET ${TENANT}/health HTTP/1.0\r\n\r\n`);
    expect(old.headers).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(old.body).status).toBe("ok");
  });

  it("verifies the target as sent, whatever the Host header: a target needing encoding is 400", async () => {
    const customer = `${TENANT}/customers/${customerUid}`;
    // Each request its own timestamp: Ed25519 is deterministic, and the replay guard would refuse a repeat.
    for (const [n, host] of ["127.0.0.1", "api.example.com:443", "WALLET.example:8443"].entries()) {
      // Normal form: authenticates and routes, whoever the Host says the server is.
      const ok = await raw(
        `GET ${customer} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${auth("GET", customer, "", 200 + 2 * n).join("\r\n")}\r\n\r\n`,
      );
      expect(ok.status, `${host}: ${ok.body}`).toBe(200);
      // A quote in the query is what a URL parser would encode: refused the same way on every Host.
      const quoted = `${TENANT}/operations?limit=5&x=a'b`;
      const refused = await raw(
        `GET ${quoted} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n${auth("GET", quoted, "", 201 + 2 * n).join("\r\n")}\r\n\r\n`,
      );
      expectRefused(refused, `${host} quoted`, [400]);
    }
  });

  it("binds the request target exactly as sent", async () => {
    const before = await ledgerState();
    const customer = `${TENANT}/customers/${customerUid}`;
    const targets: [string, string, number[]][] = [
      // [name, target sent (and signed), allowed]
      // A target a URL parser would rewrite is refused: the signed bytes are the path routed.
      ["dot segment", `${TENANT}/wallets/../customers/${customerUid}`, [400]],
      ["encoded dot segment", `${TENANT}/wallets/%2e%2e/customers/${customerUid}`, [400]],
      ["double slash", `${TENANT}//customers/${customerUid}`, [401, 404]],
      ["leading double slash", `/${customer}`, [400, 401, 404]],
      ["encoded slash in a parameter", `${TENANT}/customers/${customerUid}%2Fidentifiers`, [404]],
      ["encoded letter", customer.replace("cus_", "cus%5F"), [404]],
      ["raw UTF-8 in the path", `${TENANT}/customers/ü${customerUid}`, [400, 401, 404]],
      ["percent without hex", `${TENANT}/customers/%zz`, [400, 404]],
      ["NUL percent-encoded", `${TENANT}/customers/%00`, [400, 404]],
      ["absolute form", `http://evil.example${customer}`, [200, 400, 401, 404]],
      ["asterisk form", "*", [400, 404]],
      ["duplicated single-valued query parameter", `${TENANT}/operations?limit=1&limit=2`, [400]],
      ["8 KiB of query", `${TENANT}/operations?x=${"a".repeat(8_000)}`, [400, 414, 431]],
    ];
    for (const [name, target, allowed] of targets) {
      const a = await raw(request([`GET ${target} HTTP/1.1`, ...auth("GET", target)]));
      // A target the parser normalizes before the app sees it no longer matches its signature (401);
      // one it keeps verbatim authenticates and reaches the router (404 or, for the same customer, 200).
      // An encoded letter is the same customer once the router decodes the parameter (signed as sent).
      if (a.status === 200)
        expect(["absolute form", "encoded letter"], `${name} answered 200`).toContain(name);
      else expectRefused(a, name, allowed);
    }
    // Signed one way, sent another: re-ordered or re-encoded queries are different requests.
    const list = `${TENANT}/operations`;
    for (const [name, signedAs, sent] of [
      ["query re-ordered", `${list}?limit=5&page=1`, `${list}?page=1&limit=5`],
      ["query re-encoded", `${list}?type=wallet_credit`, `${list}?type=wallet%5Fcredit`],
      ["path re-encoded", customer, customer.replace("cus_", "cus%5F")],
    ] as const) {
      expectRefused(await raw(request([`GET ${sent} HTTP/1.1`, ...auth("GET", signedAs)])), name, [401]);
    }
    expect(await ledgerState(), "nothing created").toBe(before);
  });
});
