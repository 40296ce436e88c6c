import { changeCustomerStatus, fundPrefund, setMandateStatus, updateIdentifier } from "@wallet/ledger-core";
import { beforeAll, describe, expect, it } from "vitest";
import { assertionFor, mandateAgreement, send } from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, RAIL, TENANT_ID } from "../../../ledger-core/test/model/world.js";
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
 * A change that stops a customer's money (a mandate revoked or suspended, a customer suspended)
 * against the debits and credits in flight, on Postgres (read committed), each interleaving forced
 * with `firstStopsAt`. Found by a concurrency audit: the change was answered while a movement that
 * had read the old status was still running, and that movement then committed. Now:
 * - a mandate's status change locks its wallet for update first (`lockMandateForChange`), so it
 *   waits for the debits in flight, and a debit through the mandate's own route reads the mandate
 *   again under the wallet's lock, so one that starts meanwhile sees the change;
 * - a customer's status change locks the customer's wallets, so it waits for the movements in
 *   flight, and a movement reads its customer by a statement of its own after its wallet's lock
 *   (`wallets.getWithCustomer`), so one that starts meanwhile sees the change;
 * - a change to an identifier (a revocation) locks the customer's wallets too, so it waits for a
 *   payout in flight to it, and a payout that starts meanwhile reads the revoked destination.
 */
const pgUrl = postgresUrlFor("status change races");

