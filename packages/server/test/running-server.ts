import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assertionTransactionBinding, signRequest } from "@wallet/client";
import { scopes } from "@wallet/ledger-core";
import { createFreshPostgresDatabase, postgresTestUrl, requirePostgres } from "@wallet/persistence";
import { expect } from "vitest";
import { parseConfig } from "../src/config/index.js";
import { piiKeyRing } from "../src/crypto/index.js";
import { type RunningServer, type StartServerOptions, startServer } from "../src/server/start-server.js";
import { designExample, type RawConfig, testPrivateKeyPem } from "./fixtures.js";

export const ADMIN_TOKEN = "server-test-admin-token-0123456789";
export const API_KEY = "sandbox-key-acme-0001";
export const TENANT = "/api/v1/tenant";
export const ADMIN = "/api/v1/admin";

/** The DESIGN example with every scope, a prefund-able tenant and webhooks off until a test PUTs one. */
export function e2eConfig(edit: (c: RawConfig) => void = () => {}): RawConfig {
  const c = designExample();
  c.tenants[0].scopes = [...scopes];
  c.tenants[0].webhook = { url: null, enabled: false, events: [], secrets: [] };
  edit(c);
  return c;
}

const pgUrl = postgresTestUrl();
if (pgUrl === null && requirePostgres()) {
  throw new Error("WALLET_TEST_REQUIRE_POSTGRES=1 but WALLET_TEST_POSTGRES_URL is not set");
}

/** SQLite always; Postgres when WALLET_TEST_POSTGRES_URL is set (`skip` otherwise). */
export const databases: {
  name: string;
  skip: boolean;
  url: (cleanups: (() => Promise<void>)[]) => Promise<string>;
}[] = [
  {
    name: "sqlite",
    skip: false,
    url: async () => `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-e2e-")), "wallet.db")}`,
  },
  {
    name: "postgres",
    skip: pgUrl === null,
    url: async (cleanups) => {
      const fresh = await createFreshPostgresDatabase(pgUrl ?? "");
      cleanups.push(() => fresh.drop());
      return fresh.url;
    },
  },
];

export const piiKeys = piiKeyRing(randomBytes(32).toString("base64"));

export function start(
  raw: RawConfig,
  databaseUrl: string,
  options: Partial<StartServerOptions> = {},
): Promise<RunningServer> {
  return startServer({
    config: parseConfig(raw),
    databaseUrl,
    piiKeys,
    port: 0,
    adminToken: ADMIN_TOKEN,
    ...options,
  });
}

export interface SigningIdentity {
  apiKey: string;
  kid: string;
  privateKeyPem: string;
}

export const k1: SigningIdentity = { apiKey: API_KEY, kid: "k1", privateKeyPem: testPrivateKeyPem };

/** Shared by every client: the replay guard lives in the database and outlives a restart. */
let lastTimestamp = Math.floor(Date.now() / 1000) - 200;

/**
 * Signed tenant calls and operator calls against a running server over real HTTP. Each signed call
 * gets its own timestamp (one second after the previous), so two identical requests never share a
 * signature: the replay guard would refuse the second for that reason alone.
 */
