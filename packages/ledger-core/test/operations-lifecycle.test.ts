import { describe, expect, it } from "vitest";
import type { Operation, OperationState } from "../src/index.js";
import { createAndTransitionOperation, createOperation, transitionOperation } from "../src/index.js";
import { createMemoryStore } from "../src/memory/index.js";
import { operationFixture } from "./support/operation-fixture.js";

const newOperation = (uid: string): Operation =>
  operationFixture({
    uid,
    state: "created",
    clientReference: `ref-${uid}`,
    customerUid: "cus_1",
    destinationWalletUid: "wal_1",
    completedAt: null,
  });

describe("operation lifecycle", () => {
  it.each<OperationState>(["completed", "failed", "processing", "pending_provider"])(
    "createAndTransitionOperation to %s writes what createOperation then transitionOperation write",
    async (to) => {
      const at = "2026-03-10T12:00:01.000Z";
      const store = createMemoryStore();
      const [a, b] = [newOperation("op_a"), newOperation("op_b")];
      await store.uow.run(async (tx) => {
        await createOperation(tx, a, "api_client");
        await transitionOperation(tx, a, to, at, "system");
        await createAndTransitionOperation(tx, b, "api_client", to, at, "system");
      });
      const stored = await store.uow.run(async (tx) => ({
        a: await tx.operations.get("t1", "op_a"),
        b: await tx.operations.get("t1", "op_b"),
        timelineA: await tx.operations.timeline("op_a"),
        timelineB: await tx.operations.timeline("op_b"),
      }));
      expect(b).toEqual({ ...a, uid: "op_b", clientReference: "ref-op_b" });
      expect(stored.b).toEqual({ ...stored.a, uid: "op_b", clientReference: "ref-op_b" });
      expect(stored.timelineB).toEqual(stored.timelineA.map((e) => ({ ...e, operationUid: "op_b" })));
      expect(stored.timelineB.map((e) => e.sequenceNo)).toEqual([0, 1]);
    },
  );

  it("createAndTransitionOperation refuses a move the state machine forbids, writing nothing", async () => {
    const store = createMemoryStore();
    await expect(
      store.uow.run((tx) =>
        createAndTransitionOperation(tx, newOperation("op_c"), "api_client", "reversed", "x", "system"),
      ),
    ).rejects.toThrow(/cannot move from created to reversed/);
    expect(await store.uow.run((tx) => tx.operations.getAny("op_c"))).toBeNull();
  });
});
