import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import {
  clientOf,
  databases,
  e2eConfig,
  eventually,
  fundAndCredit,
  onboard,
  payout,
  start,
} from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

// Several server processes share one Postgres (DESIGN.md section 7); SQLite is one process's store.
const postgres = databases.find((d) => d.name === "postgres");

describe("two servers with schedulers on one Postgres", () => {
  it.skipIf(postgres === undefined || postgres.skip)(
    "settle each automatic payout once and deliver each event once",
    async () => {
      const ids: string[] = [];
      const receiver = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          ids.push(String(req.headers["x-webhook-id"]));
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

      const databaseUrl = await (postgres?.url(cleanups) ?? Promise.reject(new Error("no postgres")));
      const config = e2eConfig((c) => {
        c.rails[0].autoPayoutOutcome = "confirmed";
      });
      const a = await start(config, databaseUrl, { jobIntervalMs: 30, webhookIntervalMs: 30 });
      const b = await start(config, databaseUrl, { jobIntervalMs: 30, webhookIntervalMs: 30 });
      try {
        const viaA = clientOf(a.url);
        const viaB = clientOf(b.url);
        expect((await viaB.admin("POST", "/tenants/acme/webhook/secrets")).status).toBe(201);
        expect(
          (await viaA.admin("PUT", "/tenants/acme/webhook", { url: hookUrl, events: [], enabled: true }))
            .status,
        ).toBe(200);

        const customer = await onboard(viaA);
        await fundAndCredit(viaB, customer.walletUid, 500_000, "multi-credit-1");
        const payouts = [];
        for (let i = 0; i < 6; i++) {
          payouts.push(await payout(i % 2 === 0 ? viaA : viaB, customer, 10_000 + i, `multi-payout-${i}`));
        }
        for (const p of payouts) {
          await eventually(
            async () => {
              const op = (await (await viaA.call("GET", `/operations/${p.uid}`)).json()) as { state: string };
              return op.state === "completed" ? op : undefined;
            },
            10_000,
            `payout ${p.uid} to complete`,
          );
        }
        // Each payout: one journal to hold, one to settle; never a second settlement.
        for (const p of payouts) {
          const journals = await a.store.uow.run((tx) => tx.ledger.journalsOf("acme", p.uid));
          expect(journals.map((j) => j.kind).sort()).toEqual(["payout_hold", "payout_settle"]);
        }
        expect((await (await viaB.admin("GET", "/ledger/trial-balance")).json()).balanced).toBe(true);

        // customer.created, wallet_credit.completed, and payout.confirmed per payout.
        const expected = 2 + payouts.length;
        const rows = await eventually(
          async () => {
            const log = (await (await viaA.admin("GET", "/webhook-deliveries?tenantId=acme")).json())
              .data as {
              status: string;
              eventId: string;
            }[];
            return log.length === expected && log.every((r) => r.status === "delivered") ? log : undefined;
          },
          10_000,
          "every event delivered",
        );
        expect(new Set(ids)).toEqual(new Set(rows.map((r) => r.eventId)));
        expect(ids).toHaveLength(expected);
      } finally {
        await a.close();
        await b.close();
        await new Promise<void>((resolve) => {
          receiver.closeAllConnections();
          receiver.close(() => resolve());
        });
      }
    },
    40_000,
  );
});
