import { StoreUnavailableError, type Tx, type UnitOfWork } from "@wallet/ledger-core";
import { createMemoryStore } from "@wallet/ledger-core/memory";
import { beforeEach, describe, expect, it } from "vitest";
import {
  ADMIN,
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  TENANT,
} from "./support/fixture.js";

const CREDITS = `${TENANT}/wallet-credits`;
const CUSTOMERS = `${TENANT}/customers`;

type ErrorBody = { error: string; message: string; details?: { field: string; issue: string }[] };
const errorOf = async (res: Response) => (await res.json()) as ErrorBody;

describe("request validation: strict, with JSON paths", () => {
  let h: Harness;
  let acme: SeededTenant;
  beforeEach(async () => {
    const { uow } = createMemoryStore();
    h = createHarness(uow);
    acme = await seedTenant(uow, { id: "acme" });
  });

  const expect400 = async (res: Response, field: string, issue?: string | RegExp) => {
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error).toBe("InvalidRequest");
    const detail = body.details?.find((d) => d.field === field);
    expect(detail, JSON.stringify(body.details)).toBeDefined();
    if (issue !== undefined) expect(detail?.issue).toMatch(issue);
    return body;
  };

  it("names an unknown field at the top level and deep inside arrays and objects", async () => {
    await expect400(
      await h.call(acme, "POST", CUSTOMERS, { body: onboardingBody({ bogus: 1 }) }),
      "bogus",
      "unknown field",
    );
    const nested = onboardingBody();
    (nested.identifiers[0] as Record<string, unknown>).extra = "x";
    (nested.kyc as Record<string, unknown>).surprise = true;
    const body = await expect400(
      await h.call(acme, "POST", CUSTOMERS, { body: nested }),
      "identifiers[0].extra",
      "unknown field",
    );
    expect(body.details?.map((d) => d.field)).toContain("kyc.surprise");
    await expect400(
      await h.call(acme, "POST", CREDITS, {
        body: { walletUid: "wal_1", amountMinor: 1, currency: "KES", clientReference: "c", fee: 0 },
      }),
      "fee",
      "unknown field",
    );
  });

  it("names missing required fields and wrong types without echoing the value", async () => {
    const { displayName: _d, ...missing } = onboardingBody();
    await expect400(await h.call(acme, "POST", CUSTOMERS, { body: missing }), "displayName", "required");
    const wrong = onboardingBody();
    (wrong.identifiers[1] as Record<string, unknown>).value = 12345678;
    const body = await expect400(
      await h.call(acme, "POST", CUSTOMERS, { body: wrong }),
      "identifiers[1].value",
    );
    expect(JSON.stringify(body)).not.toContain("12345678");
  });

  it("validates formats: ISO timestamps and dates, 64-hex documentHash, enums, currency", async () => {
    const cases: [Record<string, unknown>, string][] = [];
    const badTime = onboardingBody();
    badTime.agreements[0]!.acceptedAt = "22/11/2026";
    cases.push([badTime, "agreements[0].acceptedAt"]);
    const badHash = onboardingBody();
    badHash.agreements[0]!.documentHash = "z".repeat(64);
    cases.push([badHash, "agreements[0].documentHash"]);
    const shortHash = onboardingBody();
    shortHash.agreements[0]!.documentHash = "a".repeat(63);
    cases.push([shortHash, "agreements[0].documentHash"]);
    cases.push([onboardingBody({ dateOfBirth: "1990-13-01" }), "dateOfBirth"]);
    cases.push([onboardingBody({ dateOfBirth: "1990-02-31" }), "dateOfBirth"]); // not a calendar date
    cases.push([onboardingBody({ dateOfBirth: "2999-01-01" }), "dateOfBirth"]); // not born yet
    const blank = onboardingBody();
    (blank.identifiers[0] as Record<string, unknown>).value = " \t ";
    cases.push([blank, "identifiers[0].value"]);
    cases.push([onboardingBody({ customerType: "robot" }), "customerType"]);
    const badVerifiedAt = onboardingBody();
    (badVerifiedAt.identifiers[0] as Record<string, unknown>).verifiedAt = "yesterday";
    cases.push([badVerifiedAt, "identifiers[0].verifiedAt"]);
    const badReview = onboardingBody();
    badReview.kyc.reviewType = "upgrade";
    cases.push([badReview, "kyc.reviewType"]);
    for (const [body, field] of cases)
      await expect400(await h.call(acme, "POST", CUSTOMERS, { body }), field);
    await expect400(
      await h.call(acme, "POST", CREDITS, {
        body: { walletUid: "wal_1", amountMinor: 1, currency: "kes", clientReference: "c" },
      }),
      "currency",
    );
    const ok = onboardingBody({ dateOfBirth: "1990-01-31" });
    ok.agreements[0]!.acceptedAt = "2026-11-22T12:00:00+03:00";
    expect((await h.call(acme, "POST", CUSTOMERS, { body: ok })).status).toBe(201);
  });

  it("caps free-form objects at 16 KiB serialized and 8 levels deep", async () => {
    const credit = (metadata: unknown) =>
      h.call(acme, "POST", CREDITS, {
        body: { walletUid: "wal_1", amountMinor: 1, currency: "KES", clientReference: "c", metadata },
      });
    await expect400(await credit({ blob: "x".repeat(16 * 1024) }), "metadata", /16384 bytes/);
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 8; i++) deep = { d: deep }; // 9 levels
    await expect400(await credit(deep), "metadata", /8 levels/);
    await expect400(await credit([1, 2]), "metadata");
    await expect400(await credit("text"), "metadata");
    let eight: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 7; i++) eight = { d: eight };
    // Valid metadata passes validation and reaches the use case (404: the wallet does not exist).
    expect((await credit(eight)).status).toBe(404);
    const evidence = onboardingBody();
    (evidence.kyc as Record<string, unknown>).evidence = { big: "y".repeat(17_000) };
    await expect400(await h.call(acme, "POST", CUSTOMERS, { body: evidence }), "kyc.evidence");
  });

  it("names an unknown field by its first 100 characters: a hostile key does not come back whole", async () => {
    const huge = (n: number) => `${String(n).padStart(2, "0")}${"k".repeat(50_000)}`;
    const body: Record<string, unknown> = {
      walletUid: "wal_1",
      amountMinor: 1,
      currency: "KES",
      clientReference: "c",
    };
    for (let n = 0; n < 20; n++) body[huge(n)] = 1;
    // A key of astral characters is cut between characters, never inside one.
    body["\u{1F600}".repeat(150)] = 1;
    const res = await h.call(acme, "POST", CREDITS, { body });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(8_000);
    const { details } = JSON.parse(text) as ErrorBody;
    expect(details?.[0]).toEqual({ field: `00${"k".repeat(98)}…`, issue: "unknown field" });
    const nested = onboardingBody();
    (nested.kyc as Record<string, unknown>)["\u{1F600}".repeat(150)] = 1;
    const deep = await expect400(
      await h.call(acme, "POST", CUSTOMERS, { body: nested }),
      `kyc.${"\u{1F600}".repeat(100)}…`,
      "unknown field",
    );
    expect(deep.details).toHaveLength(1);
  });

  it("counts characters in code points, as the document's maxLength does", async () => {
    const credit = (clientReference: string) =>
      h.call(acme, "POST", CREDITS, {
        body: { walletUid: "wal_1", amountMinor: 1, currency: "KES", clientReference },
      });
    // 200 emoji are 400 UTF-16 units but 200 characters: past validation (the wallet is unknown).
    expect((await credit("\u{1F600}".repeat(200))).status).toBe(404);
    await expect400(await credit("\u{1F600}".repeat(201)), "clientReference", "at most 200 characters");
    await expect400(await credit(`${"x".repeat(199)}\u{1F600}\u{1F600}`), "clientReference", /at most 200/);
    await expect400(await credit(""), "clientReference", "must not be empty");
  });

  it("refuses a hostile nesting without crashing", async () => {
    const rawBody = `{"walletUid":"w","amountMinor":1,"currency":"KES","clientReference":"c","metadata":${"[".repeat(50_000)}${"]".repeat(50_000)}}`;
    const res = await h.call(acme, "POST", CREDITS, { rawBody });
    expect(res.status).toBe(400);
  });

  it("400 for a key twice in one object and for an amount written with a fraction or exponent", async () => {
    const credit = (rawBody: string) => h.call(acme, "POST", CREDITS, { rawBody });
    const twice = await credit(
      '{"walletUid":"wal_1","amountMinor":1,"currency":"KES","clientReference":"c","amountMinor":250}',
    );
    expect(twice.status).toBe(400);
    expect(await errorOf(twice)).toEqual({
      error: "InvalidRequest",
      message: "The request body is invalid",
      details: [{ field: "amountMinor", issue: "appears twice in its object" }],
    });
    for (const amount of ["1e2", "100.0", "1.0000000000000001"]) {
      const res = await credit(
        `{"walletUid":"wal_1","amountMinor":${amount},"currency":"KES","clientReference":"c"}`,
      );
      await expect400(res, "amountMinor", "must be an integer written without a fraction or exponent");
    }
    // Free-form metadata is the client's: any number, any key name.
    const ok = await credit(
      '{"walletUid":"wal_1","amountMinor":100,"currency":"KES","clientReference":"c","metadata":{"priceMinor":1.5}}',
    );
    expect(ok.status).toBe(404); // past validation: the wallet is unknown
  });

  it("400 for invalid JSON, an empty body and invalid UTF-8", async () => {
    const invalid = await h.call(acme, "POST", CREDITS, { rawBody: "{not json" });
    expect(invalid.status).toBe(400);
    expect((await errorOf(invalid)).message).toMatch(/JSON/);
    expect((await h.call(acme, "POST", CREDITS, { rawBody: "" })).status).toBe(400);
    const bytes = new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]);
    const res = await h.app.request(
      CREDITS,
      {
        method: "POST",
        body: bytes,
        headers: {
          ...(await signedHeadersFor(h, acme, "POST", CREDITS, bytes)),
          "Content-Type": "application/json",
          "Idempotency-Key": "k-utf8",
        },
      },
      { incoming: { socket: { remoteAddress: "127.0.0.1" } } },
    );
    expect(res.status).toBe(400);
    expect((await errorOf(res)).message).toMatch(/UTF-8/);
  });

  it("400 for a JSON array where an object is expected, even when every field is optional", async () => {
    const array = await h.call(acme, "POST", CREDITS, { rawBody: "[]" });
    expect(array.status).toBe(400);
    expect((await errorOf(array)).message).toMatch(/JSON object/);
  });

  it("Idempotency-Key: required on writes, 1-255 printable ASCII", async () => {
    const body = { walletUid: "wal_1", amountMinor: 1, currency: "KES", clientReference: "c" };
    await expect400(
      await h.call(acme, "POST", CREDITS, { body, idempotencyKey: null }),
      "Idempotency-Key",
      "required",
    );
    await expect400(
      await h.call(acme, "POST", CREDITS, { body, idempotencyKey: "k".repeat(256) }),
      "Idempotency-Key",
    );
    await expect400(
      await h.call(acme, "POST", CREDITS, { body, idempotencyKey: "caf\u00e9" }),
      "Idempotency-Key",
    );
    expect((await h.call(acme, "POST", CREDITS, { body, idempotencyKey: "k".repeat(255) })).status).toBe(404);
  });

  it("a body is JSON under Content-Type application/json: another media type, none or a charset not UTF-8 is 400", async () => {
    const body = { walletUid: "wal_1", amountMinor: 1, currency: "KES", clientReference: "c" };
    const as = (contentType: string) =>
      h.call(acme, "POST", CREDITS, { body, headers: { "Content-Type": contentType } });
    await expect400(await as("text/plain"), "Content-Type", "must be application/json");
    await expect400(
      await as("application/x-www-form-urlencoded"),
      "Content-Type",
      "must be application/json",
    );
    await expect400(await as("application/jsonx"), "Content-Type", "must be application/json");
    await expect400(await as(""), "Content-Type", "required");
    await expect400(
      await as("application/json; charset=iso-8859-1"),
      "Content-Type",
      "charset must be utf-8",
    );
    // Refused before the body is read: the same key with the right type is a first request, not a replay.
    const first = await h.call(acme, "POST", CREDITS, {
      body,
      idempotencyKey: "k-ct",
      headers: { "Content-Type": "text/plain" },
    });
    expect(first.status).toBe(400);
    const again = await h.call(acme, "POST", CREDITS, { body, idempotencyKey: "k-ct" });
    expect(again.status).toBe(404);
    expect(again.headers.get("Idempotent-Replayed")).not.toBe("true");
    // The media type without case, with parameters, and a UTF-8 charset however spelled.
    for (const ok of [
      "Application/JSON",
      'application/json; charset="UTF-8"',
      "application/json;charset=utf-8; v=1",
    ])
      expect((await as(ok)).status).toBe(404);
  });

  it("validates path and query: unknown query parameters are refused", async () => {
    await expect400(
      await h.call(acme, "GET", `${TENANT}/customers/cus_1?verbose=1`),
      "verbose",
      "unknown field",
    );
    await expect400(await h.call(acme, "GET", `${TENANT}/customers/${"x".repeat(129)}`), "uid");
  });

  it("a query key named after an object's internals is an unknown field like any other", async () => {
    for (const query of [
      "__proto__=1",
      "__proto__=a&__proto__=b",
      "constructor=1",
      "toString=x",
      "hasOwnProperty=1",
    ]) {
      const res = await h.call(acme, "GET", `${TENANT}/operations?${query}`);
      const key = query.slice(0, query.indexOf("="));
      await expect400(res, key, "unknown field");
    }
  });
});

