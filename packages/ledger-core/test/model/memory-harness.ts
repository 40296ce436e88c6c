import { createMemoryStore } from "../../src/memory/index.js";
import type { LedgerHarness } from "./world.js";

/** The in-memory adapters; the snapshot reads their state directly. */
export async function memoryHarness(): Promise<LedgerHarness> {
  const store = createMemoryStore();
  return {
    name: "memory",
    uow: store.uow,
    snapshot: async () => ({
      journals: store.state.journals.map((j) => ({
        uid: j.uid,
        currency: j.currency,
        entries: j.entries.map((e) => ({ accountKey: e.accountKey, amountMinor: e.amountMinor })),
      })),
      accounts: [...store.state.accounts.entries()].map(([id, a]) => {
        const slash = id.lastIndexOf("/");
        return { accountKey: id.slice(0, slash), currency: id.slice(slash + 1), balanceMinor: a.balance };
      }),
      operations: [...store.state.operations.values()].map((o) => ({
        uid: o.uid,
        type: o.type,
        state: o.state,
      })),
    }),
    close: async () => {},
  };
}
