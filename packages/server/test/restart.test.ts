import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signRequest } from "@wallet/client";
import { createFreshPostgresDatabase, postgresUrlFor } from "@wallet/persistence";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/index.js";
import { piiKeyRing } from "../src/crypto/index.js";
import { startServer } from "../src/server/start-server.js";
import { designExample, testPrivateKeyPem } from "./fixtures.js";

const pgUrl = postgresUrlFor("restart test");

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const dialects: { name: string; url: () => Promise<string>; skip: boolean }[] = [
  {
    name: "sqlite",
    url: async () => `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-restart-")), "wallet.db")}`,
    skip: false,
  },
  {
    name: "postgres",
    url: async () => {
      const fresh = await createFreshPostgresDatabase(pgUrl ?? "");
      cleanups.push(() => fresh.drop());
      return fresh.url;
    },
    skip: pgUrl === null,
  },
];

/** A signed GET of the tenant API with the fixture's sandbox key. */
async function signedGet(baseUrl: string, path: string): Promise<number> {
  const headers = signRequest({
    method: "GET",
    pathAndQuery: path,
    apiKey: "sandbox-key-acme-0001",
    kid: "k1",
    privateKey: testPrivateKeyPem,
  });
  const response = await fetch(`${baseUrl}${path}`, { headers });
  await response.arrayBuffer();
  return response.status;
}

describe.each(dialects)("restart against $name", ({ url, skip }) => {
  it.skipIf(skip)(
    "re-seeds without undoing an operator change, and follows the file for config-owned fields",
    async () => {
      const databaseUrl = await url();
      const piiKeys = piiKeyRing(randomBytes(32).toString("base64"));
      const first = await startServer({
        config: parseConfig(designExample()),
        databaseUrl,
        piiKeys,
        port: 0,
      });
      try {
        expect(await signedGet(first.url, "/api/v1/tenant/openapi.json")).toBe(200);
        // What PATCH /api/v1/admin/tenants/acme {status: "suspended"} stores.
        await first.store.uow.run(async (tx) => {
          const t = await tx.tenants.get("acme");
          if (t === null) throw new Error("tenant not seeded");
          await tx.tenants.upsert({ ...t, status: "suspended" });
        });
      } finally {
        await first.close();
      }

      const edited = designExample();
      edited.tenants[0].name = "Acme Ltd";
      const second = await startServer({ config: parseConfig(edited), databaseUrl, piiKeys, port: 0 });
      try {
        const tenant = await second.store.uow.run((tx) => tx.tenants.get("acme"));
        expect(tenant).toMatchObject({ name: "Acme Ltd", status: "suspended" });
        expect(await signedGet(second.url, "/api/v1/tenant/openapi.json")).toBe(401);
        const health = await fetch(`${second.url}/api/v1/tenant/health`);
        expect(await health.json()).toMatchObject({ service: "wallet", status: "ok" });
      } finally {
        await second.close();
      }
    },
  );
});
