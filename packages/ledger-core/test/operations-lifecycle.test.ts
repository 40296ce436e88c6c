import { describe, expect, it } from "vitest";
import type { Operation, OperationState } from "../src/index.js";
import { createAndTransitionOperation, createOperation, transitionOperation } from "../src/index.js";
import { createMemoryStore } from "../src/memory/index.js";

const newOperation = (uid: string): Operation => ({
  uid,
  tenantId: "t1",
  type: "wallet_credit",
  state: "created",
  amountMinor: 100,
  feeMinor: 0,
  taxMinor: 0,
  currency: "KES",
  clientReference: `ref-${uid}`,
  customerUid: "cus_1",
  sourceWalletUid: null,
  destinationWalletUid: "wal_1",
  counterpartyHint: null,
  feeBreakdown: [],
  provider: null,
  mandateUid: null,
  intentReference: null,
  expiresAt: null,
  details: null,
  metadata: null,
  createdAt: "2026-03-10T12:00:00.000Z",
  completedAt: null,
  fundsMovedAt: "2026-03-10T12:00:00.000Z",
  updatedAt: "2026-03-10T12:00:00.000Z",
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

  it("createAndTransitionOperation refuses a move the state machine forbids, after the insert", async () => {
    const store = createMemoryStore();
    await expect(
      store.uow.run((tx) =>
        createAndTransitionOperation(tx, newOperation("op_c"), "api_client", "reversed", "x", "system"),
      ),
    ).rejects.toThrow(/cannot move from created to reversed/);
    expect(await store.uow.run((tx) => tx.operations.getAny("op_c"))).toBeNull();
  });
});
