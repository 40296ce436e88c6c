import { createHash, createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  createWalletClient,
  type ResponseEvent,
  tenantRoutes,
  WalletApiError,
  type WalletClientOptions,
  WalletNetworkError,
} from "../src/index.js";

// A real HTTP server on port 0 checks what actually arrives on the wire: headers, exact body
// bytes, and the signature, verified with node:crypto over the method, path and body it received.

const { privateKey: privateKeyPem, publicKey: publicKeyPem } = generateKeyPairSync("ed25519", {
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
});
const publicKey = createPublicKey(publicKeyPem);
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  signatureValid: boolean;
  atMs: number;
}

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

/** What the server does with one request: answer, cut the connection, or never answer. */
type Step = Reply | "destroy" | "hang";

let server: Server;
let baseUrl: string;
let received: Received[] = [];
let script: Step[] = [];
const defaultReply: Reply = { status: 200, body: { ok: true } };

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

function signatureIsValid(method: string, url: string, headers: IncomingHttpHeaders, body: Buffer): boolean {
  const timestamp = header(headers, "x-timestamp");
  const signature = header(headers, "x-signature");
  if (!timestamp || !signature) return false;
  const bodySha = createHash("sha256").update(body).digest("hex");
  const canonical = `${method}\n${url}\n${timestamp}\n${bodySha}`;
  return verify(null, Buffer.from(canonical, "utf8"), publicKey, Buffer.from(signature, "base64"));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const method = req.method ?? "";
      const url = req.url ?? "";
      received.push({
        method,
        url,
        headers: req.headers,
        body,
        signatureValid: signatureIsValid(method, url, req.headers, body),
        atMs: Date.now(),
      });
      const step = script.shift() ?? defaultReply;
      if (step === "destroy") return req.socket.destroy();
      if (step === "hang") return;
      const requestId = header(req.headers, "x-request-id") ?? "server-generated";
      const payload = step.rawBody ?? (step.body === undefined ? "" : JSON.stringify(step.body));
      res.writeHead(step.status, {
        "Content-Type": "application/json",
        "X-Request-Id": requestId,
        ...step.headers,
      });
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  script = [];
});

const client = (overrides: Partial<WalletClientOptions> = {}) =>
  createWalletClient({
    baseUrl,
    apiKey: "test-api-key",
    kid: "k1",
    privateKeyPem,
    retry: { attempts: 3, baseDelayMs: 5 },
    ...overrides,
  });

const errorOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
};

describe("createWalletClient: redirects", () => {
  it("never follows one: the API key and a fresh signature stay with the service, and a 3xx is an error", async () => {
    for (const status of [301, 302, 307, 308]) {
      received = [];
      script = [{ status, headers: { Location: `${baseUrl}/elsewhere` } }];
      for (const call of [
        () => client().request("GET", "/operations"),
        () => client().request("POST", "/wallet-credits", { body: { amountMinor: 1 } }),
      ]) {
        script = [{ status, headers: { Location: `${baseUrl}/elsewhere` } }];
        const before = received.length;
        const error = await errorOf(call());
        expect(error).toBeInstanceOf(WalletApiError);
        expect(error).toMatchObject({ status, code: "Redirect" });
        expect((error as WalletApiError).message).toContain(`${baseUrl}/elsewhere`);
        // One request, to the service; none to the Location, and no retry.
        expect(received.slice(before).map((r) => r.url)).toEqual([
          received[before]!.method === "GET" ? "/api/v1/tenant/operations" : "/api/v1/tenant/wallet-credits",
        ]);
      }
    }
  });
});

