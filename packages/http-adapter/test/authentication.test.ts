import { createMemoryStore } from "@wallet/ledger-core/memory";
import { beforeEach, describe, expect, it } from "vitest";
import { forwardedClientIp, UNAUTHORIZED_BODY } from "../src/index.js";
import { CREDENTIALS_MAX_AGE_MS } from "../src/middleware/authenticate.js";
import {
  createHarness,
  type Harness,
  newKey,
  type SeededTenant,
  START,
  seedTenant,
  signHeadersWithNodeCrypto,
  TENANT,
  type TenantKey,
} from "./support/fixture.js";

/** A route that answers 404 once authenticated: a 401 here can only come from authentication. */
const PROBE = `${TENANT}/customers/cus_missing`;

async function expectUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(await res.text()).toBe(UNAUTHORIZED_BODY);
  expect(res.headers.get("Content-Type")).toContain("application/json");
  expect(res.headers.get("X-Request-Id")).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
}

async function expectAuthenticated(res: Response) {
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({ error: "NotFound", message: "Customer not found" });
}

describe("authentication (spec, Authentication): every failure is one identical 401", () => {
  let h: Harness;
  let acme: SeededTenant;
  let revoked: TenantKey;
  let expired: TenantKey;
  let expiring: TenantKey;

  beforeEach(async () => {
    const { uow } = createMemoryStore();
    h = createHarness(uow);
    revoked = newKey("k-revoked");
    expired = newKey("k-expired");
    expiring = newKey("k-expiring");
    acme = await seedTenant(uow, {
      id: "acme",
      extraKeys: [
        { key: revoked, status: "revoked", expiresAt: null },
        { key: expired, status: "active", expiresAt: "2026-11-22T09:59:59.000Z" },
        { key: expiring, status: "active", expiresAt: "2026-11-23T00:00:00.000Z" },
      ],
    });
  });

  it("accepts a request signed by the client SDK, and one signed independently with node:crypto", async () => {
    await expectAuthenticated(await h.call(acme, "GET", PROBE));
    await expectAuthenticated(await h.call(acme, "GET", PROBE, { signer: signHeadersWithNodeCrypto }));
    const body = JSON.stringify({
      walletUid: "wal_none",
      amountMinor: 100,
      currency: "KES",
      clientReference: "\u00d1and\u00fa \ud83d\ude00",
    });
    const viaNode = await h.call(acme, "POST", `${TENANT}/wallet-credits`, {
      rawBody: body,
      signer: signHeadersWithNodeCrypto,
    });
    expect(viaNode.status).toBe(404);
  });

  it.each(["X-Api-Key", "X-Key-Id", "X-Timestamp", "X-Signature"])(
    "refuses a request without %s",
    async (header) => {
      await expectUnauthorized(await h.call(acme, "GET", PROBE, { omit: [header] }));
    },
  );

  it("refuses a timestamp more than 300 s in the past or the future, accepts one at 300 s", async () => {
    // An explicit timestamp leaves the clock where it is.
    const now = Number(h.nowSeconds());
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { timestamp: String(now - 301) }));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { timestamp: String(now + 301) }));
    await expectAuthenticated(await h.call(acme, "GET", PROBE, { timestamp: String(now - 300) }));
    await expectAuthenticated(await h.call(acme, "GET", PROBE, { timestamp: String(now + 300) }));
  });

  it("measures the skew in whole seconds, as the timestamp is: the window is the same both ways within a second", async () => {
    const seconds = Math.floor(new Date(START).getTime() / 1000) + 10;
    h.clock.set(new Date(seconds * 1000 + 999));
    const at = (ts: number) => ({ timestamp: String(ts), advanceClock: false }) as const;
    await expectAuthenticated(await h.call(acme, "GET", PROBE, at(seconds - 300)));
    await expectAuthenticated(await h.call(acme, "GET", PROBE, at(seconds + 300)));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, at(seconds - 301)));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, at(seconds + 301)));
  });

  it("refuses a millisecond timestamp and one that is not digits only", async () => {
    h.clock.advanceMs(1000);
    const seconds = Math.floor(h.clock.now().getTime() / 1000);
    // The SDK refuses to sign a malformed timestamp, so these are signed with node:crypto.
    const opts = { advanceClock: false, signer: signHeadersWithNodeCrypto } as const;
    await expectUnauthorized(
      await h.call(acme, "GET", PROBE, { ...opts, timestamp: String(h.clock.now().getTime()) }),
    );
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { ...opts, timestamp: `${seconds}.0` }));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { ...opts, timestamp: `+${seconds}` }));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { ...opts, timestamp: ` ${seconds}x` }));
  });

  it("refuses an unknown API key", async () => {
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { apiKey: "sk_test_unknown" }));
  });

  it("refuses an unknown kid, a revoked kid and an expired kid; accepts a key before its expiry", async () => {
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { key: newKey("k-unknown") }));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { key: revoked }));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { key: expired }));
    await expectAuthenticated(await h.call(acme, "GET", PROBE, { key: expiring }));
    h.clock.set("2026-11-23T00:00:00.000Z");
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { key: expiring }));
  });

  it("refuses a kid of another tenant", async () => {
    const other = await seedTenant(h.uow, { id: "globex" });
    // acme's API key with globex's key material under a kid acme does not have.
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { key: { ...other.key, kid: "k-globex" } }));
  });

  it("refuses every request of a suspended tenant", async () => {
    const suspended = await seedTenant(h.uow, { id: "sleepy", status: "suspended" });
    await expectUnauthorized(await h.call(suspended, "GET", PROBE));
  });

  it("refuses a bad signature: wrong key, garbage, truncated, non-canonical base64", async () => {
    const impostor = { ...newKey("k1") };
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { key: impostor }));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { headers: { "X-Signature": "not-base64!" } }));
    await expectUnauthorized(
      await h.call(acme, "GET", PROBE, { headers: { "X-Signature": "A".repeat(86) } }),
    );
    await expectUnauthorized(
      await h.call(acme, "GET", PROBE, { headers: { "X-Signature": `${"A".repeat(85)}B==` } }),
    );
  });

  it("refuses a body changed after signing", async () => {
    const signed = JSON.stringify({
      walletUid: "wal_x",
      amountMinor: 100,
      currency: "KES",
      clientReference: "cr",
    });
    const sent = JSON.stringify({
      walletUid: "wal_x",
      amountMinor: 100000,
      currency: "KES",
      clientReference: "cr",
    });
    await expectUnauthorized(
      await h.call(acme, "POST", `${TENANT}/wallet-credits`, { rawBody: sent, signedBody: signed }),
    );
    // Same JSON value, different bytes: still refused, the signature covers bytes.
    await expectUnauthorized(
      await h.call(acme, "POST", `${TENANT}/wallet-credits`, { rawBody: `${signed} `, signedBody: signed }),
    );
  });

  it("refuses a query changed or re-ordered after signing", async () => {
    await expectUnauthorized(await h.call(acme, "GET", `${PROBE}?a=2`, { signedPath: `${PROBE}?a=1` }));
    await expectUnauthorized(
      await h.call(acme, "GET", `${PROBE}?b=2&a=1`, { signedPath: `${PROBE}?a=1&b=2` }),
    );
    await expectUnauthorized(await h.call(acme, "GET", PROBE, { signedPath: `${PROBE}?a=1` }));
    // The query is signed as sent (strict validation then refuses the unknown parameter).
    const res = await h.call(acme, "GET", `${PROBE}?b=2&a=1`);
    expect(res.status).toBe(400);
  });

  it("refuses a replayed signature, even after the first request was answered", async () => {
    const timestamp = String(Math.floor(new Date(START).getTime() / 1000) + 5);
    h.clock.set(new Date(Number(timestamp) * 1000));
    const opts = { timestamp, advanceClock: false } as const;
    await expectAuthenticated(await h.call(acme, "GET", PROBE, opts));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, opts));
    // A retry with a fresh timestamp is a new signature.
    await expectAuthenticated(await h.call(acme, "GET", PROBE));
  });

  it("refuses the replay of a signature dated at the edge of the skew, up to the last instant it is acceptable", async () => {
    // Dated 300 s ahead: acceptable from now until the last millisecond of second now + 600.
    const nowSeconds = Math.floor(new Date(START).getTime() / 1000) + 5;
    h.clock.set(new Date(nowSeconds * 1000));
    const opts = { timestamp: String(nowSeconds + 300), advanceClock: false } as const;
    await expectAuthenticated(await h.call(acme, "GET", PROBE, opts));
    h.clock.set(new Date((nowSeconds + 600) * 1000));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, opts));
    h.clock.set(new Date((nowSeconds + 601) * 1000 - 1));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, opts));
    h.clock.set(new Date((nowSeconds + 601) * 1000));
    await expectUnauthorized(await h.call(acme, "GET", PROBE, opts));
  });

  /**
   * A signed POST /wallet-credits whose body `{}` arrives only after `whileTheBodyArrives` ran:
   * the headers are judged (and the credentials read) first. Authenticated, it answers 400 (the
   * body is no credit).
   */
  const sendWithSlowBody = async (
    idempotencyKey: string,
    whileTheBodyArrives: () => Promise<void> | void,
  ) => {
    const path = `${TENANT}/wallet-credits`;
    const text = "{}";
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await gate;
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    h.clock.advanceMs(1000); // a fresh timestamp: the signature (the same body) is no replay
    const headers = signHeadersWithNodeCrypto({
      method: "POST",
      pathAndQuery: path,
      body: text,
      apiKey: acme.apiKey,
      key: acme.key,
      timestamp: h.nowSeconds(),
    });
    const answer = h.app.request(
      path,
      {
        method: "POST",
        body,
        duplex: "half",
        headers: { ...headers, "Content-Type": "application/json", "Idempotency-Key": idempotencyKey },
      } as RequestInit,
      { incoming: { socket: { remoteAddress: "127.0.0.1" } } },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await whileTheBodyArrives();
    release();
    return answer;
  };

  it("judges the timestamp again once the body has arrived: a slow body cannot carry it past the skew", async () => {
    const send = (seconds: number) =>
      sendWithSlowBody(`slow-${seconds}`, () => h.clock.advanceMs(seconds * 1000));
    expect((await send(1)).status).toBe(400);
    await expectUnauthorized(await send(301));
  });

  it("reads the credentials again once a slow body has arrived: a key revoked, a tenant suspended or a scope removed meanwhile applies", async () => {
    const meanwhile = (change: () => Promise<void>) => async () => {
      h.clock.advanceMs(CREDENTIALS_MAX_AGE_MS + 1);
      await change();
    };
    // Nothing changed: authenticated after a second read.
    expect(
      (
        await sendWithSlowBody(
          "nothing",
          meanwhile(async () => {}),
        )
      ).status,
    ).toBe(400);
    const scopesBefore = acme.tenant.scopes;
    const narrowed = await sendWithSlowBody(
      "narrowed",
      meanwhile(() =>
        h.uow.run((tx) =>
          tx.tenants.upsert({
            ...acme.tenant,
            scopes: scopesBefore.filter((s) => s !== "wallet-credits:write"),
          }),
        ),
      ),
    );
    expect(narrowed.status).toBe(403);
    await h.uow.run((tx) => tx.tenants.upsert({ ...acme.tenant, scopes: scopesBefore }));
    const suspended = await sendWithSlowBody(
      "suspended",
      meanwhile(() => h.uow.run((tx) => tx.tenants.upsert({ ...acme.tenant, status: "suspended" }))),
    );
    await expectUnauthorized(suspended);
    await h.uow.run((tx) => tx.tenants.upsert({ ...acme.tenant, status: "active" }));
    const revokedMeanwhile = await sendWithSlowBody(
      "revoked",
      meanwhile(() => h.uow.run((tx) => tx.tenants.setSigningKeyStatus("acme", acme.key.kid, "revoked"))),
    );
    await expectUnauthorized(revokedMeanwhile);
  });

  it("a forged request carrying a genuine signature does not burn it", async () => {
    const timestamp = h.nowSeconds();
    // The attacker replays the genuine signature on another path first: refused, not remembered...
    await expectUnauthorized(
      await h.call(acme, "GET", `${TENANT}/customers/cus_other`, { timestamp, signedPath: PROBE }),
    );
    // ...so the genuine request, arriving second, still goes through.
    await expectAuthenticated(await h.call(acme, "GET", PROBE, { timestamp }));
  });

  describe("IP allowlist", () => {
    let fenced: SeededTenant;
    beforeEach(async () => {
      fenced = await seedTenant(h.uow, {
        id: "fenced",
        ipAllowlist: ["10.0.0.0/8", "2001:db8::/32", "192.0.2.7"],
      });
    });

    it.each([
      ["10.1.2.3"],
      ["::ffff:10.1.2.3"],
      ["2001:db8::5"],
      ["2001:db8:ffff::1"],
      ["192.0.2.7"],
      ["::ffff:192.0.2.7"],
    ])("admits %s", async (remoteAddress) => {
      await expectAuthenticated(await h.call(fenced, "GET", PROBE, { remoteAddress }));
    });

    it.each([["11.0.0.1"], ["::ffff:11.0.0.1"], ["192.0.2.8"], ["2001:db9::1"], ["::1"], ["not-an-address"]])(
      "refuses %s",
      async (remoteAddress) => {
        await expectUnauthorized(await h.call(fenced, "GET", PROBE, { remoteAddress }));
      },
    );

    it("refuses when the client address is unknown", async () => {
      const blind = createHarness(h.uow, { clientIp: () => undefined });
      await expectUnauthorized(await blind.call(fenced, "GET", PROBE));
    });

    it("behind trusted proxies, reads X-Forwarded-For from the right, never what the client wrote left of it", async () => {
      // The balancer is 172.16.0.0/12; the tenant allows 10.0.0.0/8 among others.
      const behind = createHarness(h.uow, { clientIp: forwardedClientIp(["172.16.0.0/12"]) });
      const call = (remoteAddress: string, forwarded?: string) =>
        behind.call(fenced, "GET", PROBE, {
          remoteAddress,
          ...(forwarded === undefined ? {} : { headers: { "X-Forwarded-For": forwarded } }),
        });
      await expectAuthenticated(await call("172.16.0.5", "10.1.2.3"));
      // A chain of trusted proxies is skipped; the first untrusted address from the right counts.
      await expectAuthenticated(await call("172.16.0.5", "8.8.8.8, 10.1.2.3, 172.16.9.9"));
      // A client writing an allowed address in front of its own is its own address, not that one.
      await expectUnauthorized(await call("172.16.0.5", "10.1.2.3, 8.8.8.8"));
      // Not from a trusted proxy: the header is anybody's and is ignored.
      await expectUnauthorized(await call("8.8.8.8", "10.1.2.3"));
      await expectAuthenticated(await call("10.1.2.3", "8.8.8.8"));
      // The balancer itself, with no header: its own address.
      await expectUnauthorized(await call("172.16.0.5"));
    });

    it("uses deps.clientIp when given (a trusted proxy's header)", async () => {
      const proxied = createHarness(h.uow, { clientIp: (c) => c.req.header("X-Forwarded-For") });
      await expectAuthenticated(
        await proxied.call(fenced, "GET", PROBE, { headers: { "X-Forwarded-For": "10.9.9.9" } }),
      );
      await expectUnauthorized(
        await proxied.call(fenced, "GET", PROBE, { headers: { "X-Forwarded-For": "8.8.8.8" } }),
      );
    });
  });

  it("answers every cause with the same bytes", async () => {
    const bodies = new Set<string>();
    const responses = [
      await h.call(acme, "GET", PROBE, { omit: ["X-Signature"] }),
      await h.call(acme, "GET", PROBE, { apiKey: "nope" }),
      await h.call(acme, "GET", PROBE, { key: revoked }),
      await h.call(acme, "GET", PROBE, { key: newKey("k1") }),
      await h.call(acme, "GET", PROBE, { timestamp: "1" }),
    ];
    for (const r of responses) {
      expect(r.status).toBe(401);
      bodies.add(await r.text());
    }
    expect([...bodies]).toEqual([UNAUTHORIZED_BODY]);
  });

  it("checks authentication before scopes, and scopes before the body (401 -> 403 -> 400)", async () => {
    const reader = await seedTenant(h.uow, { id: "reader", scopes: ["customers:read"] });
    const invalid = { amountMinor: "lots" };
    await expectUnauthorized(
      await h.call(reader, "POST", `${TENANT}/wallet-credits`, { body: invalid, apiKey: "x" }),
    );
    const forbidden = await h.call(reader, "POST", `${TENANT}/wallet-credits`, { body: invalid });
    expect(forbidden.status).toBe(403);
    const body = (await forbidden.json()) as { error: string; message: string };
    expect(body.error).toBe("Forbidden");
    expect(JSON.stringify(body)).not.toMatch(/wallet-credits:write|scope/i);
    const ok = await h.call(acme, "POST", `${TENANT}/wallet-credits`, { body: invalid });
    expect(ok.status).toBe(400);
  });
});
