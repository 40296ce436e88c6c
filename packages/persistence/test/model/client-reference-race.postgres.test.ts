import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertionFor, onboardingBody, send } from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, RAIL, type Real } from "../../../ledger-core/test/model/world.js";
import { openPostgresReal, postgresUrlFor } from "./postgres-real.js";

/**
 * Found by the model's Race command on Postgres: two writes of the same kind with the same
 * clientReference under different Idempotency-Keys, at once. Both passed the early clientReference
 * check; the first committed; the second, once it had the wallet's lock, was refused for the
 * money the first had just spent (422 InsufficientFunds) instead of being told it duplicates it
 * (409 Conflict) as it would have been had they run one after the other. A client retrying a timed
 * out payout under a new key would conclude the payout failed when it had gone through.
 *
 * The interleaving is forced: a separate transaction holds the wallet's account row, both requests
 * queue behind it past their early checks, then it lets go.
 */
const pgUrl = postgresUrlFor("clientReference race");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(pgUrl === null)("same clientReference under two keys at once (Postgres)", () => {
  const cleanups: (() => Promise<void>)[] = [];
  let real: Real;
  let url = "";
  let customer: { uid: string; walletUid: string; msisdnUid: string };
  let mandateUid = "";

  beforeAll(async () => {
    const opened = await openPostgresReal(pgUrl ?? "", { poolSize: 6 });
    cleanups.push(() => opened.close());
    real = opened.real;
    url = opened.url;
    const onboarded = await send(
      real,
      "onboard",
      "race-onboard",
      JSON.stringify(onboardingBody("+254755000001", "tier_2", "low")),
    );
    if (onboarded.kind !== "answer") throw new Error(onboarded.code);
    const view = JSON.parse(onboarded.body);
    customer = {
      uid: view.uid,
      walletUid: view.walletUid,
      msisdnUid: view.identifiers.find((i: { type: string }) => i.type === "msisdn").uid,
    };
    const credit = {
      walletUid: customer.walletUid,
      amountMinor: 100_000,
      currency: CURRENCY,
      clientReference: "race-credit",
    };
    expect((await send(real, "credit", "race-credit", JSON.stringify(credit))).kind).toBe("answer");
    const mandate = await send(
      real,
      "mandate",
      "race-mandate",
      JSON.stringify({
        customerUid: customer.uid,
        walletUid: customer.walletUid,
        beneficiaryEntityCode: "POWERCO",
        clientReference: "race-mandate",
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 90_000,
        frequency: "ad_hoc",
        currency: CURRENCY,
        validFrom: new Date(real.clock.now().getTime() - 60_000).toISOString(),
        agreement: {
          documentType: "debit_mandate",
          documentVersion: "v1",
          documentUri: "https://example.com/m",
          documentHash: "b".repeat(64),
          acceptedAt: "2026-11-01T00:00:00.000Z",
          acceptedChannel: "mobile_app",
          evidence: {},
        },
        assertion: assertionFor(real, "race-mandate", customer.uid),
      }),
    );
    if (mandate.kind !== "answer") throw new Error(mandate.code);
    mandateUid = JSON.parse(mandate.body).uid;
  }, 60_000);

  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  /** Sends both bodies at once while another transaction holds the wallet's row; returns the answers. */
  async function race(route: "payout" | "debit", bodies: [string, string]): Promise<string[]> {
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query("select 1 from accounts where account_key = $1 for update", [
        `wallet:${customer.walletUid}`,
      ]);
      const answers = bodies.map((body, i) => send(real, route, `${route}-race-key-${i}`, body));
      // Both are past their early checks and waiting for the row.
      await sleep(500);
      await blocker.query("commit");
      return (await Promise.all(answers)).map((o) =>
        o.kind === "refused" ? o.code : o.status < 300 ? "ok" : (JSON.parse(o.body).error as string),
      );
    } finally {
      await blocker.end();
    }
  }

  it("payouts: one goes through, the other is a 409 duplicate (not InsufficientFunds)", async () => {
    const body = (amountMinor: number) =>
      JSON.stringify({
        walletUid: customer.walletUid,
        destinationIdentifierUid: customer.msisdnUid,
        amountMinor,
        currency: CURRENCY,
        railCode: RAIL,
        clientReference: "race-payout",
        assertion: assertionFor(real, `race-payout-${amountMinor}`, customer.uid, {
          walletUid: customer.walletUid,
          amountMinor,
          target: customer.msisdnUid,
          clientReference: "race-payout",
        }),
      });
    // Either payout alone fits the wallet; both together do not.
    expect((await race("payout", [body(60_000), body(60_001)])).sort()).toEqual(["Conflict", "ok"]);
  });

  it("debits: one goes through, the other is a 409 duplicate (not InsufficientFunds)", async () => {
    const body = (amountMinor: number) =>
      JSON.stringify({
        walletUid: customer.walletUid,
        mandateUid,
        amountMinor,
        currency: CURRENCY,
        clientReference: "race-debit",
        assertion: assertionFor(real, `race-debit-${amountMinor}`, customer.uid, {
          walletUid: customer.walletUid,
          amountMinor,
          target: mandateUid,
          clientReference: "race-debit",
        }),
      });
    // What the payout left (about 37 000) covers one of these debits, not both.
    expect((await race("debit", [body(20_000), body(20_001)])).sort()).toEqual(["Conflict", "ok"]);
  });
});
