import { describe, expect, it } from "vitest";
import {
  CONCURRENT_UPDATE_ATTEMPTS,
  ConcurrentUpdateError,
  creditWallet,
  type DomainError,
  fundPrefund,
  IDEMPOTENCY_LOCK_SECONDS,
  onboardCustomer,
  refuse,
  runIdempotent,
  StoreUnavailableError,
  type Tenant,
  type UnitOfWork,
} from "../src/index.js";
import { createCore, onboardingInput, refusal, tenantFixture } from "./support/core.js";

/**
 * A request that runs past its claim's lock while another request takes the key over (the taker
 * claims once the lock has expired) must not commit its work nor store its answer.
 */
describe("runIdempotent: a claim taken over while its request still runs", () => {
  async function world() {
    const core = createCore();
    const tenant: Tenant = tenantFixture("t0");
    await core.run((tx) => tx.tenants.upsert(tenant));
    const { walletUid } = await core.run((tx) =>
      onboardCustomer(core.deps, core.ctxFor(tenant), tx, onboardingInput() as never),
    );
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: tenant.id, amountMinor: 10_000, currency: "KES" }),
    );
    const claim = { tenantId: tenant.id, key: "k-slow", requestHash: "h-slow" };
    const held = () => core.store.state.idempotency.get(`${tenant.id}/${claim.key}`);
    /** Another request's claim of the key, made once the first claim's lock has expired. */
    const taker = { createdAt: "" };
    const takeOver = async () => {
      const first = held()!;
      const later = new Date(Date.parse(first.lockedUntil) + 1);
      taker.createdAt = later.toISOString();
      await core.store.uow.run((tx) =>
        tx.idempotency.claim({
          ...first,
          createdAt: later.toISOString(),
          lockedUntil: new Date(later.getTime() + IDEMPOTENCY_LOCK_SECONDS * 1000).toISOString(),
        }),
      );
    };
    /** The store's unit of work, with the take-over slipped in before the n-th call of `which`. */
    const uowTakenOverBefore = (which: "run" | "autocommit", n: number): UnitOfWork => {
      let calls = 0;
      const before = async () => {
        if (++calls === n) await takeOver();
      };
      return {
        run: async (work) => {
          if (which === "run") await before();
          return core.store.uow.run(work);
        },
        autocommit: async (work) => {
          if (which === "autocommit") await before();
          return core.store.uow.autocommit(work);
        },
      };
    };
    return { core, tenant, walletUid, claim, held, taker, uowTakenOverBefore };
  }

  it("the work rolls back and the request answers IdempotencyKeyInUse; the taker keeps the key", async () => {
    const { core, tenant, walletUid, claim, held, taker, uowTakenOverBefore } = await world();
    const journals = core.store.state.journals.length;
    const e = await refusal(
      runIdempotent(
        uowTakenOverBefore("run", 1),
        core.deps.clock,
        claim,
        async (tx) => {
          const op = await creditWallet(core.deps, core.ctxFor(tenant), tx, {
            walletUid,
            amountMinor: 2_500,
            currency: "KES",
            clientReference: "slow-1",
          });
          return { status: 201, body: JSON.stringify(op) };
        },
        () => null,
      ),
    );
    expect(e.code).toBe("IdempotencyKeyInUse");
    expect(core.store.state.journals.length).toBe(journals);
    expect([...core.store.state.operations.values()].some((o) => o.clientReference === "slow-1")).toBe(false);
    // The taker's claim is neither completed nor released by the request it replaced.
    expect(held()).toMatchObject({ state: "in_progress", response: null, createdAt: taker.createdAt });
  });

  it("a refusal is not stored over the taker's claim either", async () => {
    const { core, claim, held, taker, uowTakenOverBefore } = await world();
    // The first autocommit is the claim; the second would store the refusal.
    const e = await refusal(
      runIdempotent(
        uowTakenOverBefore("autocommit", 2),
        core.deps.clock,
        claim,
        async () => refuse("UnprocessableEntity", "refused"),
        () => ({ status: 422, body: "refused" }),
      ),
    );
    expect(e.code).toBe("IdempotencyKeyInUse");
    expect(held()).toMatchObject({ state: "in_progress", response: null, createdAt: taker.createdAt });
  });

  it("without a take-over, both paths store their answer as before", async () => {
    const { core, claim, held } = await world();
    const outcome = await runIdempotent(
      core.store.uow,
      core.deps.clock,
      claim,
      async () => refuse("UnprocessableEntity", "refused"),
      () => ({ status: 422, body: "refused" }),
    );
    expect(outcome).toEqual({ replayed: false, response: { status: 422, body: "refused" } });
    expect(held()).toMatchObject({ state: "completed", response: { status: 422, body: "refused" } });
  });
});