export function clientOf(baseUrl: string) {
  const call = async (
    method: string,
    path: string,
    body?: unknown,
    who: SigningIdentity = k1,
  ): Promise<{ status: number; json: () => Promise<Record<string, unknown>>; text: string }> => {
    lastTimestamp = Math.max(lastTimestamp + 1, Math.floor(Date.now() / 1000) - 200);
    const text = body === undefined ? "" : JSON.stringify(body);
    const pathAndQuery = `${TENANT}${path}`;
    const headers: Record<string, string> = {
      ...signRequest({
        method,
        pathAndQuery,
        body: text,
        apiKey: who.apiKey,
        kid: who.kid,
        privateKey: who.privateKeyPem,
        timestamp: lastTimestamp,
      }),
      "Content-Type": "application/json",
    };
    if (method !== "GET") headers["Idempotency-Key"] = `idem-${randomBytes(8).toString("hex")}`;
    const res = await fetch(`${baseUrl}${pathAndQuery}`, {
      method,
      headers,
      body: method === "GET" ? null : text,
    });
    const answer = await res.text();
    return { status: res.status, text: answer, json: async () => JSON.parse(answer) };
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${ADMIN}${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const answer = await res.text();
    return { status: res.status, text: answer, json: async () => JSON.parse(answer) };
  };
  return { call, admin };
}

export type Client = ReturnType<typeof clientOf>;

/** A customer onboarded through the tenant API, with its main wallet. */
export async function onboard(client: Client, msisdn = "+254700000001") {
  const res = await client.call("POST", "/customers", {
    customerType: "person",
    displayName: "Jane Test",
    identifiers: [
      {
        class: "contact",
        type: "msisdn",
        value: msisdn,
        isPrimary: true,
        verificationStatus: "verified",
        verifiedAt: "2026-01-01T00:00:00.000Z",
      },
    ],
    kyc: {
      tierCode: "tier_1",
      reviewType: "onboarding",
      verificationSource: "test",
      sourceReference: `kyc-${msisdn}`,
      evidence: { method: "test" },
      riskRating: "low",
    },
    agreements: [
      {
        agreementType: "wallet_opening",
        documentType: "terms",
        documentVersion: "1",
        documentUri: "https://example.com/terms/1",
        documentHash: "0".repeat(64),
        acceptedAt: "2026-01-01T00:00:00.000Z",
        acceptedChannel: "mobile_app",
        evidence: { method: "checkbox" },
      },
    ],
  });
  expect(res.status, res.text).toBe(201);
  const customer = (await res.json()) as {
    uid: string;
    walletUid: string;
    identifiers: { uid: string; type: string }[];
  };
  const msisdnUid = customer.identifiers.find((i) => i.type === "msisdn")?.uid ?? "";
  return { customerUid: customer.uid, walletUid: customer.walletUid, msisdnUid };
}

/** Funds the tenant's prefund and credits the wallet; returns the credit operation. */
export async function fundAndCredit(
  client: Client,
  walletUid: string,
  amountMinor: number,
  clientReference: string,
) {
  const funded = await client.admin("POST", "/tenants/acme/prefund", { amountMinor, currency: "KES" });
  expect(funded.status, funded.text).toBe(200);
  const credit = await client.call("POST", "/wallet-credits", {
    walletUid,
    amountMinor,
    currency: "KES",
    clientReference,
  });
  expect(credit.status, credit.text).toBe(201);
  return (await credit.json()) as { uid: string; state: string };
}

/** POST /payouts with a two-factor assertion bound to the request. */
export async function payout(
  client: Client,
  c: { customerUid: string; walletUid: string; msisdnUid: string },
  amountMinor: number,
  clientReference: string,
) {
  const now = Date.now();
  const request = {
    walletUid: c.walletUid,
    destinationIdentifierUid: c.msisdnUid,
    amountMinor,
    currency: "KES",
    railCode: "sandbox_mobile",
    clientReference,
  };
  const res = await client.call("POST", "/payouts", {
    ...request,
    assertion: {
      customerUid: c.customerUid,
      assuranceLevel: "two_factor",
      factor1Type: "pin",
      factor2Type: "otp",
      authenticatedAt: new Date(now - 30_000).toISOString(),
      expiresAt: new Date(now + 300_000).toISOString(),
      channelCode: "mobile_app",
      sourceReference: `sess-${clientReference}`,
      transactionBinding: assertionTransactionBinding({
        customerUid: c.customerUid,
        walletUid: c.walletUid,
        amountMinor,
        currency: "KES",
        target: c.msisdnUid,
        clientReference,
      }),
    },
  });
  expect(res.status, res.text).toBe(202);
  return (await res.json()) as { uid: string; state: string };
}

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 5_000,
  what = "condition",
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
