import { describe, expect, it } from "vitest";
import { withReadiness } from "../src/server/readiness.js";
import { databases, e2eConfig, start } from "./running-server.js";

const app = async (r: Request) => new Response(`app ${new URL(r.url).pathname}`);
const get = (path: string, method = "GET") => new Request(`http://wallet.test${path}`, { method });

describe("GET /ready", () => {
  it("200 while the store answers; 503 in the error body with Retry-After when it does not", async () => {
    let up = true;
    let t = 0;
    const fetch = withReadiness(
      app,
      async () => {
        if (!up) throw new Error("ECONNREFUSED");
      },
      { draining: () => false, now: () => t },
    );
    const ok = await fetch(get("/ready"));
    expect([ok.status, await ok.json()]).toEqual([200, { status: "ready" }]);
    expect(ok.headers.get("cache-control")).toBe("no-store");
    expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
    expect(ok.headers.get("x-request-id")).toMatch(/^req_/);
    up = false;
    t += 1_000;
    const down = await fetch(get("/ready"));
    expect([down.status, await down.json()]).toEqual([
      503,
      { error: "ServiceUnavailable", message: "The database is not reachable" },
    ]);
    expect(down.headers.get("retry-after")).toBe("1");
    const head = await fetch(get("/ready", "HEAD"));
    expect([head.status, await head.text()]).toEqual([503, ""]);
  });

  it("probes the store at most once a second, concurrent requests sharing one probe", async () => {
    let probes = 0;
    let t = 0;
    const fetch = withReadiness(
      app,
      async () => {
        probes++;
        await new Promise((r) => setTimeout(r, 20));
      },
      { draining: () => false, now: () => t },
    );
    await Promise.all(Array.from({ length: 50 }, () => fetch(get("/ready"))));
    expect(probes).toBe(1);
    t += 999;
    await fetch(get("/ready"));
    expect(probes).toBe(1);
    t += 1;
    await fetch(get("/ready"));
    expect(probes).toBe(2);
  });

  it("503 once the server is shutting down, whatever the store says", async () => {
    let draining = false;
    const fetch = withReadiness(app, async () => {}, { draining: () => draining });
    expect((await fetch(get("/ready"))).status).toBe(200);
    draining = true;
    const r = await fetch(get("/ready"));
    expect([r.status, ((await r.json()) as { message: string }).message]).toEqual([
      503,
      "The server is shutting down",
    ]);
  });

  it("leaves every other request to the app", async () => {
    const fetch = withReadiness(
      app,
      async () => {
        throw new Error("never asked");
      },
      { draining: () => false },
    );
    for (const [path, method] of [
      ["/api/v1/tenant/health", "GET"],
      ["/ready/x", "GET"],
      ["/ready", "POST"],
    ] as const) {
      expect(await (await fetch(get(path, method))).text()).toBe(`app ${path}`);
    }
  });
});

describe.each(databases)("GET /ready on a running server ($name)", ({ skip, url }) => {
  it.skipIf(skip)("answers 200 while the store answers", async () => {
    const cleanups: (() => Promise<void>)[] = [];
    const server = await start(e2eConfig(), await url(cleanups), { scheduler: false });
    try {
      const r = await fetch(`${server.url}/ready`);
      expect([r.status, await r.json()]).toEqual([200, { status: "ready" }]);
    } finally {
      await server.close();
      for (const c of cleanups) await c();
    }
  });
});
