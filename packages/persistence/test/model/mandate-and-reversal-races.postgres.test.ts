import { againOnConcurrentUpdate, fundPrefund, reverseOperation } from "@wallet/ledger-core";
import { beforeAll, describe, expect, it } from "vitest";
import { assertionFor, mandateAgreement, send } from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, TENANT_ID } from "../../../ledger-core/test/model/world.js";
import {
  creditBody,
  firstStopsAt,
  fundedCustomer,
  outcomeOf,
  postgresUrlFor,
  raceSuite,
  valueOrCode,
} from "./postgres-real.js";

/**
 * A read again under a lock, raced on Postgres: each test stops the first request while it holds
 * the lock and lets the second one wait on it; without the read again, the second decides on what
 * it read before the first committed. (status-change-races.postgres.test.ts races a mandate's own
 * debits; these race POST /wallet-debits and the operator's reversal.)
 */
const pgUrl = postgresUrlFor("mandate and reversal races");

describe.skipIf(pgUrl === null)("a wallet debit and a reversal, raced on Postgres", () => {
  const suite = raceSuite(pgUrl ?? "", { poolSize: 6 });

  beforeAll(() =>
    suite.real.uow.run((tx) =>
      fundPrefund(suite.real.deps, tx, { tenantId: TENANT_ID, amountMinor: 10_000_000, currency: CURRENCY }),
    ),
  );

  it("a wallet debit that starts while a mandate debit completes the one_time mandate is refused", async () => {
    const { customerUid, walletUid } = await fundedCustomer(suite.real, "mk-1", "+254759990001", 500_000);
    const mandate = await send(
      suite.real,
      "mandate",
      "mk-mandate-1",
      JSON.stringify({
        customerUid,
        walletUid,
        beneficiaryEntityCode: "POWERCO",
        clientReference: "mk-mandate-1",
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 10_000,
        frequency: "one_time",
        currency: CURRENCY,
        validFrom: suite.real.clock.now().toISOString(),
        validTo: null,
        agreement: mandateAgreement,
        assertion: assertionFor(suite.real, "mk-session-1", customerUid),
      }),
    );
    if (mandate.kind !== "answer" || mandate.status !== 201) throw new Error("mandate refused");
    const mandateUid = JSON.parse(mandate.body).uid as string;
    const mandateDebit = () =>
      send(
        suite.real,
        "mandateDebit",
        `mk-mdebit-${mandateUid}`,
        JSON.stringify({
          mandateUid,
          input: {
            walletUid,
            amountMinor: 1_000,
            currency: CURRENCY,
            clientReference: `mk-mdebit-${mandateUid}`,
          },
        }),
      );
    const walletDebit = () =>
      send(
        suite.real,
        "debit",
        `mk-debit-${mandateUid}`,
        JSON.stringify({
          walletUid,
          mandateUid,
          amountMinor: 1_000,
          currency: CURRENCY,
          clientReference: `mk-debit-${mandateUid}`,
          assertion: assertionFor(suite.real, "mk-debit-session", customerUid, {
            walletUid,
            amountMinor: 1_000,
            target: mandateUid,
            clientReference: `mk-debit-${mandateUid}`,
          }),
        }),
      );
    // The mandate debit stops at completing the one_time mandate, the wallet's accounts locked; the
    // wallet debit reads the mandate (still active) and waits for the accounts: it must read the
    // mandate again then (completed), or one consent pays twice.
    const [viaMandate, viaAssertion] = await firstStopsAt(suite.url, "mandates", mandateDebit, walletDebit);
    expect([viaMandate, viaAssertion].map(outcomeOf)).toEqual(["ok", "UnprocessableEntity"]);
  });

  // The operation is read again under the wallets' locks: a second reversal that waited for the
  // first would otherwise net the first's reversal journal to nothing and fail its invariant (a
  // 5xx) instead of answering the reversed detail.
  it("two reversals of one credit at once: both answer the reversed operation", async () => {
    const { walletUid } = await fundedCustomer(suite.real, "mk-2", "+254759990002", 50_000);
    const credit = await send(
      suite.real,
      "credit",
      "mk-2-credit",
      creditBody(walletUid, 7_000, "mk-2-credit"),
    );
    if (credit.kind !== "answer" || credit.status !== 201) throw new Error("credit refused");
    const uid = JSON.parse(credit.body).uid as string;
    const reversal = () => () =>
      valueOrCode(() =>
        againOnConcurrentUpdate(() =>
          suite.real.uow.run(async (tx) => (await reverseOperation(suite.real.deps, tx, uid)).state),
        ),
      );
    // The first stops at moving the operation to reversed, the wallet's accounts locked.
    const answers = await firstStopsAt(suite.url, "operations", reversal(), reversal());
    expect(answers).toEqual(["reversed", "reversed"]);
  });
});