/** Signs arbitrary bytes (the harness signs strings). */
async function signedHeadersFor(h: Harness, t: SeededTenant, method: string, path: string, body: Uint8Array) {
  const { createHash, sign } = await import("node:crypto");
  h.clock.advanceMs(1000);
  const timestamp = h.nowSeconds();
  const canonical = `${method}\n${path}\n${timestamp}\n${createHash("sha256").update(body).digest("hex")}`;
  return {
    "X-Api-Key": t.apiKey,
    "X-Key-Id": t.key.kid,
    "X-Timestamp": timestamp,
    "X-Signature": sign(null, Buffer.from(canonical), t.key.privateKeyPem).toString("base64"),
  };
}

describe("limits, request ids and failures", () => {
  let h: Harness;
  let acme: SeededTenant;
  let uow: UnitOfWork;
  beforeEach(async () => {
    uow = createMemoryStore().uow;
    h = createHarness(uow);
    acme = await seedTenant(uow, { id: "acme" });
  });

  it("marks every answer, errors included, not to be stored by a cache nor sniffed for another type", async () => {
    // Tenants authenticate with X-Api-Key, not Authorization: a shared cache would not know.
    const onboarded = await h.call(acme, "POST", CUSTOMERS, { body: onboardingBody() });
    const uid = ((await onboarded.json()) as { uid: string }).uid;
    const answers = [
      onboarded,
      await h.call(acme, "GET", `${CUSTOMERS}/${uid}`),
      await h.call(acme, "GET", `${CUSTOMERS}/cus_missing`),
      await h.app.request(`${CUSTOMERS}/${uid}`),
      await h.app.request(`${TENANT}/no-such-route`),
      await h.app.request("/elsewhere"),
      await h.admin("GET", `${ADMIN}/tenants/acme`),
    ];
    expect(answers.map((r) => r.status)).toEqual([201, 200, 404, 401, 401, 404, 200]);
    for (const r of answers) {
      expect([r.headers.get("Cache-Control"), r.headers.get("X-Content-Type-Options")]).toEqual([
        "no-store",
        "nosniff",
      ]);
    }
  });

  it("413 for a body over 1 MiB: a declared length before authentication, a streamed body once its credentials are known", async () => {
    const declared = await h.app.request(CREDITS, {
      method: "POST",
      body: "{}",
      headers: { "Content-Length": String(2 * 1024 * 1024) },
    });
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toEqual({ error: "PayloadTooLarge", message: expect.any(String) });
    expect(declared.headers.get("X-Request-Id")).toBeTruthy();
    const big = "x".repeat(1024 * 1024 + 1);
    const signed = await h.call(acme, "POST", CREDITS, { rawBody: big });
    expect(signed.status).toBe(413);
    expect(await errorOf(signed)).toEqual({ error: "PayloadTooLarge", message: expect.any(String) });
    // At the limit the body is read and the request proceeds to the signature and validation.
    expect((await h.call(acme, "POST", CREDITS, { rawBody: "x".repeat(1024 * 1024) })).status).toBe(400);
  });

  it("a caller without credentials gets 401 before its body is read (an endless body is not received)", async () => {
    /** POSTs an endless body; answers the status and how many bytes the server pulled. */
    const sendEndless = async (path: string, headers: Record<string, string> = {}) => {
      const chunk = new Uint8Array(64 * 1024);
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
      });
      const res = await h.app.request(path, { method: "POST", body, duplex: "half", headers } as RequestInit);
      return { status: res.status, pulled };
    };
    const unsigned = await sendEndless(CREDITS);
    expect(unsigned.status).toBe(401);
    expect(unsigned.pulled).toBeLessThan(1024 * 1024);
    const forged = await sendEndless(CREDITS, {
      "X-Api-Key": "not-a-key",
      "X-Key-Id": "kid",
      "X-Timestamp": String(Math.floor(h.clock.now().getTime() / 1000)),
      "X-Signature": Buffer.alloc(64).toString("base64"),
    });
    expect(forged.status).toBe(401);
    expect(forged.pulled).toBeLessThan(1024 * 1024);
    const noToken = await sendEndless(`${ADMIN}/tenants`);
    expect(noToken.status).toBe(401);
    expect(noToken.pulled).toBeLessThan(1024 * 1024);
    // With the operator's token the body is read, up to the limit.
    const oversized = await h.admin("POST", `${ADMIN}/tenants`, { name: "x".repeat(1024 * 1024) });
    expect(oversized.status).toBe(413);
  });

  it("429 with Retry-After once the API key's bucket is empty; other keys are unaffected", async () => {
    const slow = await seedTenant(uow, { id: "slow", rateLimit: { perSecond: 1, burst: 3 } });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await h.call(slow, "GET", `${TENANT}/customers/cus_${i}`, { advanceClock: false });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(last?.headers.get("Retry-After")).toBe("1");
    // An unknown route counts like any other request.
    expect((await h.call(slow, "GET", `${TENANT}/no-such-route`, { advanceClock: false })).status).toBe(429);
    expect(await last?.json()).toEqual({ error: "TooManyRequests", message: expect.any(String) });
    expect((await h.call(acme, "GET", `${TENANT}/customers/cus_x`, { advanceClock: false })).status).toBe(
      404,
    );
    h.clock.advanceMs(1000);
    expect((await h.call(slow, "GET", `${TENANT}/customers/cus_9`, { advanceClock: false })).status).toBe(
      404,
    );
  });

  it("X-Request-Id: echoed when valid, generated when absent or invalid, on every response", async () => {
    const echoed = await h.call(acme, "GET", `${TENANT}/customers/cus_1`, {
      headers: { "X-Request-Id": "abc.DEF:1-2_3" },
    });
    expect(echoed.headers.get("X-Request-Id")).toBe("abc.DEF:1-2_3");
    const generated = await h.call(acme, "GET", `${TENANT}/customers/cus_1`);
    const invalid = await h.call(acme, "GET", `${TENANT}/customers/cus_1`, {
      headers: { "X-Request-Id": "has space" },
    });
    const tooLong = await h.call(acme, "GET", `${TENANT}/customers/cus_1`, {
      headers: { "X-Request-Id": "x".repeat(129) },
    });
    for (const r of [generated, invalid, tooLong]) {
      expect(r.status).toBe(404);
      expect(r.headers.get("X-Request-Id")).toMatch(/^req_[0-9a-f-]{36}$/);
    }
    expect(generated.headers.get("X-Request-Id")).not.toBe(invalid.headers.get("X-Request-Id"));
    const unauthorized = await h.app.request(`${TENANT}/customers/cus_1`, {
      headers: { "X-Request-Id": "r-401" },
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("X-Request-Id")).toBe("r-401");
    for (const path of [`${TENANT}/nope`, "/elsewhere", `${TENANT}/health`]) {
      const res = await h.app.request(path, { headers: { "X-Request-Id": "r-any" } });
      expect(res.headers.get("X-Request-Id")).toBe("r-any");
    }
  });

  it("unknown routes and wrong methods are 404 with the error body; under the tenant API, to an authenticated caller only", async () => {
    const tenantTargets = [
      ["GET", `${TENANT}/nope`],
      ["DELETE", `${TENANT}/customers/cus_1`],
      ["PUT", `${TENANT}/wallet-credits`],
      ["POST", `${TENANT}/health`],
      ["GET", TENANT],
    ] as const;
    for (const [method, path] of tenantTargets) {
      // Unsigned: every tenant request but GET /health authenticates (spec), unknown ones too.
      const unsigned = await h.app.request(path, { method });
      expect(unsigned.status, `${method} ${path}`).toBe(401);
      const signed = await h.call(acme, method, path);
      expect(signed.status, `${method} ${path} signed`).toBe(404);
      expect(await signed.json()).toEqual({ error: "NotFound", message: "Route not found" });
    }
    for (const path of ["/", "/api/v1/other"]) {
      const res = await h.app.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: "NotFound", message: "Route not found" });
    }
  });

  it("GET /health answers without authentication, whatever its query (the spec gives it no 400)", async () => {
    for (const target of [
      `${TENANT}/health`,
      `${TENANT}/health?t=1732269600`,
      `${TENANT}/health?x=%ZZ&x=1`,
    ]) {
      const res = await h.app.request(target);
      expect(res.status, target).toBe(200);
      expect(await res.json()).toEqual({
        service: "wallet",
        status: "ok",
        timestamp: "2026-11-22T10:00:00.000Z",
      });
    }
  });

  const failing = (inner: UnitOfWork, error: () => Error): UnitOfWork => {
    const broken = (tx: Tx) =>
      ({
        ...tx,
        customers: {
          ...tx.customers,
          get: () => {
            throw error();
          },
        },
      }) as Tx;
    return {
      run: (work) => inner.run((tx) => work(broken(tx))),
      autocommit: (work) => inner.autocommit((tx) => work(broken(tx))),
    };
  };

  it("500 InternalError never leaks the message, stack or SQL; the log holds no message either", async () => {
    const broken = createHarness(
      failing(uow, () => new Error("select * from \"customers\" where value = '+254700'")),
    );
    const res = await broken.call(acme, "GET", `${TENANT}/customers/cus_1`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: "InternalError", message: "Internal error" });
    const logged = JSON.stringify(broken.logs);
    expect(logged).not.toContain("select");
    expect(logged).not.toContain("+254700");
    expect(broken.logs.some((l) => l.level === "error")).toBe(true);
  });

  it("503 ServiceUnavailable when the store is unreachable", async () => {
    const down = createHarness(failing(uow, () => new StoreUnavailableError("connection refused 10.0.0.5")));
    const res = await down.call(acme, "GET", `${TENANT}/customers/cus_1`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ error: "ServiceUnavailable", message: expect.any(String) });
    const unreachable = createHarness({
      run: () => Promise.reject(new StoreUnavailableError("down")),
      autocommit: () => Promise.reject(new StoreUnavailableError("down")),
    });
    expect((await unreachable.call(acme, "GET", `${TENANT}/customers/cus_1`)).status).toBe(503);
  });

  it("logs one line per request: ids, tenant, method, route pattern, status, latency; never secrets or PII", async () => {
    const res = await h.call(acme, "POST", CUSTOMERS, {
      body: onboardingBody(),
      headers: { "X-Request-Id": "log-1" },
    });
    expect(res.status).toBe(201);
    const { walletUid } = (await res.json()) as { walletUid: string };
    await h.call(acme, "GET", `${TENANT}/wallets/${walletUid}/balance`, {
      headers: { "X-Request-Id": "log-2" },
    });
    await h.app.request(`${TENANT}/customers/cus_1`, { headers: { "X-Request-Id": "log-3" } });
    const lines = h.logs.filter((l) => l.level === "info").map((l) => l.obj);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toEqual({
      requestId: "log-1",
      tenantId: "acme",
      method: "POST",
      route: "/api/v1/tenant/customers",
      status: 201,
      latencyMs: expect.any(Number),
    });
    expect(lines[1]).toMatchObject({ route: "/api/v1/tenant/wallets/{uid}/balance", status: 200 });
    expect(lines[2]).toMatchObject({ requestId: "log-3", tenantId: null, status: 401 });
    const all = JSON.stringify(h.logs);
    for (const secret of [acme.apiKey, "712345678", walletUid, "Wanjiru", "12345678"])
      expect(all).not.toContain(secret);
  });
});