describe("createWalletClient: what goes on the wire", () => {
  it("signs a GET with the four headers over the path and query it sent, in the given order", async () => {
    script = [{ status: 200, body: { data: [] } }];
    const before = Math.floor(Date.now() / 1000);
    const res = await client().request("GET", "/operations", {
      query: {
        walletUid: "wal 01",
        sortBy: ["createdAt:DESC", "id:DESC"],
        limit: 5,
        page: undefined,
        state: null,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
    expect(received).toHaveLength(1);
    const [req] = received;
    expect(req!.method).toBe("GET");
    expect(req!.url).toBe(
      "/api/v1/tenant/operations?walletUid=wal%2001&sortBy=createdAt%3ADESC&sortBy=id%3ADESC&limit=5",
    );
    expect(req!.signatureValid).toBe(true);
    expect(header(req!.headers, "x-api-key")).toBe("test-api-key");
    expect(header(req!.headers, "x-key-id")).toBe("k1");
    const timestamp = header(req!.headers, "x-timestamp")!;
    expect(timestamp).toMatch(/^\d+$/);
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(timestamp)).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(header(req!.headers, "x-request-id")).toMatch(uuidPattern);
    expect(header(req!.headers, "idempotency-key")).toBeUndefined();
    expect(req!.body.length).toBe(0);
    expect(res.requestId).toBe(header(req!.headers, "x-request-id"));
  });

  it("takes a base URL with or without the API prefix, and follows the API's own links as they are", async () => {
    for (const prefixed of [`${baseUrl}/api/v1/tenant`, `${baseUrl}/api/v1/tenant/`]) {
      script = [{ status: 200, body: { status: "ok" } }];
      await client({ baseUrl: prefixed }).request("GET", "/health");
      expect(received.at(-1)!.url).toBe("/api/v1/tenant/health");
    }
    // links.self, links.receipt and a statement item's receipt are paths from the origin.
    script = [{ status: 200, body: {} }];
    await client().request("GET", "/api/v1/tenant/operations/op_1/receipt");
    expect(received.at(-1)!.url).toBe("/api/v1/tenant/operations/op_1/receipt");
    expect(received.at(-1)!.signatureValid).toBe(true);
  });

  it("keeps query pairs given as an array in their order", async () => {
    await client().request("GET", "/operations", {
      query: [
        ["z", "1"],
        ["a", 2],
      ],
    });
    expect(received[0]!.url).toBe("/api/v1/tenant/operations?z=1&a=2");
    expect(received[0]!.signatureValid).toBe(true);
  });

  it("sends and signs the exact JSON bytes of a POST body, with an automatic Idempotency-Key", async () => {
    const body = { displayName: "Ñandú Ωmega 😀", amountMinor: 12345 };
    script = [{ status: 201, body: { uid: "cus_1" }, headers: { "Idempotent-Replayed": "false" } }];
    const res = await client().request<{ uid: string }>("POST", "/customers", { body });
    expect(res.status).toBe(201);
    expect(res.body.uid).toBe("cus_1");
    expect(res.idempotentReplayed).toBe(false);
    const [req] = received;
    expect(req!.body.equals(Buffer.from(JSON.stringify(body), "utf8"))).toBe(true);
    expect(req!.signatureValid).toBe(true);
    expect(header(req!.headers, "content-type")).toBe("application/json");
    const key = header(req!.headers, "idempotency-key");
    expect(key).toMatch(uuidPattern);
    expect(res.idempotencyKey).toBe(key);
  });

  it("gives every write its own key and passes given keys and request ids through", async () => {
    const c = client();
    await c.request("PATCH", "/customers/cus_1/identifiers/idn_1", {
      body: { verificationStatus: "verified" },
    });
    await c.request("POST", "/wallet-credits", { body: {} });
    await c.request("POST", "/wallet-credits", {
      body: {},
      idempotencyKey: "my-key-1",
      requestId: "req.1:a",
    });
    // A space inside the key is printable ASCII, as the service accepts.
    await c.request("POST", "/wallet-credits", { body: {}, idempotencyKey: "order 42" });
    const keys = received.map((r) => header(r.headers, "idempotency-key"));
    expect(keys[0]).toMatch(uuidPattern);
    expect(keys[1]).toMatch(uuidPattern);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe("my-key-1");
    expect(keys[3]).toBe("order 42");
    expect(header(received[2]!.headers, "x-request-id")).toBe("req.1:a");
    expect(received.every((r) => r.signatureValid)).toBe(true);
  });

  it("refuses malformed idempotency keys and request ids before sending anything", async () => {
    const c = client();
    for (const idempotencyKey of ["", " lead", "trail ", "x".repeat(256), "tab\there", "é"]) {
      await expect(c.request("POST", "/x", { body: {}, idempotencyKey })).rejects.toThrow(/idempotencyKey/);
    }
    await expect(c.request("GET", "/x", { requestId: "has space" })).rejects.toThrow(/requestId/);
    await expect(c.request("GET", "customers")).rejects.toThrow(/start with/);
    expect(received).toHaveLength(0);
  });

  it("has a typed method for every route of the OpenAPI document, with path segments encoded", async () => {
    const c = client();
    const uid = "u/1"; // encoded as u%2F1
    const any = {} as never;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["getHealth", () => c.health()],
      ["getOpenApiDocument", () => c.openApiDocument()],
      ["onboardCustomer", () => c.customers.create(any)],
      ["getCustomer", () => c.customers.get(uid)],
      ["addIdentifier", () => c.customers.identifiers.create(uid, any)],
      ["listIdentifiers", () => c.customers.identifiers.list(uid)],
      ["updateIdentifier", () => c.customers.identifiers.update(uid, uid, any)],
      ["addAgreement", () => c.customers.agreements.create(uid, any)],
      ["listAgreements", () => c.customers.agreements.list(uid)],
      ["submitKycVersion", () => c.customers.kycVersions.create(uid, any)],
      ["creditWallet", () => c.walletCredits.create(any)],
      ["getWalletBalance", () => c.wallets.balance(uid)],
      ["listWalletTransactions", () => c.wallets.transactions(uid)],
      ["listOperations", () => c.operations.list()],
      ["getOperation", () => c.operations.get(uid)],
      ["getReceipt", () => c.operations.receipt(uid)],
      ["listMandates", () => c.mandates.list()],
      ["createMandate", () => c.mandates.create(any)],
      ["getMandate", () => c.mandates.get(uid)],
      ["revokeMandate", () => c.mandates.revoke(uid, any)],
      ["debitWallet", () => c.walletDebits.create(any)],
      ["debitUnderMandate", () => c.mandates.debit(uid, any)],
      ["quoteFees", () => c.fees.quote(any)],
      ["createPayout", () => c.payouts.create(any)],
      ["createTopupIntent", () => c.topupIntents.create(any)],
      ["getTopupIntent", () => c.topupIntents.get(uid)],
    ];
    // Every operation of the generated table is called above, and nothing else.
    expect(calls.map(([id]) => id).sort()).toEqual(Object.keys(tenantRoutes).sort());
    for (const [, call] of calls) await call();
    const expected = calls.map(([id]) => {
      const route = tenantRoutes[id as keyof typeof tenantRoutes];
      return `${route.method} /api/v1/tenant${route.path.replace(/\{[a-z]+\}/g, "u%2F1")}`;
    });
    expect(received.map((r) => `${r.method} ${r.url}`)).toEqual(expected);
    expect(received.every((r) => r.signatureValid)).toBe(true);
  });

  it("sends typed bodies and queries as given, and reports each answer to onResponse", async () => {
    const events: ResponseEvent[] = [];
    const c = client({ onResponse: (e) => events.push(e) });
    script = [
      { status: 201, body: { uid: "op_1" }, headers: { "Idempotent-Replayed": "false" } },
      { status: 200, body: { data: [], meta: { total: 0, page: 2, limit: 5, totalPages: 0 } } },
      { status: 404, body: { error: "NotFound", message: "no" } },
    ];
    const body = { walletUid: "wal_1", amountMinor: 5, currency: "KES", clientReference: "cr-1" };
    expect(await c.walletCredits.create(body)).toEqual({ uid: "op_1" });
    await c.operations.list({
      walletUid: "wal_1",
      state: "completed",
      page: 2,
      limit: 5,
      sortBy: ["id:ASC"],
    });
    await expect(c.operations.get("op_x")).rejects.toBeInstanceOf(WalletApiError);
    expect(JSON.parse(received[0]!.body.toString("utf8"))).toEqual(body);
    expect(received[1]!.url).toBe(
      "/api/v1/tenant/operations?walletUid=wal_1&state=completed&page=2&limit=5&sortBy=id%3AASC",
    );
    expect(events.map((e) => [e.method, e.pathAndQuery, e.status, e.idempotentReplayed])).toEqual([
      ["POST", "/api/v1/tenant/wallet-credits", 201, false],
      ["GET", received[1]!.url, 200, undefined],
      ["GET", "/api/v1/tenant/operations/op_x", 404, undefined],
    ]);
    expect(events[0]!.requestId).toBe(header(received[0]!.headers, "x-request-id"));
    expect(events[0]!.idempotencyKey).toBe(header(received[0]!.headers, "idempotency-key"));
  });

  it("tells a typed call's own onResponse its request id and replay, after the client's", async () => {
    script = [{ status: 201, body: { uid: "op_1" }, headers: { "Idempotent-Replayed": "true" } }];
    const order: string[] = [];
    let seen: ResponseEvent | undefined;
    const op = await client({ onResponse: () => order.push("client") }).walletCredits.create({} as never, {
      idempotencyKey: "k-per-call",
      onResponse: (e) => {
        order.push("call");
        seen = e;
      },
    });
    expect(op).toEqual({ uid: "op_1" });
    expect(order).toEqual(["client", "call"]);
    expect(seen).toMatchObject({
      status: 201,
      idempotencyKey: "k-per-call",
      idempotentReplayed: true,
      requestId: header(received[0]!.headers, "x-request-id"),
    });
  });

  it("never repeats a signature when the same GET is sent twice within a second", async () => {
    const c = client();
    await c.operations.get("op_1");
    await c.operations.get("op_1");
    const [a, b] = received;
    expect(a!.signatureValid && b!.signatureValid).toBe(true);
    expect(header(b!.headers, "x-signature")).not.toBe(header(a!.headers, "x-signature"));
    expect(Number(header(b!.headers, "x-timestamp"))).toBeGreaterThan(
      Number(header(a!.headers, "x-timestamp")),
    );
  });
});

describe("createWalletClient: one process, several clients", () => {
  it("never sends the same signature from two clients signing with the same key", async () => {
    await client().operations.get("op_shared");
    await client().operations.get("op_shared");
    const [a, b] = received;
    expect(a!.signatureValid && b!.signatureValid).toBe(true);
    expect(header(b!.headers, "x-signature")).not.toBe(header(a!.headers, "x-signature"));
  });
});

describe("createWalletClient: retries", () => {
  it("retries a write after 503s with the same Idempotency-Key, re-signed with a new timestamp", async () => {
    script = [
      { status: 503, body: { error: "ServiceUnavailable", message: "try later" } },
      { status: 503, body: { error: "ServiceUnavailable", message: "try later" } },
      { status: 201, body: { uid: "op_1", state: "completed" } },
    ];
    const res = await client().request("POST", "/wallet-credits", { body: { amountMinor: 1 } });
    expect(res.status).toBe(201);
    expect(res.attempts).toBe(3);
    expect(received).toHaveLength(3);
    expect(received.every((r) => r.signatureValid)).toBe(true);
    const keys = new Set(received.map((r) => header(r.headers, "idempotency-key")));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(uuidPattern);
    expect(new Set(received.map((r) => header(r.headers, "x-request-id"))).size).toBe(1);
    expect(new Set(received.map((r) => header(r.headers, "x-signature"))).size).toBe(3);
    const timestamps = received.map((r) => Number(header(r.headers, "x-timestamp")));
    expect(timestamps[1]).toBeGreaterThan(timestamps[0]!);
    expect(timestamps[2]).toBeGreaterThan(timestamps[1]!);
    // Byte-identical body on every try.
    expect(received.every((r) => r.body.equals(received[0]!.body))).toBe(true);
  });

  it("retries a GET on 429 and on a dropped connection", async () => {
    script = [
      { status: 429, body: { error: "TooManyRequests", message: "slow down" } },
      "destroy",
      { status: 200, body: { ok: 1 } },
    ];
    const res = await client().request("GET", "/operations/op_1");
    expect(res.body).toEqual({ ok: 1 });
    expect(res.attempts).toBe(3);
    expect(received).toHaveLength(3);
  });

  it("retries a write whose connection dropped, keeping its key", async () => {
    script = ["destroy", { status: 201, body: { uid: "op_1" } }];
    const res = await client().request("POST", "/wallet-credits", { body: { amountMinor: 1 } });
    expect(res.attempts).toBe(2);
    expect(header(received[0]!.headers, "idempotency-key")).toBe(
      header(received[1]!.headers, "idempotency-key"),
    );
  });

  it("retries a write answered 409 IdempotencyKeyInUse after Retry-After, with the same key", async () => {
    script = [
      {
        status: 409,
        headers: { "Retry-After": "1" },
        body: { error: "IdempotencyKeyInUse", message: "The first request with this key is still running" },
      },
      { status: 201, body: { uid: "op_1" }, headers: { "Idempotent-Replayed": "true" } },
    ];
    const res = await client().request("POST", "/wallet-credits", { body: { amountMinor: 1 } });
    expect(res.attempts).toBe(2);
    expect(res.idempotentReplayed).toBe(true);
    expect(received[1]!.atMs - received[0]!.atMs).toBeGreaterThanOrEqual(950);
    expect(header(received[0]!.headers, "idempotency-key")).toBe(
      header(received[1]!.headers, "idempotency-key"),
    );
  });

  it("does not retry any other 409", async () => {
    script = [
      { status: 409, body: { error: "Conflict", message: "clientReference already used" } },
      { status: 201, body: {} },
    ];
    const error = (await errorOf(
      client().request("POST", "/wallet-credits", { body: {} }),
    )) as WalletApiError;
    expect(error.code).toBe("Conflict");
    expect(received).toHaveLength(1);
  });

  it.each([400, 403, 404, 409, 422])("does not retry a %i", async (status) => {
    script = [
      { status, body: { error: "Whatever", message: "no" } },
      { status: 200, body: {} },
    ];
    const error = await errorOf(client().request("POST", "/wallet-credits", { body: {} }));
    expect(error).toBeInstanceOf(WalletApiError);
    expect((error as WalletApiError).status).toBe(status);
    expect(received).toHaveLength(1);
  });

  it("tries a 401 once more at once, signed for the next second: another process may have sent the same request", async () => {
    const unauthorized = { status: 401, body: { error: "Unauthorized", message: "Authentication failed" } };
    script = [unauthorized, { status: 200, body: { ok: 1 } }];
    const res = await client().request("GET", "/operations?limit=1");
    expect(res.body).toEqual({ ok: 1 });
    expect(res.attempts).toBe(2);
    const [first, second] = received.map((r) => Number(header(r.headers, "x-timestamp")));
    expect(second).toBe(first! + 1);
    expect(received[1]!.atMs - received[0]!.atMs).toBeLessThan(500);

    // Only once for a GET: a second 401 is the answer.
    received = [];
    script = [unauthorized, unauthorized, { status: 200, body: {} }];
    const error = (await errorOf(client().request("GET", "/operations?limit=1"))) as WalletApiError;
    expect(error.status).toBe(401);
    expect(received).toHaveLength(2);

    // And not past the configured attempts.
    received = [];
    script = [unauthorized, { status: 200, body: {} }];
    await errorOf(client({ retry: { attempts: 1 } }).request("GET", "/health"));
    expect(received).toHaveLength(1);
  });

  it("tries a keyed write's 401 again up to its attempts: behind a hop that re-sends requests, a 401 may be the replay guard answering a copy of a try that ran", async () => {
    const unauthorized = { status: 401, body: { error: "Unauthorized", message: "Authentication failed" } };
    script = [
      unauthorized,
      unauthorized,
      { status: 201, body: { uid: "op_1" }, headers: { "Idempotent-Replayed": "true" } },
    ];
    const res = await client().request("POST", "/wallet-credits", { body: { amountMinor: 1 } });
    expect([res.status, res.attempts, res.idempotentReplayed]).toEqual([201, 3, true]);
    expect(new Set(received.map((r) => header(r.headers, "idempotency-key"))).size).toBe(1);
    const timestamps = received.map((r) => Number(header(r.headers, "x-timestamp")));
    expect(timestamps).toEqual([timestamps[0], timestamps[0]! + 1, timestamps[0]! + 2]);

    // Past its attempts the 401 is the answer, with the key to repeat the write by.
    received = [];
    script = [unauthorized, unauthorized, unauthorized, { status: 201, body: {} }];
    const error = (await errorOf(
      client().request("POST", "/wallet-credits", { body: { amountMinor: 1 } }),
    )) as WalletApiError;
    expect(error.status).toBe(401);
    expect(received).toHaveLength(3);
    expect(error.idempotencyKey).toBe(header(received[0]!.headers, "idempotency-key"));
  });

  it("retries a 2xx it cannot read (a body that is not JSON, or none) like a lost answer, and reports only the final answer", async () => {
    const events: ResponseEvent[] = [];
    script = [
      { status: 201, rawBody: "" },
      { status: 201, rawBody: '{"uid":"op_1"' },
      { status: 201, body: { uid: "op_1" }, headers: { "Idempotent-Replayed": "true" } },
    ];
    const res = await client({ onResponse: (e) => events.push(e) }).request("POST", "/wallet-credits", {
      body: { amountMinor: 1 },
    });
    expect([res.body, res.attempts]).toEqual([{ uid: "op_1" }, 3]);
    expect(events.map((e) => [e.status, e.attempts])).toEqual([[201, 3]]);
    expect(new Set(received.map((r) => header(r.headers, "idempotency-key"))).size).toBe(1);

    // Past the attempts: InvalidResponse, with the key; an empty body is never a typed answer.
    received = [];
    script = [{ status: 200, rawBody: "" }];
    const error = (await errorOf(
      client({ retry: { attempts: 1 } }).request("POST", "/wallet-credits", { body: { amountMinor: 1 } }),
    )) as WalletApiError;
    expect([error.status, error.code]).toEqual([200, "InvalidResponse"]);
    expect(error.idempotencyKey).toBe(header(received[0]!.headers, "idempotency-key"));
  });

  it("stops after the configured attempts and reports the last answer", async () => {
    script = Array.from({ length: 5 }, () => ({
      status: 503,
      body: { error: "ServiceUnavailable", message: "down" },
    }));
    const error = await errorOf(client({ retry: { attempts: 4, baseDelayMs: 1 } }).operations.get("op_1"));
    expect(error).toBeInstanceOf(WalletApiError);
    expect((error as WalletApiError).status).toBe(503);
    expect((error as WalletApiError).code).toBe("ServiceUnavailable");
    expect(received).toHaveLength(4);
  });

  it("honours Retry-After in seconds", async () => {
    script = [
      { status: 503, headers: { "Retry-After": "1" }, body: { error: "ServiceUnavailable", message: "x" } },
    ];
    const res = await client({ retry: { attempts: 2, baseDelayMs: 1 } }).request("GET", "/health");
    expect(res.status).toBe(200);
    expect(received).toHaveLength(2);
    expect(received[1]!.atMs - received[0]!.atMs).toBeGreaterThanOrEqual(950);
  });

  it("caps a long Retry-After", async () => {
    script = [
      { status: 429, headers: { "Retry-After": "3600" }, body: { error: "TooManyRequests", message: "x" } },
    ];
    const started = Date.now();
    await client({ retry: { attempts: 2, baseDelayMs: 1, retryAfterMaxMs: 60 } }).request("GET", "/health");
    expect(received).toHaveLength(2);
    const gap = received[1]!.atMs - received[0]!.atMs;
    expect(gap).toBeGreaterThanOrEqual(50);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("gives up on a server that never answers, after the per-try timeout", async () => {
    script = ["hang", "hang"];
    const error = await errorOf(
      client({ timeoutMs: 100, retry: { attempts: 2, baseDelayMs: 1 } }).request("POST", "/wallet-credits", {
        body: {},
      }),
    );
    expect(error).toBeInstanceOf(WalletNetworkError);
    const networkError = error as WalletNetworkError;
    expect(networkError.attempts).toBe(2);
    expect(networkError.idempotencyKey).toBe(header(received[0]!.headers, "idempotency-key"));
    expect(networkError.requestId).toBe(header(received[0]!.headers, "x-request-id"));
    expect(received).toHaveLength(2);
  });

  it("says a write aborted after it was sent has an unknown outcome, with its key; one never sent is just cancelled", async () => {
    script = ["hang"];
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    const pending = client().walletCredits.create({} as never, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    const error = await errorOf(pending);
    expect(error).toBeInstanceOf(WalletNetworkError);
    expect(error).toMatchObject({
      idempotencyKey: header(received[0]!.headers, "idempotency-key"),
      requestId: header(received[0]!.headers, "x-request-id"),
      attempts: 1,
      cause: reason,
    });
    expect((error as Error).message).toMatch(/outcome is unknown/);

    received = [];
    const cancelled = await errorOf(
      client().walletCredits.create({} as never, { signal: AbortSignal.abort(reason) }),
    );
    expect(cancelled).toBe(reason);
    expect(received).toHaveLength(0);
  });

  it("stops waiting when the caller aborts", async () => {
    script = [
      { status: 503, headers: { "Retry-After": "5" }, body: { error: "ServiceUnavailable", message: "x" } },
    ];
    const controller = new AbortController();
    const pending = client().request("GET", "/health", { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("caller gave up")), 50);
    await expect(pending).rejects.toThrow("caller gave up");
    expect(received).toHaveLength(1);
  });
});

describe("createWalletClient: errors", () => {
  it("throws WalletApiError with the body's fields and the response's request id", async () => {
    const details = [{ field: "amountMinor", issue: "must be an integer" }];
    script = [
      {
        status: 400,
        headers: { "X-Request-Id": "srv-req-42" },
        body: { error: "InvalidRequest", message: "Invalid request body", details },
      },
    ];
    const error = await errorOf(client().walletCredits.create({ amountMinor: 1.5 } as never));
    expect(error).toBeInstanceOf(WalletApiError);
    expect(error).toMatchObject({
      name: "WalletApiError",
      status: 400,
      code: "InvalidRequest",
      message: "Invalid request body",
      details,
      requestId: "srv-req-42",
    });
  });

  it("carries a write's Idempotency-Key, to repeat it by when the outcome is unknown", async () => {
    const inUse = { status: 409, body: { error: "IdempotencyKeyInUse", message: "still running" } };
    script = [inUse, inUse];
    const error = (await errorOf(
      client({ retry: { attempts: 2, baseDelayMs: 1 } }).walletCredits.create({} as never),
    )) as WalletApiError;
    expect(error.code).toBe("IdempotencyKeyInUse");
    expect(error.idempotencyKey).toMatch(uuidPattern);
    expect(error.idempotencyKey).toBe(header(received[0]!.headers, "idempotency-key"));

    script = [{ status: 404, body: { error: "NotFound", message: "no" } }];
    expect(
      ((await errorOf(client().operations.get("op_1"))) as WalletApiError).idempotencyKey,
    ).toBeUndefined();
  });

  it("names this machine's clock in a 401 when the service's Date is about the tolerance away", async () => {
    const unauthorized = (date: Date) => ({
      status: 401,
      headers: { Date: date.toUTCString() },
      body: { error: "Unauthorized", message: "Authentication failed" },
    });
    script = [unauthorized(new Date(Date.now() - 600_000)), unauthorized(new Date(Date.now() - 600_000))];
    const skewed = (await errorOf(client().health())) as WalletApiError;
    expect(skewed.message).toMatch(
      /^Authentication failed \(this machine's clock is 60\d s ahead of the service's Date header; X-Timestamp must be within 300 s/,
    );

    script = [unauthorized(new Date()), unauthorized(new Date())];
    expect(((await errorOf(client().health())) as WalletApiError).message).toBe("Authentication failed");
  });

  it("reports a 422 refusal by its code", async () => {
    script = [{ status: 422, body: { error: "FundingNotPositioned", message: "Prefunded balance too low" } }];
    const error = (await errorOf(client().walletCredits.create({} as never))) as WalletApiError;
    expect(error.code).toBe("FundingNotPositioned");
    expect(error.details).toBeUndefined();
    expect(error.requestId).toBe(header(received[0]!.headers, "x-request-id"));
  });

  it("copes with an error body that is not JSON", async () => {
    script = [{ status: 502, rawBody: "<html>bad gateway</html>" }];
    const error = (await errorOf(client({ retry: { attempts: 1 } }).health())) as WalletApiError;
    expect(error).toBeInstanceOf(WalletApiError);
    expect(error.status).toBe(502);
    expect(error.code).toBe("HttpError");
  });

  it("refuses a bad configuration at construction", () => {
    expect(() => client({ privateKeyPem: publicKeyPem })).toThrow(/PRIVATE KEY/);
    expect(() => client({ baseUrl: "ftp://example.com" })).toThrow(/http/);
    expect(() => client({ retry: { attempts: 0 } })).toThrow(/attempts/);
    expect(() => client({ retry: { attempts: 1000 } })).toThrow(/attempts/);
  });
});
