import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Tenant } from "../src/index.js";
import {
  creditWallet,
  entriesOf,
  fundPrefund,
  isDomainError,
  mustStayNonNegative,
  onboardCustomer,
  runIdempotent,
} from "../src/index.js";
import { createCore, onboardingInput, tenantFixture } from "./support/core.js";

type Command =
  | { kind: "fund"; tenant: number; amount: number }
  | { kind: "credit"; tenant: number; wallet: number; amount: number; key: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant("fund" as const),
    tenant: fc.nat(1),
    amount: fc.integer({ min: 1, max: 5_000_000 }),
  }),
  fc.record({
    kind: fc.constant("credit" as const),
    tenant: fc.nat(1),
    wallet: fc.nat(2),
    amount: fc.oneof(fc.integer({ min: 1, max: 3_000_000 }), fc.integer({ min: 1, max: 8_000_000 })),
    key: fc.nat(12), // small key space: many replays of the same key
  }),
);

/**
 * Ledger invariants over random sequences of fundings and idempotent credits, including replays of
 * the same Idempotency-Key and refusals: journals balance, every currency nets to zero, protected
 * accounts never go negative, balances equal the fold of the journal, and a replay posts nothing.
 */
describe("ledger invariants (property)", () => {
  it("hold for every sequence of commands", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 40 }), async (commands) => {
        const core = createCore();
        const tenants: Tenant[] = [tenantFixture("t0"), tenantFixture("t1")];
        const wallets: string[][] = [[], []];
        for (const [i, t] of tenants.entries()) {
          await core.run((tx) => tx.tenants.upsert(t));
          for (let w = 0; w < 3; w++) {
            const ids = onboardingInput().identifiers.map((x) => ({ ...x, value: `${x.value}${w}` }));
            const c = await core.run((tx) =>
              onboardCustomer(core.deps, core.ctxFor(t), tx, onboardingInput({ identifiers: ids }) as never),
            );
            wallets[i]!.push(c.walletUid);
          }
        }
        const firstOutcome = new Map<string, string>();
        for (const cmd of commands) {
          const journalsBefore = core.store.state.journals.length;
          if (cmd.kind === "fund") {
            await core.run((tx) =>
              fundPrefund(core.deps, tx, {
                tenantId: tenants[cmd.tenant]!.id,
                amountMinor: cmd.amount,
                currency: "KES",
              }),
            );
            expect(core.store.state.journals.length).toBe(journalsBefore + 1);
          } else {
            const tenant = tenants[cmd.tenant]!;
            const key = `k${cmd.key}`;
            const body = `${cmd.wallet}:${cmd.amount}`;
            const outcome = await runIdempotent(
              core.store.uow,
              core.deps.clock,
              { tenantId: tenant.id, key, requestHash: body },
              async (tx) => {
                const op = await creditWallet(core.deps, core.ctxFor(tenant), tx, {
                  walletUid: wallets[cmd.tenant]![cmd.wallet]!,
                  amountMinor: cmd.amount,
                  currency: "KES",
                  clientReference: key,
                });
                return { status: 201, body: JSON.stringify(op) };
              },
              (e) => ({ status: 422, body: JSON.stringify({ error: e.code }) }),
            ).catch((e) => {
              if (isDomainError(e)) return { replayed: false, response: { status: 0, body: e.code } };
              throw e;
            });
            const id = `${tenant.id}/${key}`;
            const first = firstOutcome.get(id);
            if (first === undefined) {
              firstOutcome.set(id, `${body}|${outcome.response.body}`);
            } else if (first.startsWith(`${body}|`)) {
              // A replay returns the first answer and posts nothing.
              expect(outcome.replayed).toBe(true);
              expect(`${body}|${outcome.response.body}`).toBe(first);
              expect(core.store.state.journals.length).toBe(journalsBefore);
            } else {
              expect(outcome.response.body).toBe("IdempotencyKeyReused");
              expect(core.store.state.journals.length).toBe(journalsBefore);
            }
          }

          // Invariants after every command.
          const fold = new Map<string, number>();
          const net = new Map<string, number>();
          for (const j of core.store.state.journals) {
            expect(j.entries.reduce((s, e) => s + e.amountMinor, 0)).toBe(0);
            for (const e of j.entries) {
              fold.set(
                `${e.accountKey}/${j.currency}`,
                (fold.get(`${e.accountKey}/${j.currency}`) ?? 0) + e.amountMinor,
              );
              net.set(j.currency, (net.get(j.currency) ?? 0) + e.amountMinor);
            }
          }
          for (const total of net.values()) expect(total).toBe(0);
          for (const [id, account] of core.store.state.accounts) {
            expect(account.balance).toBe(fold.get(id) ?? 0);
            if (mustStayNonNegative(id.split("/")[0]!)) expect(account.balance).toBeGreaterThanOrEqual(0);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("journal entries", () => {
  it("refuses a transfer from an account to itself: two lines that move nothing", () => {
    expect(() =>
      entriesOf([{ from: "wallet:w1", to: "wallet:w1", amountMinor: 5, label: "amount" }]),
    ).toThrow();
  });
});
