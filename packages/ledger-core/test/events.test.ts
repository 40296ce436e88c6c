import { describe, expect, it } from "vitest";
import { emitEvent, emitFirstEvent } from "../src/index.js";
import { createCore, tenantFixture } from "./support/core.js";

describe("outbox events", () => {
  const tenant = {
    ...tenantFixture("acme"),
    webhook: { url: "https://example.com/hooks", enabled: true, events: [], secrets: [] },
  };

  it("number a resource's events from 1; the first of a new resource needs no read of the outbox", async () => {
    const core = createCore();
    await core.run((tx) => tx.tenants.upsert(tenant));
    const at = "2026-11-22T10:00:00.000Z";
    let outboxReads = 0;
    await core.run(async (tx) => {
      const read = tx.outbox.nextSeq;
      tx.outbox.nextSeq = async (uid) => {
        outboxReads++;
        return read(uid);
      };
      await emitFirstEvent(
        core.deps,
        tx,
        tenant,
        "customer.created",
        "cus_1",
        "customer",
        { uid: "cus_1" },
        at,
      );
      await emitEvent(
        core.deps,
        tx,
        tenant,
        "customer.status_changed",
        "cus_1",
        "customer",
        { uid: "cus_1" },
        at,
      );
    });
    const events = await core.run((tx) => tx.outbox.list("acme"));
    expect(events.map((e) => [e.seq, e.dedupKey])).toEqual([
      [1, "cus_1:customer.created:1"],
      [2, "cus_1:customer.status_changed:2"],
    ]);
    // Only emitEvent read the outbox.
    expect(outboxReads).toBe(1);
    expect(JSON.parse(events[0]?.body ?? "{}")).toMatchObject({
      type: "customer.created",
      dedupKey: "cus_1:customer.created:1",
      data: { customer: { uid: "cus_1" } },
    });
  });

  it("refuse a first event for a resource that already has one", async () => {
    const core = createCore();
    await core.run((tx) => tx.tenants.upsert(tenant));
    const at = "2026-11-22T10:00:00.000Z";
    const first = () =>
      core.run((tx) =>
        emitFirstEvent(core.deps, tx, tenant, "customer.created", "cus_2", "customer", { uid: "cus_2" }, at),
      );
    await first();
    await expect(first()).rejects.toThrow(/seq/);
    expect(await core.run((tx) => tx.outbox.list("acme"))).toHaveLength(1);
  });
});
