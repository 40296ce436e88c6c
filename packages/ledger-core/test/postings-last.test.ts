import { describe, expect, it } from "vitest";
import {
  creditWallet,
  fundPrefund,
  onboardCustomer,
  runIdempotent,
  type Tenant,
  type Tx,
  type UnitOfWork,
} from "../src/index.js";
import { postingsLast } from "../src/ledger/posting.js";
import { createCore, onboardingInput, tenantFixture } from "./support/core.js";

/** A memory core with one onboarded wallet, and a unit of work that logs the calls that matter here. */
async function world(prefundMinor: number) {
  const core = createCore();
  const tenant: Tenant = tenantFixture("t0");
  await core.run((tx) => tx.tenants.upsert(tenant));
  const { walletUid } = await core.run((tx) =>
    onboardCustomer(core.deps, core.ctxFor(tenant), tx, onboardingInput() as never),
  );
  if (prefundMinor > 0) {
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: tenant.id, amountMinor: prefundMinor, currency: "KES" }),
    );
  }
  const calls: string[] = [];
  const logged = (tx: Tx): Tx => ({
    ...tx,
    ledger: {
      ...tx.ledger,
      post: (journal) => {
        calls.push(`post ${journal.kind}`);
        return tx.ledger.post(journal);
      },
    },
    idempotency: {
      ...tx.idempotency,
      complete: (tenantId, key, claimedAt, response) => {
        calls.push(`complete ${response.status}`);
        return tx.idempotency.complete(tenantId, key, claimedAt, response);
      },
    },
  });
  const uow: UnitOfWork = {
    run: (work) => core.store.uow.run((tx) => work(logged(tx))),
    autocommit: (work) => core.store.uow.autocommit((tx) => work(logged(tx))),
  };
  const credit = (key: string, amountMinor: number) =>
    runIdempotent(
      uow,
      core.deps.clock,
      { tenantId: tenant.id, key, requestHash: `h-${key}` },
      async (tx) => {
        const op = await creditWallet(core.deps, core.ctxFor(tenant), tx, {
          walletUid,
          amountMinor,
          currency: "KES",
          clientReference: key,
        });
        calls.push("work done");
        return { status: 201, body: JSON.stringify(op) };
      },
      (e) => ({ status: 422, body: e.code }),
    );
  return { core, uow, calls, credit, walletUid };
}

describe("postings last in an idempotent write", () => {
  it("stores the answer, then posts to the shared accounts, in the same transaction", async () => {
    const { core, calls, credit } = await world(10_000);
    const journals = core.store.state.journals.length;
    const outcome = await credit("k1", 2_500);
    expect(outcome.response.status).toBe(201);
    expect(calls).toEqual(["work done", "complete 201", "post wallet_credit"]);
    expect(core.store.state.journals.length).toBe(journals + 1);
  });

  it("a refused posting fails the whole unit: the refusal is stored instead and nothing moved", async () => {
    const { core, calls, credit } = await world(1_000);
    const journals = core.store.state.journals.length;
    const outcome = await credit("k1", 2_500);
    expect(outcome).toEqual({ replayed: false, response: { status: 422, body: "FundingNotPositioned" } });
    // The answer of the rolled-back try, then the posting that refused, then the stored refusal.
    expect(calls).toEqual(["work done", "complete 201", "post wallet_credit", "complete 422"]);
    expect(core.store.state.journals.length).toBe(journals);
    expect([...core.store.state.operations.values()].some((op) => op.clientReference === "k1")).toBe(false);
    expect((await credit("k1", 2_500)).replayed).toBe(true);
  });

  it("posts at once outside an idempotent write, and does not nest", async () => {
    const { core, uow, calls } = await world(10_000);
    const tenant = tenantFixture("t0");
    const { walletUid } = await core.run((tx) =>
      onboardCustomer(
        core.deps,
        core.ctxFor(tenant),
        tx,
        onboardingInput({
          identifiers: onboardingInput().identifiers.map((x: { value: string }) => ({
            ...x,
            value: `${x.value}9`,
          })),
        }) as never,
      ),
    );
    await uow.run(async (tx) => {
      await creditWallet(core.deps, core.ctxFor(tenant), tx, {
        walletUid,
        amountMinor: 10,
        currency: "KES",
        clientReference: "plain",
      });
      calls.push("work done");
    });
    expect(calls).toEqual(["post wallet_credit", "work done"]);
    await expect(
      core.run((tx) =>
        postingsLast(
          tx,
          () =>
            postingsLast(
              tx,
              async () => 1,
              async () => {},
            ),
          async () => {},
        ),
      ),
    ).rejects.toThrow("postingsLast does not nest");
  });
});
