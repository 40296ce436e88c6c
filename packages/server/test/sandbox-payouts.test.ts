import type { CoreDeps, Operation } from "@wallet/ledger-core";
import { createMemoryStore } from "@wallet/ledger-core/memory";
import { describe, expect, it } from "vitest";
import {
  applySandboxPayoutOutcomes,
  defaultSandboxPayoutLimits,
  type SandboxPayoutCursor,
} from "../src/server/sandbox-payouts.js";

const asOf = new Date("2026-11-25T00:00:00.000Z");
const rules = [{ railCode: "sandbox_auto", outcome: "confirmed" as const, delaySeconds: 0 }];

/** A payout in flight on `railCode`, initiated long before `asOf`. */
const inFlight = (uid: string, tenantId: string, railCode: string): Operation => ({
  uid,
  tenantId,
  type: "payout_b2c",
  state: "processing",
  amountMinor: 100,
  feeMinor: 0,
  taxMinor: 0,
  currency: "KES",
  clientReference: uid,
  customerUid: null,
  sourceWalletUid: null,
  destinationWalletUid: null,
  counterpartyHint: null,
  feeBreakdown: [],
  provider: { railCode, state: "initiated", reference: null, lastUpdatedAt: "2026-11-24T00:00:00.000Z" },
  mandateUid: null,
  intentReference: null,
  expiresAt: null,
  details: null,
  metadata: null,
  createdAt: "2026-11-24T00:00:00.000Z",
  completedAt: null,
  fundsMovedAt: null,
  updatedAt: "2026-11-24T00:00:00.000Z",
});

/**
 * What a run reached: the number of outcomes applied, or "reached" when it went on to settle the
 * due payout (this bare fixture has no wallet behind it, and settling it stops there: the attempt
 * is the proof).
 */
const run = (
  store: ReturnType<typeof createMemoryStore>,
  limits = defaultSandboxPayoutLimits,
  cursor?: SandboxPayoutCursor,
) =>
  applySandboxPayoutOutcomes(store.uow, {} as CoreDeps, rules, asOf, limits, cursor).catch((e: unknown) =>
    e instanceof Error && e.message.includes("a payout has its source wallet")
      ? "reached"
      : Promise.reject(e),
  );

describe("sandbox-payout-outcomes: payouts that never become due", () => {
  const world = async () => {
    const store = createMemoryStore();
    const pages = defaultSandboxPayoutLimits.pageSize * defaultSandboxPayoutLimits.pagesMax;
    await store.uow.run(async (tx) => {
      // Tenant A: a run's worth of payouts on a rail whose outcome the operator reports by hand.
      for (let i = 0; i < pages; i++)
        await tx.operations.insert(inFlight(`op_A${String(i).padStart(6, "0")}`, "a", "manual"));
      // Tenant B: one payout on the automatic rail, due, behind them.
      await tx.operations.insert(inFlight("op_B000001", "b", "sandbox_auto"));
    });
    return store;
  };

  it("do not hide the due ones behind them: the scheduler's runs resume where the last one stopped", async () => {
    const store = await world();
    const cursor: SandboxPayoutCursor = { after: undefined };
    expect(await run(store, defaultSandboxPayoutLimits, cursor)).toBe(0);
    expect(cursor.after).toBe("op_A000999");
    expect(await run(store, defaultSandboxPayoutLimits, cursor)).toBe("reached");
  });

  it("do not hide them from the operator's run, which reads every payout in flight", async () => {
    const store = await world();
    expect(await run(store, { ...defaultSandboxPayoutLimits, pagesMax: Number.MAX_SAFE_INTEGER })).toBe(
      "reached",
    );
  });

  it("a run that reaches the end of the list sends the next one back to its head", async () => {
    const store = createMemoryStore();
    await store.uow.run((tx) => tx.operations.insert(inFlight("op_A000001", "a", "manual")));
    const cursor: SandboxPayoutCursor = { after: undefined };
    expect(await run(store, defaultSandboxPayoutLimits, cursor)).toBe(0);
    expect(cursor.after).toBeUndefined();
  });

  it("a run whose read does not commit leaves the cursor where it was", async () => {
    const store = await world();
    const cursor: SandboxPayoutCursor = { after: "op_A000100" };
    const lost = {
      ...store.uow,
      run: async <T>(work: Parameters<typeof store.uow.run<T>>[0]) => {
        await store.uow.run(work);
        throw new Error("the commit was lost");
      },
    } as typeof store.uow;
    await expect(
      applySandboxPayoutOutcomes(lost, {} as CoreDeps, rules, asOf, defaultSandboxPayoutLimits, cursor),
    ).rejects.toThrow("the commit was lost");
    expect(cursor.after).toBe("op_A000100");
  });
});
