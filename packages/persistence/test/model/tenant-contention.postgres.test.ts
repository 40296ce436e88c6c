import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { reportPayoutResult } from "../../../ledger-core/src/index.js";
import {
  assertionFor,
  mandateAgreement,
  type Outcome,
  onboardingBody,
  type RouteName,
  send,
} from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, INITIAL_PREFUND_MINOR, RAIL, type Real } from "../../../ledger-core/test/model/world.js";
import type { GroupCommitOptions } from "../../src/index.js";
import { openPostgresReal, postgresUrlFor } from "./postgres-real.js";

/**
 * One tenant, a few wallets, many requests at once: credits (prefund -> wallet), debits with an
 * assertion and under a mandate (wallet -> beneficiary, fees, tax), payouts (wallet -> hold,
 * fees, tax) and their results (hold -> rail clearing, or back). Every one of them locks its
 * wallet and then the tenant's shared accounts, so they meet on both kinds of row. Whatever the
 * interleaving: no request fails other than by a refusal of the rules (no deadlock, no
 * serialization failure), and not a cent is lost or invented.
 */
const pgUrl = postgresUrlFor("tenant contention");

const WALLETS = 4;
const REQUESTS = 160;
/** Refusals the rules may give under this load; anything else is a failure of the store. */
const LEGITIMATE = new Set([
  "InsufficientFunds",
  "FundingNotPositioned",
  "LimitExceeded",
  "MaxBalanceExceeded",
]);

interface Customer {
  uid: string;
  walletUid: string;
  msisdnUid: string;
  mandateUid: string;
}

async function expectAnswer(outcome: Outcome): Promise<Record<string, unknown>> {
  if (outcome.kind !== "answer" || outcome.status >= 300) throw new Error(JSON.stringify(outcome));
  return JSON.parse(outcome.body);
}

async function onboard(real: Real, n: number): Promise<Customer> {
  const view = await expectAnswer(
    await send(
      real,
      "onboard",
      `onboard-${n}`,
      JSON.stringify(onboardingBody(`+2547550000${n}`, "tier_2", "low")),
    ),
  );
  const walletUid = view.walletUid as string;
  const identifiers = view.identifiers as { type: string; uid: string }[];
  const customer = { uid: view.uid as string, walletUid };
  const mandate = await expectAnswer(
    await send(
      real,
      "mandate",
      `mandate-${n}`,
      JSON.stringify({
        customerUid: customer.uid,
        walletUid,
        beneficiaryEntityCode: "POWERCO",
        clientReference: `mandate-${n}`,
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 90_000,
        frequency: "ad_hoc",
        currency: CURRENCY,
        validFrom: new Date(real.clock.now().getTime() - 60_000).toISOString(),
        agreement: mandateAgreement,
        assertion: assertionFor(real, `mandate-${n}`, customer.uid),
      }),
    ),
  );
  return {
    ...customer,
    msisdnUid: identifiers.find((i) => i.type === "msisdn")?.uid ?? "",
    mandateUid: mandate.uid as string,
  };
}

/** The i-th request of the mix, as a route and its body (amounts vary so limits and funds bite). */
function request(real: Real, c: Customer, i: number, tag: string): { route: RouteName; body: unknown } {
  const amountMinor = 5_000 + ((i * 7_919) % 40_000);
  const clientReference = `${tag}-${i}`;
  switch (i % 5) {
    case 0:
    case 1:
      return {
        route: "credit",
        body: { walletUid: c.walletUid, amountMinor: amountMinor * 2, currency: CURRENCY, clientReference },
      };
    case 2:
      return {
        route: "mandateDebit",
        body: {
          mandateUid: c.mandateUid,
          input: { walletUid: c.walletUid, amountMinor, currency: CURRENCY, clientReference },
        },
      };
    case 3:
      return {
        route: "debit",
        body: {
          walletUid: c.walletUid,
          mandateUid: c.mandateUid,
          amountMinor,
          currency: CURRENCY,
          clientReference,
          assertion: assertionFor(real, clientReference, c.uid, {
            walletUid: c.walletUid,
            amountMinor,
            target: c.mandateUid,
            clientReference,
          }),
        },
      };
    default:
      return {
        route: "payout",
        body: {
          walletUid: c.walletUid,
          destinationIdentifierUid: c.msisdnUid,
          amountMinor,
          currency: CURRENCY,
          railCode: RAIL,
          clientReference,
          assertion: assertionFor(real, clientReference, c.uid, {
            walletUid: c.walletUid,
            amountMinor,
            target: c.msisdnUid,
            clientReference,
          }),
        },
      };
  }
}

/** Every refusal of the rules seen, by code. */
const refusals: string[] = [];

/** What went wrong beyond the rules' refusals, one line each (empty when all is well). */
async function failures(outcomes: Promise<Outcome>[]): Promise<string[]> {
  const problems: string[] = [];
  for (const settled of await Promise.allSettled(outcomes)) {
    if (settled.status === "rejected") {
      const e = settled.reason as { name?: string; message?: string; cause?: { code?: string } };
      problems.push(`${e.name}: ${e.message} (${e.cause?.code ?? "no code"})`);
      continue;
    }
    const o = settled.value;
    if (o.kind === "refused") problems.push(`refused ${String(o.code)}`);
    else if (o.status >= 300) {
      const error = JSON.parse(o.body).error as string;
      if (LEGITIMATE.has(error)) refusals.push(error);
      else problems.push(`${o.status}: ${error}`);
    }
  }
  return problems;
}

