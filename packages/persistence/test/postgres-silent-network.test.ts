import { createServer, Socket as NetSocket, type Server, type Socket } from "node:net";
import { StoreUnavailableError } from "@wallet/ledger-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  type FreshPostgresDatabase,
  postgresTestUrl,
  type Store,
} from "../src/index.js";

const baseUrl = postgresTestUrl();

/**
 * A TCP proxy to Postgres that can go silent: sockets stay open, no byte passes either way (a
 * dropped route or a frozen host, which a refused or reset connection is not).
 */
async function silenceableProxy(target: URL) {
  let silent = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = new NetSocket();
    upstream.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    client.on("data", (d) => silent || upstream.write(d));
    upstream.on("data", (d) => silent || client.write(d));
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (() => {
      const u = new URL(target.href);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.href;
    })(),
    silence: (on: boolean) => {
      silent = on;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.runIf(baseUrl)("Postgres store on a network that goes silent", () => {
  let fresh: FreshPostgresDatabase;
  let proxy: Awaited<ReturnType<typeof silenceableProxy>>;
  let store: Store;

  beforeAll(async () => {
    fresh = await createFreshPostgresDatabase(baseUrl!);
    proxy = await silenceableProxy(new URL(fresh.url));
    store = createPostgresStore({
      connectionString: proxy.url,
      poolSize: 2,
      statementTimeoutMs: 500,
      readTimeoutMs: 1_500,
      connectTimeoutMs: 1_500,
    });
    await store.migrate();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await fresh?.drop();
  });

  it("answers 503 within the read timeout on the pooled connections, then recovers", async () => {
    // Both pooled connections open and idle.
    await Promise.all([store.ping(), store.ping()]);
    proxy.silence(true);
    const started = Date.now();
    const outcomes = await Promise.allSettled([
      store.uow.run((tx) => tx.tenants.get("nobody")),
      store.uow.run((tx) => tx.tenants.get("nobody")),
      store.uow.autocommit((tx) => tx.tenants.get("nobody")),
    ]);
    const elapsed = Date.now() - started;
    for (const o of outcomes) {
      expect(o.status).toBe("rejected");
      expect((o as PromiseRejectedResult).reason).toBeInstanceOf(StoreUnavailableError);
    }
    // Each waits at most the read timeout (1.5 s) on its connection, or the connect timeout for
    // a new one (1.5 s): nothing waits for TCP to give up.
    expect(elapsed).toBeLessThan(6_000);

    proxy.silence(false);
    expect(await store.uow.run((tx) => tx.tenants.get("nobody"))).toBeNull();
  }, 30_000);
});
