export { createFixedClock, createSteppingClock } from "./clocks.js";
export type { MemoryState, MemoryStore } from "./memory-store.js";
export { createMemoryStore } from "./memory-store.js";
export { createTestVault } from "./test-vault.js";