async function ledgerTotals(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const q = async (text: string) => (await client.query(text)).rows;
    return {
      // Balances that differ from the fold of their entries (should be none).
      drifted: await q(`select a.account_key, a.balance_minor, coalesce(sum(e.amount_minor), 0) as folded
        from accounts a left join journal_entries e using (account_key, currency)
        group by a.account_key, a.balance_minor
        having a.balance_minor <> coalesce(sum(e.amount_minor), 0)`),
      unbalanced: await q(
        "select journal_uid from journal_entries group by journal_uid having sum(amount_minor) <> 0",
      ),
      sum: Number((await q("select coalesce(sum(balance_minor), 0) as s from accounts"))[0].s),
      /** Credits by state: a refused one (prefund short) must leave no operation behind. */
      credits: Object.fromEntries(
        (
          await q(`select state, count(*) as n, sum(amount_minor) as total from operations
                   where type = 'wallet_credit' group by state`)
        ).map((r) => [r.state as string, { n: Number(r.n), total: Number(r.total) }]),
      ),
      byKind: Object.fromEntries(
        (
          await q(`select case when account_key like 'wallet:%' then 'wallets'
                   else split_part(account_key, ':', 1) || ':' || coalesce(nullif(split_part(account_key, ':', 3), ''), '') end as kind,
                   sum(balance_minor) as total from accounts group by 1`)
        ).map((r) => [r.kind as string, Number(r.total)]),
      ),
    };
  } finally {
    await client.end();
  }
}

describe.skipIf(pgUrl === null)("one tenant's requests at once (Postgres)", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c();
  });

  const setups: [string, GroupCommitOptions | false][] = [
    ["group commit off", false],
    ["group commit on, 2 writers", { maxBatch: 16, maxWaitMs: 0, writers: 2 }],
  ];
  for (const [name, groupCommit] of setups) {
    it(`${name}: no deadlock, only the rules' refusals, every cent accounted for`, async () => {
      refusals.length = 0;
      const opened = await openPostgresReal(pgUrl ?? "", { poolSize: 16, groupCommit });
      cleanups.push(() => opened.close());
      const { real } = opened;
      const customers: Customer[] = [];
      for (let n = 0; n < WALLETS; n++) customers.push(await onboard(real, n));
      // Enough to start with so debits and payouts have something to spend.
      for (const [n, c] of customers.entries()) {
        await expectAnswer(
          await send(
            real,
            "credit",
            `seed-${n}`,
            JSON.stringify({
              walletUid: c.walletUid,
              amountMinor: 300_000,
              currency: CURRENCY,
              clientReference: `seed-${n}`,
            }),
          ),
        );
      }

      const mixed = Array.from({ length: REQUESTS }, (_, i) => {
        const { route, body } = request(real, customers[i % WALLETS] as Customer, i, "mix");
        return send(real, route, `mix-${i}`, JSON.stringify(body));
      });
      expect(await failures(mixed)).toEqual([]);

      // The payouts' results, racing more credits, debits and payouts.
      const payouts: string[] = [];
      for (const o of await Promise.all(mixed)) {
        if (o.kind === "answer" && o.status === 202) payouts.push(JSON.parse(o.body).uid);
      }
      expect(payouts.length).toBeGreaterThan(0);
      const second: Promise<Outcome>[] = [
        ...payouts.map((operationUid, i) =>
          real.uow.run(async (tx): Promise<Outcome> => {
            const outcome = i % 3 === 0 ? "failed" : "confirmed";
            await reportPayoutResult(real.deps, tx, { railCode: RAIL, operationUid, outcome });
            return { kind: "answer", replayed: false, status: 200, body: "{}" };
          }),
        ),
        ...Array.from({ length: REQUESTS / 2 }, (_, i) => {
          const { route, body } = request(real, customers[i % WALLETS] as Customer, i, "more");
          return send(real, route, `more-${i}`, JSON.stringify(body));
        }),
      ];
      expect(await failures(second)).toEqual([]);

      const totals = await ledgerTotals(opened.url);
      expect(totals.drifted).toEqual([]);
      expect(totals.unbalanced).toEqual([]);
      expect(totals.sum).toBe(0);
      // Everything the tenant deposited is still somewhere: prefund, wallets, fees, tax, beneficiary, rail.
      expect(totals.byKind["tenant:prefund"]).toBeGreaterThanOrEqual(0);
      expect(totals.byKind["tenant:deposits"]).toBe(-INITIAL_PREFUND_MINOR);
      const { "tenant:deposits": deposits, ...held } = totals.byKind;
      expect(Object.values(held).reduce((a, b) => a + b, 0)).toBe(-(deposits ?? 0));
      // The prefund paid for the completed credits and nothing else; some were refused for it.
      expect(Object.keys(totals.credits)).toEqual(["completed"]);
      expect(totals.byKind["tenant:prefund"]).toBe(
        INITIAL_PREFUND_MINOR - (totals.credits.completed?.total ?? 0),
      );
      expect(refusals).toContain("FundingNotPositioned");
    }, 120_000);
  }
});
