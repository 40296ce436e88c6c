import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook, WebhookVerificationError } from "@wallet/webhooks";
import { afterAll, describe, expect, it } from "vitest";
import {
  clientOf,
  databases,
  e2eConfig,
  eventually,
  fundAndCredit,
  onboard,
  start,
} from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real webhook receiver on 127.0.0.1: records every POST and answers `status`. */
async function startReceiver() {
  const received: Received[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(status, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answer(next: number) {
      status = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface LogRow {
  eventId: string;
  type: string;
  dedupKey: string;
  attempts: number;
  status: string;
  lastStatusCode: number | null;
}

describe.each(databases)("webhook delivery on $name", ({ url, skip }) => {
  it.skipIf(skip)(
    "delivers a signed wallet_credit.completed under the previous secret during the overlap, logs it, and re-queues a failed event",
    async () => {
      const receiver = await startReceiver();
      const server = await start(e2eConfig(), await url(cleanups));
      try {
        const client = clientOf(server.url);
        const enable = () =>
          client.admin("PUT", "/tenants/acme/webhook", {
            url: receiver.url,
            events: ["wallet_credit.completed"],
            enabled: true,
          });
        // Enabled without a secret, every event would fail unsigned: create one first.
        expect((await enable()).status).toBe(409);

        const first = await client.admin("POST", "/tenants/acme/webhook/secrets");
        expect(first.status, first.text).toBe(201);
        const old = (await first.json()) as { kid: string; secret: string; createdAt: string };
        const second = await client.admin("POST", "/tenants/acme/webhook/secrets");
        expect(second.status, second.text).toBe(201);
        const current = (await second.json()) as { kid: string; secret: string; createdAt: string };
        const put = await enable();
        expect(put.status, put.text).toBe(200);
        expect(await put.json()).toMatchObject({
          url: receiver.url,
          enabled: true,
          events: ["wallet_credit.completed"],
          secretKids: [{ kid: old.kid }, { kid: current.kid }],
        });
        expect(current.kid).not.toBe(old.kid);
        expect(current.secret.length).toBeGreaterThanOrEqual(32);
        const tenant = await client.admin("GET", "/tenants/acme");
        expect(tenant.text).not.toContain(old.secret);
        expect(tenant.text).not.toContain(current.secret);
        expect((await tenant.json()).webhook).toMatchObject({
          secretKids: [{ kid: old.kid }, { kid: current.kid }],
        });

        const customer = await onboard(client);
        const startedAt = Date.now();
        const credit = await fundAndCredit(client, customer.walletUid, 50_000, "wh-credit-1");

        const delivery = await eventually(async () => receiver.received[0], 5_000, "the webhook POST");
        expect(Date.now() - startedAt).toBeLessThan(5_000);
        const event = verifyWebhook(delivery.body, delivery.headers, [old, current]);
        expect(event.type).toBe("wallet_credit.completed");
        // The first secret signs; the second takes over when the first one's 24 h overlap ends, so
        // a receiver still holding only the first secret keeps working meanwhile.
        expect(delivery.headers["x-webhook-key-id"]).toBe(old.kid);
        expect(JSON.stringify(event.data)).toContain(credit.uid);
        expect(verifyWebhook(delivery.body, delivery.headers, [old]).id).toBe(event.id);
        expect(() => verifyWebhook(delivery.body, delivery.headers, [current])).toThrow(
          WebhookVerificationError,
        );
        // The customer.created event was filtered out when it was written: one POST only.
        expect(receiver.received).toHaveLength(1);

        const delivered = await eventually(
          async () => {
            const log = await client.admin("GET", "/webhook-deliveries?tenantId=acme");
            const rows = (await log.json()).data as LogRow[];
            const row = rows.find((r) => r.eventId === event.id);
            return row?.status === "delivered" ? row : undefined;
          },
          5_000,
          "the delivery log to show it delivered",
        );
        expect(delivered).toMatchObject({
          type: "wallet_credit.completed",
          dedupKey: event.dedupKey,
          attempts: 1,
          lastStatusCode: 200,
        });

        // A receiver answering 400 fails the event at once (other 4xx are not retried) ...
        receiver.answer(400);
        await fundAndCredit(client, customer.walletUid, 10_000, "wh-credit-2");
        const failed = await eventually(
          async () => {
            const log = await client.admin("GET", "/webhook-deliveries?tenantId=acme&status=failed");
            return ((await log.json()).data as LogRow[])[0];
          },
          5_000,
          "the second event to fail",
        );
        expect(failed).toMatchObject({ attempts: 1, lastStatusCode: 400 });
        expect(receiver.received).toHaveLength(2);
        const failedBody = receiver.received[1]?.body;

        // ... until the operator re-queues it: the same bytes arrive again and it is delivered.
        receiver.answer(204);
        const retried = await client.admin("POST", `/webhook-events/${failed.eventId}/retry`);
        expect(retried.status, retried.text).toBe(200);
        expect(await retried.json()).toMatchObject({
          eventId: failed.eventId,
          status: "pending",
          attempts: 0,
        });
        const redelivered = await eventually(
          async () => {
            const log = await client.admin("GET", "/webhook-deliveries?tenantId=acme");
            const row = ((await log.json()).data as LogRow[]).find((r) => r.eventId === failed.eventId);
            return row?.status === "delivered" ? row : undefined;
          },
          5_000,
          "the re-queued event to be delivered",
        );
        expect(redelivered).toMatchObject({ attempts: 1, lastStatusCode: 204 });
        expect(receiver.received).toHaveLength(3);
        expect(receiver.received[2]?.body).toBe(failedBody);
        expect(
          verifyWebhook(receiver.received[2]?.body ?? "", receiver.received[2]?.headers ?? {}, [old, current])
            .id,
        ).toBe(failed.eventId);
        expect((await client.admin("POST", `/webhook-events/${failed.eventId}/retry`)).status).toBe(409);
        expect((await client.admin("POST", "/webhook-events/evt_nope/retry")).status).toBe(404);
      } finally {
        await server.close();
        await receiver.close();
      }
    },
    30_000,
  );
});
