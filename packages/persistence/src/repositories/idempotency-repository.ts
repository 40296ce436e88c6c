import type { IdempotencyRecord, IdempotencyRepository } from "@wallet/ledger-core";
import type { Selectable } from "kysely";
import type { IdempotencyKeysTable } from "../schema/database.js";
import { queryTemplate } from "../shared/query-template.js";
import type { SqlContext } from "./sql-context.js";

/** A claim that loses a race with a release retries; bounded so a pathological loop cannot spin. */
const CLAIM_ATTEMPTS_MAX = 5;

type Claim = Pick<IdempotencyRecord, "tenantId" | "key" | "requestHash" | "lockedUntil" | "createdAt">;

// One statement decides, atomically on both engines: a new key is inserted; an in_progress claim
// whose lock expired before this claim was made is taken over (the new request owns it from now
// on); anything else is left alone and reported as it stands.
const claimKey = queryTemplate((db, r: Claim) =>
  db
    .insertInto("idempotency_keys")
    .values({
      tenant_id: r.tenantId,
      key: r.key,
      request_hash: r.requestHash,
      state: "in_progress",
      response_status: null,
      response_body: null,
      locked_until: r.lockedUntil,
      created_at: r.createdAt,
    })
    .onConflict((oc) =>
      oc
        .columns(["tenant_id", "key"])
        .doUpdateSet({
          request_hash: r.requestHash,
          state: "in_progress",
          response_status: null,
          response_body: null,
          locked_until: r.lockedUntil,
          created_at: r.createdAt,
        })
        .where("idempotency_keys.state", "=", "in_progress")
        .where("idempotency_keys.locked_until", "<", r.createdAt),
    ),
);

const getKey = queryTemplate((db, p: { tenantId: string; key: string }) =>
  db.selectFrom("idempotency_keys").selectAll().where("tenant_id", "=", p.tenantId).where("key", "=", p.key),
);

// Only the claim made at claimedAt, while in progress: a claim taken over by another request
// (its lock expired while it ran) completes nothing.
const completeKey = queryTemplate(
  (db, p: { tenantId: string; key: string; claimedAt: string; status: number; body: string }) =>
    db
      .updateTable("idempotency_keys")
      .set({ state: "completed", response_status: p.status, response_body: p.body })
      .where("tenant_id", "=", p.tenantId)
      .where("key", "=", p.key)
      .where("state", "=", "in_progress")
      .where("created_at", "=", p.claimedAt),
);

export function sqlIdempotencyRepository(ctx: SqlContext): IdempotencyRepository {
  const { trx } = ctx;
  return {
    async claim(record) {
      const { tenantId, key, requestHash, lockedUntil, createdAt } = record;
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS_MAX; attempt++) {
        const claimed = await claimKey.affected(ctx, { tenantId, key, requestHash, lockedUntil, createdAt });
        if (claimed === 1) return { kind: "claimed" };
        const existing = await getKey.first(ctx, { tenantId, key });
        // Gone between the two statements: released by its owner, so try to claim it again.
        if (existing) return { kind: "existing", record: toRecord(existing) };
      }
      throw new Error(`Idempotency key could not be claimed after ${CLAIM_ATTEMPTS_MAX} attempts`);
    },
    async complete(tenantId, key, claimedAt, response) {
      const args = { tenantId, key, claimedAt, status: response.status, body: response.body };
      return (await completeKey.affected(ctx, args)) === 1;
    },
    async release(tenantId, key, claimedAt) {
      await trx
        .deleteFrom("idempotency_keys")
        .where("tenant_id", "=", tenantId)
        .where("key", "=", key)
        .where("state", "=", "in_progress")
        .where("created_at", "=", claimedAt)
        .execute();
    },
  };
}

function toRecord(r: Selectable<IdempotencyKeysTable>): IdempotencyRecord {
  return {
    tenantId: r.tenant_id,
    key: r.key,
    requestHash: r.request_hash,
    state: r.state as IdempotencyRecord["state"],
    response:
      r.response_status === null || r.response_body === null
        ? null
        : { status: r.response_status, body: r.response_body },
    lockedUntil: r.locked_until,
    createdAt: r.created_at,
  };
}
