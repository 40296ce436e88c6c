import { signRequest } from "@wallet/client";
import { afterAll, describe, expect, it } from "vitest";
import { API_KEY, databases, e2eConfig, k1, start, TENANT } from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

let timestamp = Math.floor(Date.now() / 1000) - 250;

/** A signed GET from this process (127.0.0.1), with the X-Forwarded-For a balancer would add. */
async function get(baseUrl: string, forwardedFor?: string): Promise<number> {
  const pathAndQuery = `${TENANT}/operations?limit=1`;
  const headers: Record<string, string> = signRequest({
    method: "GET",
    pathAndQuery,
    body: "",
    apiKey: API_KEY,
    kid: k1.kid,
    privateKey: k1.privateKeyPem,
    timestamp: timestamp++,
  });
  if (forwardedFor !== undefined) headers["X-Forwarded-For"] = forwardedFor;
  const res = await fetch(`${baseUrl}${pathAndQuery}`, { headers });
  await res.arrayBuffer();
  return res.status;
}

describe("trustedProxies: the tenants' IP allowlists behind a load balancer", () => {
  it("check the client the balancer names, and only when the request comes from the balancer", async () => {
    const allowlisted = (trustedProxies: string[]) =>
      e2eConfig((c) => {
        c.trustedProxies = trustedProxies;
        c.tenants[0].ipAllowlist = ["203.0.113.0/24"];
      });
    const databaseUrl = await databases[0]!.url(cleanups);
    const behind = await start(allowlisted(["127.0.0.0/8", "::1/128"]), databaseUrl);
    try {
      expect(await get(behind.url, "203.0.113.9")).toBe(200);
      expect(await get(behind.url, "198.51.100.1")).toBe(401);
      expect(await get(behind.url, "203.0.113.9, 198.51.100.1")).toBe(401);
      expect(await get(behind.url)).toBe(401);
    } finally {
      await behind.close();
    }
    // Without trusted proxies the header is anybody's: the socket's address decides.
    const direct = await start(allowlisted([]), databaseUrl);
    try {
      expect(await get(direct.url, "203.0.113.9")).toBe(401);
    } finally {
      await direct.close();
    }
  });
});
