import type { Tx, UnitOfWork } from "@wallet/ledger-core";

/**
 * Group commit: concurrent `uow.run` calls share one database transaction, so N use cases pay for
 * one BEGIN and one COMMIT (one WAL append on SQLite, one WAL flush on Postgres) instead of N.
 */
export interface GroupCommitOptions {
  /** Most units of work one transaction carries. Default 64. */
  maxBatch?: number;
  /**
   * Longest a unit of work waits for others to join its batch before the batch starts. Default 0:
   * the batch starts on the next turn of the event loop, taking whatever arrived meanwhile, so an
   * idle server adds no latency and a busy one still coalesces (requests arrive while a batch runs).
   */
  maxWaitMs?: number;
  /**
   * Batches in flight at once, each on its own connection. Default 1 (a single writer). Only
   * Postgres can use more; SQLite has one connection and serializes them anyway.
   */
  writers?: number;
}

export const defaultGroupCommit = { maxBatch: 64, maxWaitMs: 0, writers: 1 } as const;

const MAX_BATCH_LIMIT = 10_000;
const MAX_WAIT_MS_LIMIT = 1_000;
const WRITERS_LIMIT = 64;

/** Bounds-checked options with defaults; throws a RangeError naming the bad one. */
export function resolveGroupCommit(options: GroupCommitOptions): Required<GroupCommitOptions> {
  const resolved = { ...defaultGroupCommit, ...options };
  const check = (name: keyof GroupCommitOptions, min: number, max: number) => {
    const v = resolved[name];
    if (!Number.isInteger(v) || v < min || v > max)
      throw new RangeError(`groupCommit.${name} must be an integer from ${min} to ${max}`);
  };
  check("maxBatch", 1, MAX_BATCH_LIMIT);
  check("maxWaitMs", 0, MAX_WAIT_MS_LIMIT);
  check("writers", 1, WRITERS_LIMIT);
  return resolved;
}

/** What the writer needs from an engine: one transaction, and savepoints inside it. */
export interface BatchEngine<C> {
  /** Runs `body` in one transaction: commits when it resolves; rolls back and rejects when it throws. */
  transaction(body: (conn: C) => Promise<void>): Promise<void>;
  savepoint(conn: C): Promise<void>;
  /** Keeps the work done since `savepoint` and forgets the savepoint. */
  release(conn: C): Promise<void>;
  /** Undoes the work done since `savepoint` and forgets the savepoint. */
  rollback(conn: C): Promise<void>;
  /**
   * `release` then `savepoint` in one go, when the engine can send both in one round trip
   * (Postgres' simple query protocol); absent: the writer calls the two. On an engine with
   * `gaveUpOnLock`, it also stops the transaction's units from waiting for locks from then on.
   */
  releaseAndSavepoint?(conn: C): Promise<void>;
  /**
   * Engines whose transactions meet on row locks (Postgres): true for the failure of a unit that
   * gave up on a lock rather than wait for it, as units that follow a kept unit do. The writer
   * runs such a unit again, first in a later batch. Absent: units always wait (SQLite).
   */
  gaveUpOnLock?(e: unknown): boolean;
  /** The repositories bound to `conn`, fresh for each unit of work. */
  tx(conn: C): Tx;
  /** Translates a driver failure into the domain's vocabulary (see `mapStoreError`). */
  mapError(e: unknown): unknown;
}

