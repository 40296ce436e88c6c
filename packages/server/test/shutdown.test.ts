import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/server/logger.js";
import { stopHttp } from "../src/server/start-server.js";

const listen = async (delayMs: number): Promise<{ server: Server; url: string }> => {
  const server = createServer((_req, res) => {
    setTimeout(() => res.end("done"), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
};

describe("stopHttp", () => {
  it("lets a request in flight finish and refuses new connections", async () => {
    const { server, url } = await listen(150);
    const inFlight = fetch(url).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 30));
    const port = (server.address() as AddressInfo).port;
    const stopped = stopHttp(server, 5_000);
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve("connected");
      });
      socket.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    });
    expect(refused).toBe("ECONNREFUSED");
    expect(await inFlight).toBe("done");
    const started = Date.now();
    await stopped;
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("cuts a request that outlives the grace period", async () => {
    const { server, url } = await listen(10_000);
    const inFlight = fetch(url).then(
      () => "answered",
      () => "cut",
    );
    await new Promise((r) => setTimeout(r, 30));
    const started = Date.now();
    await stopHttp(server, 100);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await inFlight).toBe("cut");
  });
});

describe("createLogger", () => {
  it("redacts credential-like fields", () => {
    const lines: string[] = [];
    const logger = createLogger((l) => lines.push(l));
    logger.info(
      {
        req: { headers: { "x-api-key": "k-secret", authorization: "Bearer t-secret", "x-request-id": "r1" } },
        apiKey: "k2-secret",
        tenant: { secret: "s-secret", id: "acme" },
      },
      "hello",
    );
    const out = lines.join("");
    expect(out).not.toMatch(/k-secret|t-secret|k2-secret|s-secret/);
    expect(out).toContain('"x-request-id":"r1"');
    expect(out).toContain('"id":"acme"');
    expect(JSON.parse(out).msg).toBe("hello");
  });
});
