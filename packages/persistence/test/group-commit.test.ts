import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DomainError, type Tx } from "@wallet/ledger-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveGroupCommit } from "../src/group-commit/group-commit.js";
import {
  type BatchEngine,
  createFreshPostgresDatabase,
  createPostgresStore,
  createSqliteStore,
  type GroupCommitOptions,
  groupCommitUnitOfWork,
  postgresTestUrl,
  type Store,
} from "../src/index.js";
import { at, operationFixture, tenantFixture, unique } from "./contract/fixtures.js";

/** The error `p` rejects with; fails the test when it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

/** True once `p` has settled (checked after the microtasks queued so far have run). */
async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}

/**
 * An engine that records what the writer asks of it, so batching, ordering and failure handling
 * can be checked without a database. `commit` decides how each transaction ends.
 */
function recordingEngine(commit: (n: number) => Promise<void> = async () => {}) {
  const events: string[] = [];
  let transactions = 0;
  const engine: BatchEngine<string[]> = {
    async transaction(body) {
      const n = ++transactions;
      events.push(`begin ${n}`);
      await body(events);
      await commit(n);
      events.push(`commit ${n}`);
    },
    savepoint: async (log) => void log.push("savepoint"),
    release: async (log) => void log.push("release"),
    rollback: async (log) => void log.push("rollback"),
    tx: () => ({}) as Tx,
    mapError: (e) => (e instanceof Error && e.message === "raw" ? new Error("mapped") : e),
  };
  return { engine, events, transactions: () => transactions };
}

describe("group commit writer", () => {
  it("runs the calls of one turn in one transaction, each in a savepoint, in arrival order", async () => {
    const { engine, events, transactions } = recordingEngine();
    const uow = groupCommitUnitOfWork(engine);
    const results = await Promise.all(
      ["a", "b", "c"].map((name) =>
        uow.run(async () => {
          events.push(`work ${name}`);
          return name.toUpperCase();
        }),
      ),
    );
    expect(results).toEqual(["A", "B", "C"]);
    expect(transactions()).toBe(1);
    expect(events).toEqual([
      "begin 1",
      ...["a", "b", "c"].flatMap((n) => ["savepoint", `work ${n}`, "release"]),
      "commit 1",
    ]);
  });

  it("rolls a throwing call back to its savepoint and rejects it alone", async () => {
    const { engine, events } = recordingEngine();
    const uow = groupCommitUnitOfWork(engine);
    const refusal = new DomainError("Conflict", "refused");
    const [a, b, c] = await Promise.allSettled([
      uow.run(async () => "a"),
      uow.run(async () => {
        throw refusal;
      }),
      uow.run(async () => "c"),
    ]);
    expect(a).toEqual({ status: "fulfilled", value: "a" });
    expect(b).toEqual({ status: "rejected", reason: refusal });
    expect(c).toEqual({ status: "fulfilled", value: "c" });
    expect(events).toEqual([
      "begin 1",
      "savepoint",
      "release",
      "savepoint",
      "rollback",
      "savepoint",
      "release",
      "commit 1",
    ]);
  });

  it("releases a kept savepoint together with the next one when the engine can (one round trip)", async () => {
    const { engine, events } = recordingEngine();
    const uow = groupCommitUnitOfWork({
      ...engine,
      releaseAndSavepoint: async (log) => void log.push("release+savepoint"),
    });
    await Promise.all(
      ["a", "b"].map((name) =>
        uow.run(async () => {
          events.push(`work ${name}`);
        }),
      ),
    );
    expect(events).toEqual([
      "begin 1",
      "savepoint",
      "work a",
      "release+savepoint",
      "work b",
      "release",
      "commit 1",
    ]);
  });

  it("runs a unit that gave up on a lock again, first in the next batch, and answers it then", async () => {
    const { engine, events, transactions } = recordingEngine();
    const busy = Object.assign(new Error("lock busy"), { code: "busy" });
    const uow = groupCommitUnitOfWork({
      ...engine,
      gaveUpOnLock: (e) => e === busy,
    });
    let tries = 0;
    const results = await Promise.all([
      uow.run(async () => void events.push("work a")),
      uow.run(async () => {
        events.push(`work b, try ${++tries}`);
        if (tries === 1) throw busy;
        return "b";
      }),
      uow.run(async () => void events.push("work c")),
    ]);
    expect(results).toEqual([undefined, "b", undefined]);
    expect(transactions()).toBe(2);
    expect(events).toEqual([
      "begin 1",
      ...["savepoint", "work a", "release"],
      ...["savepoint", "work b, try 1", "rollback"],
      ...["savepoint", "work c", "release"],
      "commit 1",
      "begin 2",
      ...["savepoint", "work b, try 2", "release"],
      "commit 2",
    ]);
  });

  it("answers nobody before the commit, and everybody with the failure when the commit fails", async () => {
    let failCommit!: (e: Error) => void;
    const commitGate = new Promise<void>((_, reject) => (failCommit = reject));
    const { engine } = recordingEngine(() => commitGate);
    const uow = groupCommitUnitOfWork(engine);
    const calls = [uow.run(async () => 1), uow.run(async () => 2)];
    expect(await isSettled(calls[0] as Promise<number>)).toBe(false);
    failCommit(new Error("raw"));
    for (const call of calls) {
      // The engine's mapError is applied: callers see the store's vocabulary, not the driver's.
      expect(await rejection(call)).toEqual(new Error("mapped"));
    }
  });

  it("splits the queue into batches of maxBatch and keeps their order", async () => {
    const { engine, transactions } = recordingEngine();
    const uow = groupCommitUnitOfWork(engine, { maxBatch: 2 });
    const order: number[] = [];
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) =>
        uow.run(async () => {
          order.push(n);
        }),
      ),
    );
    expect(transactions()).toBe(3);
    expect(order).toEqual([1, 2, 3, 4, 5]);
  });

  it("waits up to maxWaitMs for later calls to join the batch", async () => {
    const { engine, transactions } = recordingEngine();
    const uow = groupCommitUnitOfWork(engine, { maxWaitMs: 200 });
    const first = uow.run(async () => 1);
    await new Promise((r) => setTimeout(r, 20));
    const second = uow.run(async () => 2);
    expect(await Promise.all([first, second])).toEqual([1, 2]);
    expect(transactions()).toBe(1);
  });

  it("queues calls that arrive during a batch for the next one; drain waits for all of them", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { engine, transactions } = recordingEngine((n) => (n === 1 ? gate : Promise.resolve()));
    const uow = groupCommitUnitOfWork(engine);
    const first = uow.run(async () => "first");
    await new Promise((r) => setImmediate(r));
    const second = uow.run(async () => "second");
    const drained = uow.drain();
    expect(await isSettled(drained)).toBe(false);
    release();
    await drained;
    expect(await Promise.all([first, second])).toEqual(["first", "second"]);
    expect(transactions()).toBe(2);
  });

  it("refuses options out of bounds", () => {
    expect(() => resolveGroupCommit({ maxBatch: 0 })).toThrow(RangeError);
    expect(() => resolveGroupCommit({ maxWaitMs: -1 })).toThrow(/maxWaitMs/);
    expect(() => resolveGroupCommit({ writers: 1.5 })).toThrow(/writers/);
    expect(resolveGroupCommit({})).toEqual({ maxBatch: 64, maxWaitMs: 0, writers: 1 });
  });
});