describe("runIdempotent: a refusal the store fails to keep", () => {
  it("releases the key, so that a retry runs again instead of meeting IdempotencyKeyInUse", async () => {
    const core = createCore();
    const claim = { tenantId: "t0", key: "k-503", requestHash: "h-503" };
    let autocommits = 0;
    // The first autocommit is the claim; the second, storing the 422, meets an outage.
    const failing: UnitOfWork = {
      run: (work) => core.store.uow.run(work),
      autocommit: async (work) => {
        if (++autocommits === 2) throw new StoreUnavailableError("The store is unavailable: test");
        return core.store.uow.autocommit(work);
      },
    };
    const first = await runIdempotent(
      failing,
      core.deps.clock,
      claim,
      async () => refuse("UnprocessableEntity", "refused"),
      () => ({ status: 422, body: "refused" }),
    ).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(StoreUnavailableError);
    expect(core.store.state.idempotency.get("t0/k-503")).toBeUndefined();
    // The retry runs (and its refusal is stored this time).
    const retry = await runIdempotent(
      core.store.uow,
      core.deps.clock,
      claim,
      async () => refuse("UnprocessableEntity", "refused"),
      () => ({ status: 422, body: "refused" }),
    );
    expect(retry).toEqual({ replayed: false, response: { status: 422, body: "refused" } });
  });
});

describe("runIdempotent: a work that lost an update to a concurrent request", () => {
  const claim = { tenantId: "t0", key: "k-409", requestHash: "h-409" };
  const lost = () => {
    throw new ConcurrentUpdateError("mandate");
  };
  const storeAll = (e: DomainError) => ({ status: 409, body: e.message });

  it("runs again, and answers (and stores) what the next run answers", async () => {
    const core = createCore();
    let runs = 0;
    const outcome = await runIdempotent(
      core.store.uow,
      core.deps.clock,
      claim,
      async () => (++runs === 1 ? lost() : { status: 200, body: "revoked" }),
      storeAll,
    );
    expect(runs).toBe(2);
    expect(outcome).toEqual({ replayed: false, response: { status: 200, body: "revoked" } });
    expect(core.store.state.idempotency.get("t0/k-409")).toMatchObject({ state: "completed" });
  });

  it("after CONCURRENT_UPDATE_ATTEMPTS runs, answers the 409 without storing it: the key's retry runs", async () => {
    const core = createCore();
    let runs = 0;
    const e = await refusal(
      runIdempotent(
        core.store.uow,
        core.deps.clock,
        claim,
        async () => {
          runs++;
          return lost();
        },
        storeAll,
      ),
    );
    expect([e.code, runs]).toEqual(["Conflict", CONCURRENT_UPDATE_ATTEMPTS]);
    expect(core.store.state.idempotency.get("t0/k-409")).toBeUndefined();
    const retry = await runIdempotent(
      core.store.uow,
      core.deps.clock,
      claim,
      async () => ({ status: 200, body: "revoked" }),
      storeAll,
    );
    expect(retry).toEqual({ replayed: false, response: { status: 200, body: "revoked" } });
  });

  it("an ordinary 409 is stored at once, without a second run", async () => {
    const core = createCore();
    let runs = 0;
    const outcome = await runIdempotent(
      core.store.uow,
      core.deps.clock,
      claim,
      async () => {
        runs++;
        return refuse("Conflict", "The mandate is already revoked");
      },
      storeAll,
    );
    expect([runs, outcome.response]).toEqual([1, { status: 409, body: "The mandate is already revoked" }]);
  });
});

describe("runIdempotent: a key outside the API's rule", () => {
  // The API refuses such an Idempotency-Key header first; in-process, a 3,000-character key was a
  // Postgres-only failure (the index's limit), an empty one a key like any other.
  it("is refused (400) before anything is claimed or run", async () => {
    const core = createCore();
    let runs = 0;
    for (const key of ["", "k".repeat(256), "caf\u00e9", "tab\there", 42]) {
      const e = await refusal(
        runIdempotent(
          core.store.uow,
          core.deps.clock,
          { tenantId: "t0", key: key as string, requestHash: "h" },
          async () => {
            runs++;
            return { status: 201, body: "" };
          },
          () => null,
        ),
      );
      expect([e.code, e.details]).toEqual([
        "InvalidRequest",
        [{ field: "key", issue: "must be 1-255 printable ASCII characters" }],
      ]);
    }
    expect([runs, core.store.state.idempotency.size]).toEqual([0, 0]);
  });
});

describe("runIdempotent: the claim's lock", () => {
  // Shorter, and a request still running would have its key taken over by a retry, which then
  // runs the write a second time.
  it("holds a claim for IDEMPOTENCY_LOCK_SECONDS (60 s) from its creation", async () => {
    expect(IDEMPOTENCY_LOCK_SECONDS).toBe(60);
    const core = createCore();
    await core.run((tx) => tx.tenants.upsert(tenantFixture("t0")));
    let held: { createdAt: string; lockedUntil: string } | undefined;
    await runIdempotent(
      core.store.uow,
      core.deps.clock,
      { tenantId: "t0", key: "k-lock", requestHash: "h" },
      async () => {
        held = { ...core.store.state.idempotency.get("t0/k-lock")! };
        return { status: 200, body: "{}" };
      },
      () => null,
    );
    expect(Date.parse(held!.lockedUntil) - Date.parse(held!.createdAt)).toBe(60_000);
  });
});
