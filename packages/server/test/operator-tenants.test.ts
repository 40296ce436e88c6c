import { createHash, generateKeyPairSync } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { clientOf, databases, e2eConfig, k1, type SigningIdentity, start } from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

function newIdentity(kid: string): SigningIdentity & { publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    apiKey: k1.apiKey,
    kid,
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

describe.each(databases)("operator tenant changes over HTTP on $name", ({ url, skip }) => {
  it.skipIf(skip)("rotates webhook secrets twice within one millisecond", async () => {
    const frozen = new Date("2026-11-22T10:00:00.000Z");
    const server = await start(e2eConfig(), await url(cleanups), { clock: { now: () => new Date(frozen) } });
    try {
      const client = clientOf(server.url);
      const first = await client.admin("POST", "/tenants/acme/webhook/secrets");
      const second = await client.admin("POST", "/tenants/acme/webhook/secrets");
      expect(first.status, first.text).toBe(201);
      expect(second.status, second.text).toBe(201);
      const a = (await first.json()) as { kid: string; createdAt: string };
      const b = (await second.json()) as { kid: string; createdAt: string };
      expect(a.createdAt).toBe("2026-11-22T10:00:00.000Z");
      expect(b.createdAt).toBe("2026-11-22T10:00:00.001Z");
      expect(b.kid).not.toBe(a.kid);
      const tenant = (await (await client.admin("GET", "/tenants/acme")).json()) as {
        webhook: { secretKids: { kid: string }[] };
      };
      expect(tenant.webhook.secretKids.map((s) => s.kid)).toEqual([a.kid, b.kid]);
      expect((await client.admin("GET", "/tenants/nobody")).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it.skipIf(skip)(
    "rotates a signing key (both kids work, a revoked kid is refused at once) and keeps it across a restart",
    async () => {
      const databaseUrl = await url(cleanups);
      const k2 = newIdentity("k2");
      let server = await start(e2eConfig(), databaseUrl);
      try {
        const client = clientOf(server.url);
        expect((await client.call("GET", "/operations")).status).toBe(200);

        const added = await client.admin("POST", "/tenants/acme/signing-keys", {
          kid: "k2",
          publicKeyPem: k2.publicKeyPem,
        });
        expect(added.status, added.text).toBe(201);
        expect(await added.json()).toMatchObject({ tenantId: "acme", kid: "k2", status: "active" });
        // The overlap: both kids sign valid requests.
        expect((await client.call("GET", "/operations", undefined, k1)).status).toBe(200);
        expect((await client.call("GET", "/operations", undefined, k2)).status).toBe(200);
        expect(
          (
            await client.admin("POST", "/tenants/acme/signing-keys", {
              kid: "k2",
              publicKeyPem: k2.publicKeyPem,
            })
          ).status,
        ).toBe(409);

        const revoked = await client.admin("POST", "/tenants/acme/signing-keys/k1/revoke");
        expect(revoked.status, revoked.text).toBe(200);
        expect(await revoked.json()).toMatchObject({ kid: "k1", status: "revoked" });
        expect((await client.call("GET", "/operations", undefined, k1)).status).toBe(401);
        expect((await client.call("GET", "/operations", undefined, k2)).status).toBe(200);
      } finally {
        await server.close();
      }

      // The config still lists k1 as active: seeding must not re-activate it, and k2 stays.
      server = await start(e2eConfig(), databaseUrl);
      try {
        const client = clientOf(server.url);
        expect((await client.call("GET", "/operations", undefined, k1)).status).toBe(401);
        expect((await client.call("GET", "/operations", undefined, k2)).status).toBe(200);
      } finally {
        await server.close();
      }
    },
  );

  it.skipIf(skip)(
    "revokes an API key the config file still lists, for good: a restart does not revive it",
    async () => {
      const databaseUrl = await url(cleanups);
      let server = await start(e2eConfig(), databaseUrl);
      let fresh: SigningIdentity;
      try {
        const client = clientOf(server.url);
        const created = await client.admin("POST", "/tenants/acme/api-keys");
        expect(created.status, created.text).toBe(201);
        fresh = { ...k1, apiKey: ((await created.json()) as { key: string }).key };
        const sha256 = createHash("sha256").update(k1.apiKey, "utf8").digest("hex");
        const revoked = await client.admin("POST", `/tenants/acme/api-keys/${sha256}/revoke`);
        expect(revoked.status, revoked.text).toBe(200);
        expect((await client.call("GET", "/operations", undefined, k1)).status).toBe(401);
        expect((await client.call("GET", "/operations", undefined, fresh)).status).toBe(200);
      } finally {
        await server.close();
      }
      server = await start(e2eConfig(), databaseUrl);
      try {
        const client = clientOf(server.url);
        expect((await client.call("GET", "/operations", undefined, k1)).status).toBe(401);
        expect((await client.call("GET", "/operations", undefined, fresh)).status).toBe(200);
      } finally {
        await server.close();
      }
    },
  );

  it.skipIf(skip)(
    "suspends (401) and resumes a tenant, narrows its scopes (403), and keeps it across a restart",
    async () => {
      const databaseUrl = await url(cleanups);
      let server = await start(e2eConfig(), databaseUrl);
      try {
        const client = clientOf(server.url);
        const suspended = await client.admin("PATCH", "/tenants/acme", { status: "suspended" });
        expect(suspended.status, suspended.text).toBe(200);
        expect(suspended.text).not.toContain("whsec");
        expect(suspended.text).not.toContain(k1.apiKey);
        expect((await client.call("GET", "/operations")).status).toBe(401);

        expect((await client.admin("PATCH", "/tenants/acme", { status: "active" })).status).toBe(200);
        expect((await client.call("GET", "/operations")).status).toBe(200);

        const narrowed = await client.admin("PATCH", "/tenants/acme", { scopes: ["customers:read"] });
        expect(await narrowed.json()).toMatchObject({ status: "active", scopes: ["customers:read"] });
        expect((await client.call("GET", "/operations")).status).toBe(403);
      } finally {
        await server.close();
      }

      // The file says every scope; the operator's narrowing wins over the file at the next start.
      server = await start(e2eConfig(), databaseUrl);
      try {
        const client = clientOf(server.url);
        expect((await client.call("GET", "/operations")).status).toBe(403);
        expect((await client.admin("PATCH", "/tenants/acme", { scopes: ["operations:read"] })).status).toBe(
          200,
        );
        expect((await client.call("GET", "/operations")).status).toBe(200);
      } finally {
        await server.close();
      }
    },
  );
});
