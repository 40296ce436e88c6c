import { randomBytes } from "node:crypto";
import type { CoreDeps, EventDataKey, EventType, Tenant, Tx, UnitOfWork } from "@wallet/ledger-core";
import { createUlidGenerator, emitEvent } from "@wallet/ledger-core";

export const secretV1 = "whsec_test_5f2b0d3c7a9e41d8b6c0e2f4a1d3c5e7";

export function tenantFixture(id: string, url: string | null, over: Partial<Tenant["webhook"]> = {}): Tenant {
  return {
    id,
    name: id,
    status: "active",
    scopes: [],
    ipAllowlist: [],
    approvedProfiles: [],
    defaultProfile: null,
    approvedKycLevels: [],
    approvedRails: [],
    rateLimit: { perSecond: 50, burst: 100 },
    webhook: {
      url,
      enabled: true,
      events: [],
      secrets: [{ kid: "wh1", secret: secretV1, createdAt: "2026-01-01T00:00:00.000Z" }],
      ...over,
    },
  };
}

/** emitEvent needs ids only; the other deps are never read on this path. */
export function eventDeps(clock: { now(): Date }): CoreDeps {
  const ids = createUlidGenerator(clock, { bytes: (n) => new Uint8Array(randomBytes(n)) });
  return { clock, ids } as unknown as CoreDeps;
}

/** Writes one outbox event through the core's own emitter, as a use case would. Returns its id. */
export async function emit(
  uow: UnitOfWork,
  deps: CoreDeps,
  tenantId: string,
  type: EventType,
  resourceUid: string,
  dataKey: EventDataKey = "operation",
): Promise<string> {
  return uow.run(async (tx: Tx) => {
    const tenant = await tx.tenants.get(tenantId);
    if (!tenant) throw new Error(`no tenant ${tenantId}`);
    await emitEvent(
      deps,
      tx,
      tenant,
      type,
      resourceUid,
      dataKey,
      { uid: resourceUid },
      deps.clock.now().toISOString(),
    );
    const events = await tx.outbox.list(tenantId);
    return events.at(-1)!.id;
  });
}
