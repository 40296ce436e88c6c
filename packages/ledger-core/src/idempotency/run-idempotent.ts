import { postingsLast } from "../ledger/posting.js";
import { ConcurrentUpdateError, type DomainError, isDomainError, refuse } from "../shared/errors.js";
import type { Clock } from "../shared/ports.js";
import { iso } from "../shared/time.js";
import type { Tx, UnitOfWork } from "../store/unit-of-work.js";
import type { StoredResponse } from "./model.js";

export interface IdempotencyClaim {
  tenantId: string;
  key: string;
  /**
   * A digest of the request that tells a retry from another request under the key; it is stored
   * with the key. Make it keyed (the HTTP adapter's is an HMAC with the vault's blind-index key
   * over method, path and body hash): a plain hash of a body holding a phone number can be
   * reversed by guessing the few digits its masked value hides.
   */
  requestHash: string;
  /**
   * The digest an earlier version stored for this same request, if it differs (the HTTP
   * adapter's unkeyed SHA-256 before it was keyed): a record stored with it matches too, so a
   * retry of a request answered before an upgrade still gets its answer. Never stored.
   */
  earlierRequestHash?: string | undefined;
}

export interface IdempotentOutcome {
  /** True when the stored outcome of an earlier request was returned. */
  replayed: boolean;
  response: StoredResponse;
}

/** An Idempotency-Key: 1-255 printable ASCII characters (DESIGN.md section 3). */
export const IDEMPOTENCY_KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;

/** How long a claim holds before a crashed request's key can be taken over. */
export const IDEMPOTENCY_LOCK_SECONDS = 60;

/** How often the work runs when a concurrent request changed a row it read (ConcurrentUpdateError). */
export const CONCURRENT_UPDATE_ATTEMPTS = 3;

/**
 * A request that ran past its claim's lock and found the key taken over by another request: its
 * work does not commit, and it answers as any request meeting a running claim does (a retry gets
 * the other request's stored answer).
 */
const claimLost = (): never =>
  refuse("IdempotencyKeyInUse", "A request with this Idempotency-Key is still being processed");

/**
 * Exactly-once execution of a write under an Idempotency-Key (DESIGN.md section 3).
 *
 * 1. Claim the key by itself, committed at once (a unique index decides between concurrent
 *    duplicates). An existing completed record is replayed; another request under the same key is
 *    `IdempotencyKeyReused`; a claim still running is `IdempotencyKeyInUse`.
 * 2. Run `work` in one transaction that also stores its response, so a committed change always has
 *    its stored answer and a crash leaves neither. The response is stored before the postings to
 *    shared accounts (`postingsLast`), which hold the tenant's hottest rows until COMMIT.
 * 3. A refusal rolls the work back; `storeRefusal` decides whether it is stored (404/409/422) so a
 *    retry gets the same answer, or released (anything else) so a retry runs again.
 *
 * A work that lost an optimistic update to a concurrent request (`ConcurrentUpdateError`) runs
 * again, up to CONCURRENT_UPDATE_ATTEMPTS times in all, so its answer is that of the two requests
 * one after the other; if it still loses, its 409 is not stored and the key is released.
 */
export async function runIdempotent(
  uow: UnitOfWork,
  clock: Clock,
  claim: IdempotencyClaim,
  work: (tx: Tx) => Promise<StoredResponse>,
  storeRefusal: (e: DomainError) => StoredResponse | null,
): Promise<IdempotentOutcome> {
  // The HTTP adapter refuses such a header first; a caller in-process gets the same rule (a key
  // past the index's limit was a Postgres-only failure).
  if (typeof claim.key !== "string" || !IDEMPOTENCY_KEY_FORMAT.test(claim.key)) {
    refuse("InvalidRequest", "An idempotency key is 1-255 printable ASCII characters", [
      { field: "key", issue: "must be 1-255 printable ASCII characters" },
    ]);
  }
  const now = clock.now();
  // The claim's createdAt names it: completing or releasing acts on this claim only.
  const claimedAt = iso(now);
  const claimed = await uow.autocommit((tx) =>
    tx.idempotency.claim({
      tenantId: claim.tenantId,
      key: claim.key,
      requestHash: claim.requestHash,
      state: "in_progress",
      response: null,
      lockedUntil: iso(new Date(now.getTime() + IDEMPOTENCY_LOCK_SECONDS * 1000)),
      createdAt: claimedAt,
    }),
  );
  if (claimed.kind === "existing") {
    const { record } = claimed;
    if (record.requestHash !== claim.requestHash && record.requestHash !== claim.earlierRequestHash) {
      refuse("IdempotencyKeyReused", "This Idempotency-Key was used for a different request");
    }
    if (record.state === "completed" && record.response) return { replayed: true, response: record.response };
    refuse("IdempotencyKeyInUse", "A request with this Idempotency-Key is still being processed");
  }

  const runOnce = () =>
    uow.run((tx) =>
      postingsLast(tx, work, async (r) => {
        // Lost: the work rolls back with this refusal, and the key's owner answers the retry.
        if (!(await tx.idempotency.complete(claim.tenantId, claim.key, claimedAt, r))) claimLost();
      }),
    );
  try {
    return { replayed: false, response: await againOnConcurrentUpdate(runOnce) };
  } catch (e) {
    const stored =
      isDomainError(e) && e.code !== "IdempotencyKeyInUse" && !(e instanceof ConcurrentUpdateError)
        ? storeRefusal(e)
        : null;
    if (stored) {
      let kept: boolean;
      try {
        kept = await uow.autocommit((tx) =>
          tx.idempotency.complete(claim.tenantId, claim.key, claimedAt, stored),
        );
      } catch (storeError) {
        // Not stored (a 5xx is never stored): the key is released so that a retry runs again,
        // rather than meeting IdempotencyKeyInUse until the claim expires.
        await release(uow, claim, claimedAt);
        throw storeError;
      }
      if (!kept) claimLost();
      return { replayed: false, response: stored };
    }
    await release(uow, claim, claimedAt);
    throw e;
  }
}

/**
 * Runs `run` (a whole unit of work) again while it loses an optimistic update to a concurrent
 * request, up to CONCURRENT_UPDATE_ATTEMPTS times in all: its answer is then that of the two
 * requests one after the other. The operator's writes use it as the tenant's idempotent writes
 * do; the scheduled jobs do not (a batch that loses stops, and the next run takes what is left).
 */
export async function againOnConcurrentUpdate<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof ConcurrentUpdateError) || attempt >= CONCURRENT_UPDATE_ATTEMPTS) throw e;
    }
  }
}

/** Gives the key back; if the store is failing, the claim expires on its own after IDEMPOTENCY_LOCK_SECONDS. */
async function release(uow: UnitOfWork, claim: { tenantId: string; key: string }, claimedAt: string) {
  await uow.autocommit((tx) => tx.idempotency.release(claim.tenantId, claim.key, claimedAt)).catch(() => {});
}