describe.skipIf(pgUrl === null)("status changes against movements in flight (Postgres)", () => {
  const suite = raceSuite(pgUrl ?? "", { poolSize: 6 });
  let n = 0;

  beforeAll(() =>
    suite.real.uow.run((tx) =>
      fundPrefund(suite.real.deps, tx, { tenantId: TENANT_ID, amountMinor: 10_000_000, currency: CURRENCY }),
    ),
  );

  /** A funded customer with an ad_hoc mandate of up to 10,000 on their wallet. */
  async function customerWithMandate() {
    n++;
    const msisdn = `+2547590000${String(n).padStart(2, "0")}`;
    const { customerUid, walletUid } = await fundedCustomer(suite.real, `status-race-${n}`, msisdn, 500_000);
    const mandate = await send(
      suite.real,
      "mandate",
      `status-race-mandate-${n}`,
      JSON.stringify({
        customerUid,
        walletUid,
        beneficiaryEntityCode: "POWERCO",
        clientReference: `status-race-mandate-${n}`,
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 10_000,
        frequency: "ad_hoc",
        currency: CURRENCY,
        validFrom: suite.real.clock.now().toISOString(),
        validTo: null,
        agreement: mandateAgreement,
        assertion: assertionFor(suite.real, `status-race-session-${n}`, customerUid),
      }),
    );
    if (mandate.kind !== "answer" || mandate.status !== 201) throw new Error("mandate refused");
    return { customerUid, walletUid, mandateUid: JSON.parse(mandate.body).uid as string };
  }

  const mandateDebit = (walletUid: string, mandateUid: string, ref: string) => () =>
    send(
      suite.real,
      "mandateDebit",
      `status-race-debit-${ref}-${mandateUid}`,
      JSON.stringify({
        mandateUid,
        input: { walletUid, amountMinor: 1_000, currency: CURRENCY, clientReference: `${mandateUid}-${ref}` },
      }),
    );

  /** The tenant's revocation of the mandate, as a request; `tag` makes its idempotency key. */
  const revocation = (mandateUid: string, tag: string) => () =>
    send(
      suite.real,
      "revoke",
      `status-race-revoke-${tag}-${mandateUid}`,
      JSON.stringify({ mandateUid, reason: "race" }),
    );

  /** Runs `work`, recording its name in `order` when it settles. */
  const settles =
    <T>(order: string[], name: string, work: () => Promise<T>) =>
    async () => {
      try {
        return await work();
      } finally {
        order.push(name);
      }
    };

  const operator = (work: Parameters<typeof suite.real.uow.run>[0]) => () =>
    valueOrCode(async () => {
      await suite.real.uow.run(work);
      return "ok";
    });

  /** The operator's suspension of the customer. */
  const suspension = (customerUid: string) =>
    operator((tx) => changeCustomerStatus(suite.real.deps, tx, customerUid, "suspended"));

  it("a revocation waits for a mandate debit in flight, and is answered after it", async () => {
    const { walletUid, mandateUid } = await customerWithMandate();
    const order: string[] = [];
    // The debit stops at inserting its operation, the wallet share-locked; the revocation runs.
    const [debit, revoke] = await firstStopsAt(
      suite.url,
      "operations",
      settles(order, "debit", mandateDebit(walletUid, mandateUid, "a")),
      settles(order, "revoke", revocation(mandateUid, "a")),
    );
    expect([debit, revoke].map(outcomeOf)).toEqual(["ok", "ok"]);
    expect(order).toEqual(["debit", "revoke"]);
  });

  it("a mandate debit that starts while the revocation runs waits for it, then is refused", async () => {
    const { walletUid, mandateUid } = await customerWithMandate();
    // The revocation stops at updating the mandate, its wallet locked; the debit runs meanwhile.
    const [revoke, debit] = await firstStopsAt(
      suite.url,
      "mandates",
      revocation(mandateUid, "b"),
      mandateDebit(walletUid, mandateUid, "b"),
    );
    expect([revoke, debit].map(outcomeOf)).toEqual(["ok", "UnprocessableEntity"]);
  });

  it("the operator's suspension of a mandate: a debit that starts meanwhile is refused", async () => {
    const { walletUid, mandateUid } = await customerWithMandate();
    const [suspend, debit] = await firstStopsAt(
      suite.url,
      "mandates",
      operator((tx) => setMandateStatus(suite.real.deps, tx, mandateUid, "suspended")),
      mandateDebit(walletUid, mandateUid, "c"),
    );
    expect([suspend, outcomeOf(debit)]).toEqual(["ok", "UnprocessableEntity"]);
  });

  it("a customer's suspension waits for a credit in flight, and is answered after it", async () => {
    const { customerUid, walletUid } = await customerWithMandate();
    const order: string[] = [];
    const [credit, suspend] = await firstStopsAt(
      suite.url,
      "operations",
      settles(order, "credit", () =>
        send(
          suite.real,
          "credit",
          `status-race-credit-${walletUid}`,
          creditBody(walletUid, 1_000, "in-flight"),
        ),
      ),
      settles(order, "suspend", suspension(customerUid)),
    );
    expect([outcomeOf(credit), suspend]).toEqual(["ok", "ok"]);
    expect(order).toEqual(["credit", "suspend"]);
  });

  it("a credit that starts while the customer's suspension runs waits for it, then is refused", async () => {
    const { customerUid, walletUid } = await customerWithMandate();
    // The suspension stops at updating the customer, its wallets locked; the credit runs meanwhile.
    const [suspend, credit] = await firstStopsAt(suite.url, "customers", suspension(customerUid), () =>
      send(suite.real, "credit", `status-race-credit-b-${walletUid}`, creditBody(walletUid, 1_000, "b")),
    );
    expect([suspend, outcomeOf(credit)]).toEqual(["ok", "CustomerNotActive"]);
  });

  /** The customer's msisdn identifier (the payouts' destination) and a payout body to it. */
  async function payoutTo(customerUid: string, walletUid: string, ref: string) {
    const { rows } = await suite.sql.query(
      "select uid from identifiers where customer_uid = $1 and type = 'msisdn'",
      [customerUid],
    );
    const identifierUid = rows[0].uid as string;
    const clientReference = `payout-race-${ref}-${walletUid}`;
    const body = JSON.stringify({
      walletUid,
      destinationIdentifierUid: identifierUid,
      amountMinor: 1_000,
      currency: CURRENCY,
      railCode: RAIL,
      clientReference,
      assertion: assertionFor(suite.real, `payout-race-session-${ref}-${walletUid}`, customerUid, {
        walletUid,
        amountMinor: 1_000,
        target: identifierUid,
        clientReference,
      }),
    });
    const payout = () => send(suite.real, "payout", clientReference, body);
    const revocation = operator((tx) =>
      updateIdentifier(suite.real.deps, suite.real.ctx, tx, customerUid, identifierUid, {
        verificationStatus: "revoked",
        verifiedAt: null,
      }),
    );
    return { payout, revocation };
  }

  it("a revocation of a payout's destination waits for the payout in flight, and is answered after it", async () => {
    const { customerUid, walletUid } = await customerWithMandate();
    const { payout, revocation } = await payoutTo(customerUid, walletUid, "a");
    const order: string[] = [];
    const [paid, revoked] = await firstStopsAt(
      suite.url,
      "operations",
      settles(order, "payout", payout),
      settles(order, "revoke", revocation),
    );
    expect([outcomeOf(paid), revoked]).toEqual(["ok", "ok"]);
    expect(order).toEqual(["payout", "revoke"]);
  });

  it("a payout that starts while its destination's revocation runs waits for it, then is refused", async () => {
    const { customerUid, walletUid } = await customerWithMandate();
    const { payout, revocation } = await payoutTo(customerUid, walletUid, "b");
    // The revocation stops at updating the identifier, the customer's wallets locked.
    const [revoked, paid] = await firstStopsAt(suite.url, "identifiers", revocation, payout);
    expect([revoked, outcomeOf(paid)]).toEqual(["ok", "UnprocessableEntity"]);
  });
});
