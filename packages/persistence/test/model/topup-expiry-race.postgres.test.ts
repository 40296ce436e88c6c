import { expireTopups, receiveRailPayment } from "@wallet/ledger-core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { send } from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, RAIL } from "../../../ledger-core/test/model/world.js";
import { fundedCustomer, postgresUrlFor, raceSuite } from "./postgres-real.js";

/**
 * A top-up's payment that arrived before the intent's expiry but waited for its wallet (a KYC
 * decision or a status change held it) against the expiry job that ran meanwhile, on Postgres
 * (read committed). Found by a money audit: the job locked only the wallet's accounts, which the
 * waiting payment had not reached, so it expired the intent (topup.expired) and the payment,
 * received in time, went to suspense as `expired`. The job now locks the intents' wallets first,
 * as a payment does, so it waits for the payment in flight and then leaves the completed intent.
 */
const pgUrl = postgresUrlFor("top-up expiry race");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(pgUrl === null)("a top-up payment in flight against the expiry job (Postgres)", () => {
  const suite = raceSuite(pgUrl ?? "", { poolSize: 6 });

  it("a payment received before expiresAt completes its intent; the job then skips it", async () => {
    const { real } = suite;
    const { walletUid } = await fundedCustomer(real, "expiry-race", "+254759100001", 1_000);
    const intent = await send(
      real,
      "topup",
      "expiry-race-intent",
      JSON.stringify({
        walletUid,
        amountMinor: 500,
        currency: CURRENCY,
        railCode: RAIL,
        clientReference: "expiry-race",
        expiresInSeconds: 60,
      }),
    );
    if (intent.kind !== "answer" || intent.status !== 201) throw new Error("intent refused");
    const { uid, intentReference } = JSON.parse(intent.body) as { uid: string; intentReference: string };

    // Something else holds the wallet's row (as a KYC decision or a status change in flight does).
    const blocker = new pg.Client({ connectionString: suite.url });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query("select uid from wallets where uid = $1 for update", [walletUid]);
      // The payment arrives 30 s into the intent's 60 and waits for the wallet.
      real.clock.advanceMs(30_000);
      const payment = real.uow.run((tx) =>
        receiveRailPayment(real.deps, tx, {
          railCode: RAIL,
          reference: intentReference,
          amountMinor: 500,
          currency: CURRENCY,
          providerReference: "expiry-race-payment",
        }),
      );
      await sleep(300);
      // The intent's expiry passes while it waits, and the job runs.
      real.clock.advanceMs(60_000);
      const job = real.uow.run((tx) => expireTopups(real.deps, tx, real.clock.now().toISOString(), 100));
      await sleep(300);
      await blocker.query("commit");
      expect(await payment).toMatchObject({ matched: true, operationUid: uid, suspenseUid: null });
      expect(await job).toBe(0);
    } finally {
      await blocker.end();
    }
    const { rows } = await suite.sql.query("select state from operations where uid = $1", [uid]);
    expect(rows).toEqual([{ state: "completed" }]);
    const events = await suite.sql.query(
      "select type from outbox_events where resource_uid = $1 order by seq",
      [uid],
    );
    expect(events.rows.map((r) => r.type)).toEqual(["topup.confirmed"]);
  });
});
