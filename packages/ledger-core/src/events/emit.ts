import type { CoreDeps } from "../app/context.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Tenant } from "../tenants/model.js";
import { webhookWants } from "../tenants/model.js";
import type { EventDataKey, EventType } from "./model.js";

/**
 * Writes an outbox event in the caller's transaction, if the tenant's webhook is enabled and its
 * filter takes this type at this moment (events filtered out are never sent later).
 * `data` must hold no personal data: callers pass projections only.
 */
export async function emitEvent(
  deps: CoreDeps,
  tx: Tx,
  tenant: Tenant,
  type: EventType,
  resourceUid: string,
  dataKey: EventDataKey,
  data: object,
  occurredAt: string,
): Promise<void> {
  if (!webhookWants(tenant.webhook, type)) return;
  const seq = await tx.outbox.nextSeq(resourceUid);
  await appendEvent(deps, tx, tenant, { type, resourceUid, dataKey, data, occurredAt, seq });
}

/**
 * `emitEvent` for the first event of a resource this same unit of work created (a new operation,
 * a new customer): no event can exist for it yet, so its sequence number is 1 without reading the
 * outbox (one statement less on every money movement). A second event of the resource in the same
 * unit goes through `emitEvent`. Used on anything older, the outbox's unique (resource, seq)
 * refuses it.
 */
export async function emitFirstEvent(
  deps: CoreDeps,
  tx: Tx,
  tenant: Tenant,
  type: EventType,
  resourceUid: string,
  dataKey: EventDataKey,
  data: object,
  occurredAt: string,
): Promise<void> {
  // Named parameters, not `...[deps, tx, ...]: Parameters<typeof emitEvent>`: a rest array
  // destructured through the iterator protocol on every money movement.
  if (!webhookWants(tenant.webhook, type)) return;
  await appendEvent(deps, tx, tenant, { type, resourceUid, dataKey, data, occurredAt, seq: 1 });
}

interface NumberedEvent {
  type: EventType;
  resourceUid: string;
  dataKey: EventDataKey;
  data: object;
  occurredAt: string;
  seq: number;
}

async function appendEvent(
  deps: CoreDeps,
  tx: Tx,
  tenant: Tenant,
  { type, resourceUid, dataKey, data, occurredAt, seq }: NumberedEvent,
): Promise<void> {
  const id = deps.ids.next("event");
  // Joined: one flat string (the event keeps it, and its body serializes it).
  const dedupKey = [resourceUid, ":", type, ":", seq].join("");
  const body = JSON.stringify({
    id,
    type,
    occurredAt,
    dedupKey,
    data: { [dataKey]: data },
    apiVersion: "v1",
  });
  await tx.outbox.append({ id, tenantId: tenant.id, type, resourceUid, seq, dedupKey, occurredAt, body });
}
