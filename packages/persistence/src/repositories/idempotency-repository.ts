import type { IdempotencyRecord, IdempotencyRepository } from "@wallet/ledger-core";
import type { Selectable } from "kysely";
import type { IdempotencyKeysTable } from "../schema/database.js";
import { affected, type SqlContext } from "./sql-context.js";

/** A claim that loses a race with a release retries; bounded so a pathological loop cannot spin. */
const CLAIM_ATTEMPTS_MAX = 5;

export function sqlIdempotencyRepository({ trx }: SqlContext): IdempotencyRepository {
  return {
    async claim(record) {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS_MAX; attempt++) {
        // One statement decides, atomically on both engines: a new key is inserted; an in_progress
        // claim whose lock expired before this claim was made is taken over (the new request owns
        // it from now on); anything else is left alone and reported as it stands.
        const result = await trx
          .insertInto("idempotency_keys")
          .values({
            tenant_id: record.tenantId,
            key: record.key,
            request_hash: record.requestHash,
            state: "in_progress",
            response_status: null,
            response_body: null,
            locked_until: record.lockedUntil,
            created_at: record.createdAt,
          })
          .onConflict((oc) =>
            oc
              .columns(["tenant_id", "key"])
              .doUpdateSet({
                request_hash: record.requestHash,
                state: "in_progress",
                response_status: null,
                response_body: null,
                locked_until: record.lockedUntil,
                created_at: record.createdAt,
              })
              .where("idempotency_keys.state", "=", "in_progress")
              .where("idempotency_keys.locked_until", "<", record.createdAt),
          )
          .executeTakeFirst();
        if (affected(result) === 1) return { kind: "claimed" };
        const existing = await trx
          .selectFrom("idempotency_keys")
          .selectAll()
          .where("tenant_id", "=", record.tenantId)
          .where("key", "=", record.key)
          .executeTakeFirst();
        // Gone between the two statements: released by its owner, so try to claim it again.
        if (existing) return { kind: "existing", record: toRecord(existing) };
      }
      throw new Error(`Idempotency key could not be claimed after ${CLAIM_ATTEMPTS_MAX} attempts`);
    },
    async complete(tenantId, key, response) {
      await trx
        .updateTable("idempotency_keys")
        .set({ state: "completed", response_status: response.status, response_body: response.body })
        .where("tenant_id", "=", tenantId)
        .where("key", "=", key)
        .execute();
    },
    async release(tenantId, key) {
      await trx
        .deleteFrom("idempotency_keys")
        .where("tenant_id", "=", tenantId)
        .where("key", "=", key)
        .where("state", "=", "in_progress")
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