interface Engine {
  name: string;
  open: (groupCommit: GroupCommitOptions) => Promise<{ store: Store; dispose: () => Promise<void> }>;
}

const engines: Engine[] = [
  {
    name: "sqlite",
    open: async (groupCommit) => {
      const dir = mkdtempSync(join(tmpdir(), "wallet-group-commit-"));
      const store = createSqliteStore({ filename: join(dir, "wallet.db"), groupCommit });
      return { store, dispose: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
];
const pgUrl = postgresTestUrl();
if (pgUrl) {
  engines.push({
    name: "postgres",
    open: async (groupCommit) => {
      const fresh = await createFreshPostgresDatabase(pgUrl);
      const store = createPostgresStore({ connectionString: fresh.url, groupCommit });
      return { store, dispose: () => fresh.drop() };
    },
  });
} else {
  console.log("group commit on postgres skipped: set WALLET_TEST_POSTGRES_URL to run it");
}

for (const engine of engines) {
  describe(`group commit on ${engine.name}`, () => {
    let store: Store;
    let dispose: () => Promise<void>;

    beforeAll(async () => {
      ({ store, dispose } = await engine.open({ maxBatch: 64, maxWaitMs: 0 }));
      await store.migrate();
    });
    afterAll(async () => {
      await store?.close();
      await dispose?.();
    });

    const tenantExists = async (id: string) => (await store.uow.run((tx) => tx.tenants.get(id))) !== null;

    it("a refused unit of work leaves the others of its batch committed", async () => {
      const [a, b, c] = [unique("ten"), unique("ten"), unique("ten")];
      const refusal = new DomainError("InsufficientFunds", "refused after writing");
      const outcomes = await Promise.allSettled([
        store.uow.run((tx) => tx.tenants.upsert(tenantFixture(a))),
        store.uow.run(async (tx) => {
          await tx.tenants.upsert(tenantFixture(b));
          throw refusal;
        }),
        store.uow.run((tx) => tx.tenants.upsert(tenantFixture(c))),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect((outcomes[1] as PromiseRejectedResult).reason).toBe(refusal);
      expect([await tenantExists(a), await tenantExists(b), await tenantExists(c)]).toEqual([
        true,
        false,
        true,
      ]);
    });

    it("a failed statement (Postgres aborts the transaction) is undone by its savepoint alone", async () => {
      const tenantId = unique("ten");
      await store.uow.run((tx) => tx.tenants.upsert(tenantFixture(tenantId)));
      const op = operationFixture(tenantId);
      const after = unique("ten");
      const outcomes = await Promise.allSettled([
        store.uow.run((tx) => tx.operations.insert(op)),
        // Same primary key: a plain constraint violation, not a business conflict.
        store.uow.run((tx) => tx.operations.insert({ ...op })),
        store.uow.run((tx) => tx.tenants.upsert(tenantFixture(after))),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(await store.uow.run((tx) => tx.operations.get(tenantId, op.uid))).toMatchObject({ uid: op.uid });
      expect(await tenantExists(after)).toBe(true);
    });

    it("a commit failure fails every unit of work of the batch, none of which happened", async () => {
      const innocent = unique("ten");
      const outcomes = await Promise.allSettled([
        store.uow.run((tx) => tx.tenants.upsert(tenantFixture(innocent))),
        // A timeline event of an operation that does not exist: the deferred foreign key only
        // fails at COMMIT, which is shared by the whole batch.
        store.uow.run((tx) =>
          tx.operations.appendTimeline({
            operationUid: unique("op_missing"),
            sequenceNo: 0,
            fromState: null,
            toState: "created",
            occurredAt: at(0),
            actorType: "system",
          }),
        ),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
      expect(await tenantExists(innocent)).toBe(false);
    });

    it("units of work of one batch run in arrival order, each seeing the ones before it", async () => {
      const id = unique("ten");
      const names = await Promise.all([
        store.uow.run(async (tx) => {
          await tx.tenants.upsert(tenantFixture(id, { name: "first" }));
          return "first";
        }),
        store.uow.run(async (tx) => {
          const seen = await tx.tenants.get(id);
          await tx.tenants.upsert(tenantFixture(id, { name: `${seen?.name} then second` }));
          return seen?.name;
        }),
        store.uow.run(async (tx) => (await tx.tenants.get(id))?.name),
      ]);
      expect(names).toEqual(["first", "first", "first then second"]);
    });

    it("a burst larger than one batch is answered in full and in order", async () => {
      const ids = Array.from({ length: 150 }, () => unique("ten"));
      await Promise.all(ids.map((id) => store.uow.run((tx) => tx.tenants.upsert(tenantFixture(id)))));
      const found = await Promise.all(ids.map((id) => tenantExists(id)));
      expect(found.every(Boolean)).toBe(true);
    });
  });
}

describe.skipIf(!pgUrl)("group commit on postgres, beside another transaction", () => {
  it("a unit after a kept one does not wait for a lock: it runs again first in the next batch", async () => {
    const fresh = await createFreshPostgresDatabase(pgUrl ?? "");
    const store = createPostgresStore({ connectionString: fresh.url, groupCommit: { maxWaitMs: 0 } });
    const blocker = new pg.Client({ connectionString: fresh.url });
    try {
      await store.migrate();
      const key = "wallet:held";
      await store.uow.run((tx) => tx.ledger.lockAccounts("KES", [key]));
      await blocker.connect();
      await blocker.query("begin");
      await blocker.query("select 1 from accounts where account_key = $1 for update", [key]);
      const done: string[] = [];
      const first = store.uow.run(async (tx) => {
        await tx.tenants.upsert(tenantFixture(unique("ten")));
        done.push("first");
      });
      const second = store.uow.run(async (tx) => {
        await tx.ledger.lockAccounts("KES", [key]);
        done.push("second");
      });
      // Answered while the row is still held elsewhere: its batch did not wait for the second.
      await first;
      expect(done).toEqual(["first"]);
      await blocker.query("commit");
      await second;
      expect(done).toEqual(["first", "second"]);
    } finally {
      await blocker.end().catch(() => {});
      await store.close();
      await fresh.drop();
    }
  });
});
