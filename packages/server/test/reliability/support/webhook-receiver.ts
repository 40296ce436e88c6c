import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface WebhookReceiver {
  url: string;
  /** dedupKey -> how many times it arrived (retries and redeliveries included). */
  received: Map<string, number>;
  close(): Promise<void>;
}

/**
 * A local endpoint on 127.0.0.1 that records the dedupKey of every event body it gets. It answers
 * 503 to a share of the attempts (`failRate`), so deliveries also go through the retry path.
 */
export async function startWebhookReceiver(failRate = 0.1): Promise<WebhookReceiver> {
  const received = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= 1_048_576) chunks.push(c);
    });
    req.on("end", () => {
      if (Math.random() < failRate) {
        res.writeHead(503).end();
        return;
      }
      try {
        const dedupKey = String(JSON.parse(Buffer.concat(chunks).toString("utf8")).dedupKey);
        received.set(dedupKey, (received.get(dedupKey) ?? 0) + 1);
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