interface Pending {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommitUnitOfWork extends UnitOfWork {
  /** Resolves once every unit of work queued so far has been answered (for an orderly close). */
  drain(): Promise<void>;
}

/**
 * A unit of work that coalesces concurrent calls: a single writer takes the calls queued so far
 * (up to `maxBatch`), runs each in its own SAVEPOINT inside one transaction, in arrival order,
 * commits once, and only then answers them.
 *
 * The guarantees callers had with one transaction each still hold:
 * - a call that throws (a refusal, a conflict) rolls back to its savepoint: its work is undone and
 *   it rejects with its own error, while the others of the batch go on and commit;
 * - nothing is acknowledged before the commit that makes it durable; when the commit fails, every
 *   call of the batch rejects with that failure (none of them happened);
 * - calls run one after another, each seeing everything the calls before it did, so the order of
 *   effects is the order of arrival, as with a lock per transaction;
 * - no deadlock that one transaction each would not have. A unit that follows a kept unit holds
 *   that unit's locks: waiting for a lock, it could wait for a transaction waiting for one of
 *   them, which no lock order prevents (units take their locks one unit after the other). So on
 *   an engine with `gaveUpOnLock` such a unit gives up on a lock at once, is rolled back to its
 *   savepoint and runs again first in a later batch, where it holds nothing else and may wait: a
 *   deadlock would need a cycle of transactions each waiting in its first unit, which the use
 *   cases' lock order rules out. Calls arriving meanwhile may then take effect before it.
 * Work must not call `run` itself (it would wait for a batch that waits for it), which use cases
 * never do: they receive a `Tx` and open no transaction. Work may run more than once, each try
 * but the last undone; use cases keep all their effects in the transaction.
 */
export function groupCommitUnitOfWork<C>(
  engine: BatchEngine<C>,
  options: GroupCommitOptions = {},
): GroupCommitUnitOfWork {
  const { maxBatch, maxWaitMs, writers } = resolveGroupCommit(options);
  const queue: Pending[] = [];
  let inFlight = 0;
  let scheduled = false;
  let waitTimer: ReturnType<typeof setTimeout> | undefined;
  let drained: (() => void)[] = [];

  const settleDrain = () => {
    if (queue.length > 0 || inFlight > 0) return;
    const waiters = drained;
    drained = [];
    for (const w of waiters) w();
  };

  const startBatch = () => {
    scheduled = false;
    if (waitTimer !== undefined) {
      clearTimeout(waitTimer);
      waitTimer = undefined;
    }
    while (inFlight < writers && queue.length > 0) {
      inFlight++;
      void runBatch(queue.splice(0, maxBatch)).finally(() => {
        inFlight--;
        if (queue.length > 0) schedule();
        else settleDrain();
      });
    }
  };

  /** Starts a batch on the next turn (or after maxWaitMs unless the queue fills up first). */
  const schedule = () => {
    if (inFlight >= writers) return; // the batch in flight reschedules when it ends
    if (queue.length >= maxBatch || maxWaitMs === 0) {
      if (!scheduled) {
        scheduled = true;
        // setImmediate runs after the poll phase: requests already readable join this batch.
        setImmediate(startBatch);
      }
      return;
    }
    waitTimer ??= setTimeout(startBatch, maxWaitMs);
  };

  const runBatch = async (batch: Pending[]) => {
    const answers: { item: Pending; outcome: Outcome }[] = [];
    /** Units that gave up on a lock: they run again, first in the next batch. */
    const retried: Pending[] = [];
    try {
      await engine.transaction(async (conn) => {
        // A kept unit's savepoint is released together with the next unit's savepoint when the
        // engine can do both at once: one round trip per unit of work on Postgres.
        let releasePending = false;
        for (const item of batch) {
          if (releasePending && engine.releaseAndSavepoint) await engine.releaseAndSavepoint(conn);
          else {
            if (releasePending) await engine.release(conn);
            await engine.savepoint(conn);
          }
          releasePending = false;
          try {
            const value = await item.work(engine.tx(conn));
            releasePending = true;
            answers.push({ item, outcome: { ok: true, value } });
          } catch (error) {
            // If undoing fails the connection is unusable: that failure ends the whole batch.
            await engine.rollback(conn);
            if (engine.gaveUpOnLock?.(error)) retried.push(item);
            else answers.push({ item, outcome: { ok: false, error } });
          }
        }
        if (releasePending) await engine.release(conn);
      });
    } catch (failure) {
      const error = engine.mapError(failure);
      for (const item of batch) if (!retried.includes(item)) item.reject(error);
      return;
    } finally {
      // Their work was undone whatever became of the batch.
      if (retried.length > 0) queue.unshift(...retried);
    }
    for (const { item, outcome } of answers) {
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(engine.mapError(outcome.error));
    }
  };

  const run = <T>(work: (tx: Tx) => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });
  return {
    run,
    // A unit of its own in the batch: as cheap as it gets when commits are shared.
    autocommit: run,
    drain() {
      if (queue.length === 0 && inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => drained.push(resolve));
    },
  };
}
