import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serve } from "./helpers.js";
import {
  ADMIN_TOKEN,
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

/** A receiver that only counts POSTs and answers 200. */
async function countingReceiver() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      count++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const operationState = async (client: ReturnType<typeof clientOf>, uid: string) => {
  const res = await client.call("GET", `/operations/${uid}`);
  expect(res.status, res.text).toBe(200);
  return (await res.json()) as { state: string; provider: { state: string } | null };
};

describe.each(databases)("scheduled jobs on $name", ({ url, skip }) => {
  it.skipIf(skip)(
    "with --no-scheduler nothing runs by itself; the operator route runs each job",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "wallet-jobs-"));
      const configPath = join(dir, "wallet.config.json");
      writeFileSync(
        configPath,
        JSON.stringify(
          e2eConfig((c) => {
            c.rails[0].autoPayoutOutcome = "failed";
            c.rails[0].autoOutcomeDelaySeconds = 60;
          }),
        ),
      );
      const receiver = await countingReceiver();
      const serving = await serve(
        [
          "--config",
          configPath,
          "--db",
          await url(cleanups),
          "--port",
          "0",
          "--data-dir",
          dir,
          "--no-scheduler",
        ],
        { cwd: dir, env: { WALLET_ADMIN_TOKEN: ADMIN_TOKEN, LOG_LEVEL: "warn" } },
      );
      try {
        const client = clientOf(serving.server.url);
        expect((await client.admin("POST", "/tenants/acme/webhook/secrets")).status).toBe(201);
        expect(
          (
            await client.admin("PUT", "/tenants/acme/webhook", {
              url: receiver.url,
              events: [],
              enabled: true,
            })
          ).status,
        ).toBe(200);
        const customer = await onboard(client);
        await fundAndCredit(client, customer.walletUid, 200_000, "jobs-credit-1");

        // No dispatcher runs in this process: the events wait (a bounded look, longer than a tick).
        await new Promise((r) => setTimeout(r, 1_500));
        expect(receiver.count()).toBe(0);
        const delivered = await client.admin("POST", "/jobs/deliver-webhooks/run", {});
        expect(delivered.status, delivered.text).toBe(200);
        const { processed } = (await delivered.json()) as { job: string; processed: number };
        expect(processed).toBeGreaterThanOrEqual(2); // customer.created + wallet_credit.completed
        expect(receiver.count()).toBe(processed);
        expect(await (await client.admin("POST", "/jobs/deliver-webhooks/run", {})).json()).toEqual({
          job: "deliver-webhooks",
          processed: 0,
        });

        // expire-topups, as of two hours from now (sandbox only): the one-hour intent expires.
        const intent = await client.call("POST", "/topup-intents", {
          walletUid: customer.walletUid,
          amountMinor: 25_000,
          currency: "KES",
          railCode: "sandbox_mobile",
          clientReference: "jobs-topup-1",
        });
        expect(intent.status, intent.text).toBe(201);
        const topupUid = String((await intent.json()).uid);
        const inTwoHours = new Date(Date.now() + 2 * 3_600_000).toISOString();
        expect(await (await client.admin("POST", "/jobs/expire-topups/run", {})).json()).toEqual({
          job: "expire-topups",
          processed: 0,
        });
        expect(
          await (await client.admin("POST", "/jobs/expire-topups/run", { asOf: inTwoHours })).json(),
        ).toEqual({
          job: "expire-topups",
          processed: 1,
        });
        expect((await operationState(client, topupUid)).state).toBe("failed");

        // The rail's automatic outcome (failed after 60 s) runs only once the payout is old enough.
        const paid = await payout(client, customer, 10_000, "jobs-payout-1");
        expect((await operationState(client, paid.uid)).state).toBe("processing");
        expect(await (await client.admin("POST", "/jobs/sandbox-payout-outcomes/run", {})).json()).toEqual({
          job: "sandbox-payout-outcomes",
          processed: 0,
        });
        const inTwoMinutes = new Date(Date.now() + 120_000).toISOString();
        expect(
          await (
            await client.admin("POST", "/jobs/sandbox-payout-outcomes/run", { asOf: inTwoMinutes })
          ).json(),
        ).toEqual({ job: "sandbox-payout-outcomes", processed: 1 });
        expect(await operationState(client, paid.uid)).toMatchObject({
          state: "failed",
          provider: { state: "failed" },
        });
        expect(
          await (
            await client.admin("POST", "/jobs/sandbox-payout-outcomes/run", { asOf: inTwoMinutes })
          ).json(),
        ).toEqual({ job: "sandbox-payout-outcomes", processed: 0 });

        for (const job of ["activate-mandates", "expire-mandates"]) {
          expect(await (await client.admin("POST", `/jobs/${job}/run`, {})).json()).toEqual({
            job,
            processed: 0,
          });
        }
        expect((await client.admin("POST", "/jobs/compact-everything/run", {})).status).toBe(404);
        const balance = await client.admin("GET", "/ledger/trial-balance");
        expect((await balance.json()).balanced).toBe(true);
      } finally {
        expect(await serving.stop()).toBe(0);
        await receiver.close();
      }
    },
    30_000,
  );

  it.skipIf(skip)("the scheduler confirms a payout on a rail with an automatic outcome", async () => {
    const server = await start(
      e2eConfig((c) => {
        c.rails[0].autoPayoutOutcome = "confirmed";
      }),
      await url(cleanups),
      { jobIntervalMs: 100 },
    );
    try {
      const client = clientOf(server.url);
      const customer = await onboard(client);
      await fundAndCredit(client, customer.walletUid, 100_000, "auto-credit-1");
      const paid = await payout(client, customer, 20_000, "auto-payout-1");
      expect(paid.state).toBe("processing");
      const settled = await eventually(
        async () => {
          const op = await operationState(client, paid.uid);
          return op.state === "processing" ? undefined : op;
        },
        5_000,
        "the automatic outcome",
      );
      expect(settled).toMatchObject({ state: "completed", provider: { state: "confirmed" } });
      const balance = await client.call("GET", `/wallets/${customer.walletUid}/balance`);
      expect(await balance.json()).toMatchObject({ heldMinor: 0 });
      expect((await (await client.admin("GET", "/ledger/trial-balance")).json()).balanced).toBe(true);
    } finally {
      await server.close();
    }
  });
});
