import type { OutboxEvent, OutboxRepository } from "@wallet/ledger-core";
import type { SqlContext } from "./sql-context.js";

export function sqlOutboxRepository({ trx }: SqlContext): OutboxRepository {
  return {
    async nextSeq(resourceUid) {
      const row = await trx
        .selectFrom("outbox_events")
        .select((eb) => eb.fn.max("seq").as("last"))
        .where("resource_uid", "=", resourceUid)
        .executeTakeFirst();
      return (row?.last ?? 0) + 1;
    },
    async append(e) {
      await trx
        .insertInto("outbox_events")
        .values({
          id: e.id,
          tenant_id: e.tenantId,
          type: e.type,
          resource_uid: e.resourceUid,
          seq: e.seq,
          dedup_key: e.dedupKey,
          occurred_at: e.occurredAt,
          body: e.body,
        })
        .execute();
    },
    async list(tenantId) {
      let q = trx.selectFrom("outbox_events").selectAll();
      if (tenantId !== undefined) q = q.where("tenant_id", "=", tenantId);
      const rows = await q.orderBy("ordinal").execute();
      return rows.map(
        (r): OutboxEvent => ({
          id: r.id,
          tenantId: r.tenant_id,
          type: r.type as OutboxEvent["type"],
          resourceUid: r.resource_uid,
          seq: r.seq,
          dedupKey: r.dedup_key,
          occurredAt: r.occurred_at,
          body: r.body,
        }),
      );
    },
  };
}
