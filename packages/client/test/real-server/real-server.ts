import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Resolved by the workspace's vitest alias to the server's sources. Not a declared devDependency:
// @wallet/server depends on this package, and the SDK must never depend on the server.
import { demoConfig, parseConfig, piiKeyRing, type RunningServer, startServer } from "@wallet/server";
import { generateKeyPair } from "../../src/index.js";

export const ADMIN_TOKEN = "client-e2e-admin-token-0123456789";

export interface Tenant {
  id: string;
  apiKey: string;
  kid: string;
  privateKeyPem: string;
}

export interface RealServer {
  url: string;
  server: RunningServer;
  tenant: Tenant;
  /** An operator API call; throws unless 2xx. */
  admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

// biome-ignore lint/suspicious/noExplicitAny: tests edit the raw config JSON freely
type RawConfig = Record<string, any>;

/**
 * The standalone server (`startServer`, the one `wallet serve` runs) on a fresh SQLite file and a
 * free port, seeded with the demo catalog and a tenant holding a fresh key pair: exactly what a
 * tenant integrates against.
 */
export async function startRealServer(edit: (config: RawConfig, tenant: Tenant) => void = () => {}) {
  const { privateKeyPem, publicKeyPem } = generateKeyPair();
  const tenant: Tenant = {
    id: "demo",
    apiKey: `wk_test_${randomBytes(12).toString("hex")}`,
    kid: "k1",
    privateKeyPem,
  };
  const config: RawConfig = demoConfig(tenant.apiKey, publicKeyPem);
  config.tenants[0].signingKeys[0].kid = tenant.kid;
  edit(config, tenant);
  const server = await startServer({
    config: parseConfig(config),
    databaseUrl: `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-sdk-e2e-")), "wallet.db")}`,
    piiKeys: piiKeyRing(randomBytes(32).toString("base64")),
    port: 0,
    adminToken: ADMIN_TOKEN,
    webhookIntervalMs: 100,
  });
  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${server.url}/api/v1/admin${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const real: RealServer = { url: server.url, server, tenant, admin, close: () => server.close() };
  return real;
}
