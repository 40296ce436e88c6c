import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body bytes as received, decoded as UTF-8. */
  rawBody: string;
  bytes: Buffer;
}

/** What the receiver answers: a status (optionally after a delay), or never (the socket hangs). */
export type Reply = { status: number; delayMs?: number } | "hang";

export interface TestReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Highest number of requests being handled at once, overall and per path. */
  maxConcurrent(path?: string): number;
  /** Replaces the reply rule. */
  reply(rule: (req: ReceivedRequest, index: number) => Reply): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1, port 0 (the OS picks a free one). */
export async function startReceiver(
  rule: (req: ReceivedRequest, index: number) => Reply = () => ({ status: 200 }),
) {
  let replyRule = rule;
  const requests: ReceivedRequest[] = [];
  const current = new Map<string, number>();
  const peak = new Map<string, number>();
  const bump = (key: string, by: number) => {
    const n = (current.get(key) ?? 0) + by;
    current.set(key, n);
    peak.set(key, Math.max(peak.get(key) ?? 0, n));
  };
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    const path = req.url ?? "/";
    bump("*", 1);
    bump(path, 1);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      bump("*", -1);
      bump(path, -1);
    };
    res.on("close", finish);
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const bytes = Buffer.concat(chunks);
      const r: ReceivedRequest = {
        method: req.method ?? "",
        path,
        headers: req.headers,
        rawBody: bytes.toString("utf8"),
        bytes,
      };
      requests.push(r);
      const reply = replyRule(r, requests.length - 1);
      if (reply === "hang") {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.statusCode = reply.status;
        if (reply.status >= 300 && reply.status < 400)
          res.setHeader("Location", "http://127.0.0.1:9/elsewhere");
        res.end("ok");
        finish();
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: TestReceiver = {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    maxConcurrent: (path = "*") => peak.get(path) ?? 0,
    reply: (r) => {
      replyRule = r;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A URL on 127.0.0.1 where nothing listens: connection refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hooks`;
}
