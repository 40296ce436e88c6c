import { createMemoryStore } from "@wallet/ledger-core/memory";
import { beforeAll, describe, expect, it } from "vitest";
import { TENANT_API_BASE as TENANT } from "../../src/index.js";
import {
  type Harness,
  newKey,
  type SeededTenant,
  type SignInput,
  seedTenant,
  signHeaders,
  signHeadersWithNodeCrypto,
  type TenantKey,
} from "../support/fixture.js";
import {
  createFuzzWorld,
  expectWellFormedAnswer,
  type FuzzWorld,
  worldSnapshot,
} from "./support/fuzz-world.js";

/**
 * Attacks on the signature rather than the payload, in-process (the raw-socket ones, CR/LF in
 * headers and unnormalized request lines, are in packages/server/test/reliability/wire-attacks):
 * replays, swapped key ids, keys of another tenant, duplicated auth headers, timestamps out of
 * shape or window, tampered bodies, re-ordered or re-encoded queries, dot segments and double
 * slashes. Each is refused with the byte-identical 401 (or a 400/404 for a path that is not a
 * route), never a 5xx, and creates nothing.
 */
describe("signature-level attacks", () => {
  let world: FuzzWorld;
  let h: Harness;
  let t: SeededTenant;
  let other: SeededTenant;
  const k2 = newKey("k2");
  const revoked = newKey("k3");
  const expired = newKey("k4");
  let creditBody: string;

  beforeAll(async () => {
    const { uow } = createMemoryStore();
    world = await createFuzzWorld(uow);
    h = world.h;
    t = world.tenant;
    await uow.run(async (tx) => {
      for (const [key, status, expiresAt] of [
        [k2, "active", null],
        [revoked, "revoked", null],
        [expired, "active", "2026-01-01T00:00:00.000Z"],
      ] as const) {
        await tx.tenants.addSigningKey({
          tenantId: t.tenant.id,
          kid: key.kid,
          publicKeyPem: key.publicKeyPem,
          status,
          expiresAt,
          createdAt: "2026-01-01T00:00:00.000Z",
        });
      }
    });
    other = await seedTenant(uow, { id: "other" });
    creditBody = JSON.stringify({
      walletUid: world.ids.walletUid,
      amountMinor: 100,
      currency: "KES",
      clientReference: "attack",
    });
  });

  const CREDITS = `${TENANT}/wallet-credits`;

  /** Sends a request whose headers the attack builds; checks the answer and that nothing changed. */
  async function attack(
    name: string,
    build: () => { method: string; path: string; headers: Headers; body?: string },
    allowed: number[] = [401],
  ) {
    const before = await worldSnapshot(h.uow, t.tenant.id);
    h.clock.advanceMs(1000);
    const { method, path, headers, body } = build();
    const res = await h.app.request(
      path,
      { method, headers, body: body ?? null },
      { incoming: { socket: { remoteAddress: "127.0.0.1" } } },
    );
    await expectWellFormedAnswer(res, name);
    expect(allowed, `${name}: ${res.status}`).toContain(res.status);
    expect(await worldSnapshot(h.uow, t.tenant.id), `${name} created something`).toBe(before);
  }

  const signed = (
    input: Partial<SignInput> & { method: string; pathAndQuery: string; body?: string },
    extra: Record<string, string> = {},
  ) => {
    const headers = new Headers({
      "Content-Type": "application/json",
      ...signHeaders({
        apiKey: t.apiKey,
        key: t.key,
        timestamp: h.nowSeconds(),
        body: input.body ?? "",
        ...input,
      } as SignInput),
      ...extra,
    });
    return headers;
  };
  const write = (key = `atk-${Math.random()}`) => ({ "Idempotency-Key": key });

  it("the genuine request works (the attacks below differ from it in one thing each)", async () => {
    h.clock.advanceMs(1000);
    const headers = signed({ method: "POST", pathAndQuery: CREDITS, body: creditBody }, write("genuine"));
    const res = await h.app.request(CREDITS, { method: "POST", headers, body: creditBody });
    expect(res.status, await res.clone().text()).toBe(201);
  });

  it("refuses a replayed signature, to the same route or another", async () => {
    h.clock.advanceMs(1000);
    const body = creditBody.replace("attack", "replayed");
    const headers = signed({ method: "POST", pathAndQuery: CREDITS, body }, write("replay-1"));
    expect((await h.app.request(CREDITS, { method: "POST", headers, body })).status).toBe(201);
    await attack("same request again, new key", () => {
      headers.set("Idempotency-Key", "replay-2");
      return { method: "POST", path: CREDITS, headers, body: body.replace("replayed", "replayed-2") };
    });
    await attack("same signature on a GET", () => ({ method: "GET", path: `${TENANT}/operations`, headers }));
  });

  it("refuses swapped, unknown, revoked, expired and foreign key ids", async () => {
    const cases: [string, (i: SignInput) => Record<string, string>][] = [
      ["signed by k2, sent as k1", (i) => ({ ...signHeaders({ ...i, key: k2 }), "X-Key-Id": "k1" })],
      ["signed by k1, sent as k2", (i) => ({ ...signHeaders(i), "X-Key-Id": "k2" })],
      ["unknown kid", (i) => ({ ...signHeaders(i), "X-Key-Id": "nope" })],
      ["revoked key", (i) => signHeaders({ ...i, key: revoked })],
      ["expired key", (i) => signHeaders({ ...i, key: expired })],
      ["another tenant's key with this api key", (i) => signHeaders({ ...i, key: other.key })],
      ["this key with another tenant's api key", (i) => signHeaders({ ...i, apiKey: other.apiKey })],
      ["a random key under kid k1", (i) => signHeaders({ ...i, key: { ...newKey("k1") } as TenantKey })],
    ];
    for (const [name, sign] of cases) {
      await attack(name, () => {
        const headers = new Headers({
          "Content-Type": "application/json",
          ...write(),
          ...sign({
            method: "POST",
            pathAndQuery: CREDITS,
            body: creditBody,
            apiKey: t.apiKey,
            key: t.key,
            timestamp: h.nowSeconds(),
          }),
        });
        return { method: "POST", path: CREDITS, headers, body: creditBody };
      });
    }
  });

  it("refuses duplicated or padded authentication headers", async () => {
    const base = () => signed({ method: "POST", pathAndQuery: CREDITS, body: creditBody }, write());
    const mutations: [string, (hs: Headers) => void][] = [
      ["X-Signature twice", (hs) => hs.append("X-Signature", hs.get("X-Signature") ?? "")],
      ["X-Api-Key twice", (hs) => hs.append("X-Api-Key", other.apiKey)],
      ["X-Key-Id twice", (hs) => hs.append("X-Key-Id", "k2")],
      ["X-Timestamp twice", (hs) => hs.append("X-Timestamp", hs.get("X-Timestamp") ?? "")],
      ["X-Signature padded", (hs) => hs.set("X-Signature", ` ${hs.get("X-Signature")}x`)],
      ["X-Signature not base64", (hs) => hs.set("X-Signature", "!!!!")],
      ["X-Signature empty", (hs) => hs.set("X-Signature", "")],
      ["X-Api-Key missing", (hs) => hs.delete("X-Api-Key")],
    ];
    for (const [name, mutate] of mutations) {
      await attack(name, () => {
        const headers = base();
        mutate(headers);
        return { method: "POST", path: CREDITS, headers, body: creditBody };
      });
    }
  });

  it("refuses timestamps out of the window or out of shape", async () => {
    const now = () => Number(h.nowSeconds());
    const stamps: [string, () => string][] = [
      ["301 s ahead", () => String(now() + 301)],
      ["301 s behind", () => String(now() - 301)],
      ["milliseconds", () => `${now()}000`],
      ["signed", () => `+${now()}`],
      ["negative", () => `-${now()}`],
      ["exponent", () => "1.7e9"],
      ["fraction", () => `${now()}.5`],
      ["zero", () => "0"],
      ["leading zeros", () => `000${now()}`],
    ];
    for (const [name, stamp] of stamps) {
      await attack(`timestamp ${name}`, () => {
        // node:crypto signs any timestamp string; the SDK refuses to sign a malformed one.
        const auth = signHeadersWithNodeCrypto({
          method: "POST",
          pathAndQuery: CREDITS,
          body: creditBody,
          apiKey: t.apiKey,
          key: t.key,
          timestamp: stamp(),
        });
        const headers = new Headers({ "Content-Type": "application/json", ...auth, ...write() });
        return { method: "POST", path: CREDITS, headers, body: creditBody };
      });
    }
  });

  it("refuses a tampered body, method or path", async () => {
    await attack("body changed after signing", () => ({
      method: "POST",
      path: CREDITS,
      headers: signed({ method: "POST", pathAndQuery: CREDITS, body: creditBody }, write()),
      body: creditBody.replace('"amountMinor":100', '"amountMinor":100000'),
    }));
    await attack("trailing whitespace added", () => ({
      method: "POST",
      path: CREDITS,
      headers: signed({ method: "POST", pathAndQuery: CREDITS, body: creditBody }, write()),
      body: `${creditBody} `,
    }));
    await attack("signed as PATCH, sent as POST", () => ({
      method: "POST",
      path: CREDITS,
      headers: signed({ method: "PATCH", pathAndQuery: CREDITS, body: creditBody }, write()),
      body: creditBody,
    }));
    await attack("signed for another route", () => ({
      method: "POST",
      path: CREDITS,
      headers: signed({ method: "POST", pathAndQuery: `${TENANT}/payouts`, body: creditBody }, write()),
      body: creditBody,
    }));
  });

  it("binds the exact path and query: re-ordered, re-encoded, dot segments, double slashes", async () => {
    const customer = `${TENANT}/customers/${world.ids.customerUid}`;
    const list = `${TENANT}/operations`;
    const tricks: [string, string, string, number[]][] = [
      // [name, signed path, sent path, allowed statuses]
      ["query re-ordered", `${list}?limit=5&page=1`, `${list}?page=1&limit=5`, [401]],
      ["query re-encoded", `${list}?type=wallet_credit`, `${list}?type=wallet%5Fcredit`, [401]],
      ["path re-encoded", customer, customer.replace("cus_", "cus%5F"), [401]],
      [
        "dot segment",
        `${TENANT}/wallets/../customers/${world.ids.customerUid}`,
        `${TENANT}/wallets/../customers/${world.ids.customerUid}`,
        [401, 404],
      ],
      [
        "encoded dot segment",
        `${TENANT}/wallets/%2e%2e/customers/${world.ids.customerUid}`,
        `${TENANT}/wallets/%2e%2e/customers/${world.ids.customerUid}`,
        [401, 404],
      ],
      [
        "encoded slash in a parameter",
        `${TENANT}/customers/${world.ids.customerUid}%2Fidentifiers`,
        `${TENANT}/customers/${world.ids.customerUid}%2Fidentifiers`,
        [404],
      ],
      [
        "double slash",
        `${TENANT}//customers/${world.ids.customerUid}`,
        `${TENANT}//customers/${world.ids.customerUid}`,
        [401, 404],
      ],
      ["trailing slash", `${customer}/`, `${customer}/`, [401, 404]],
      ["duplicated single-valued parameter", `${list}?limit=1&limit=2`, `${list}?limit=1&limit=2`, [400]],
      ["query added after signing", list, `${list}?limit=1`, [401]],
      ["fragment", `${customer}#x`, `${customer}#x`, [200, 401]],
    ];
    for (const [name, signedPath, sentPath, allowed] of tricks) {
      await attack(
        name,
        () => ({
          method: "GET",
          path: sentPath,
          headers: signed({ method: "GET", pathAndQuery: signedPath }),
        }),
        allowed,
      );
    }
  });
});
