import type { OutboxEvent, OutboxRepository } from "@wallet/ledger-core";
import type { Selectable } from "kysely";
import type { OutboxEventsTable } from "../schema/database.js";
import { queryTemplate } from "../shared/query-template.js";
import type { SqlContext } from "./sql-context.js";

const lastSeq = queryTemplate((db, p: { resourceUid: string }) =>
  db
    .selectFrom("outbox_events")
    .select((eb) => eb.fn.max("seq").as("last"))
    .where("resource_uid", "=", p.resourceUid),
);

/** A new event: its delivery bookkeeping starts at the columns' defaults. */
type NewEventRow = Pick<
  Selectable<OutboxEventsTable>,
  "id" | "tenant_id" | "type" | "resource_uid" | "seq" | "dedup_key" | "occurred_at" | "body"
>;

const appendEvent = queryTemplate((db, row: NewEventRow) => db.insertInto("outbox_events").values(row));

export function sqlOutboxRepository(ctx: SqlContext): OutboxRepository {
  const { trx } = ctx;
  return {
    async nextSeq(resourceUid) {
      const row = await lastSeq.first(ctx, { resourceUid });
      return (row?.last ?? 0) + 1;
    },
    async append(e) {
      await appendEvent.execute(ctx, {
        id: e.id,
        tenant_id: e.tenantId,
        type: e.type,
        resource_uid: e.resourceUid,
        seq: e.seq,
        dedup_key: e.dedupKey,
        occurred_at: e.occurredAt,
        body: e.body,
      });
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
