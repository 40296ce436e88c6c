// Scenario 1: the core alone, in-process, on the memory adapters: credits/s through
// `uow.run(creditWallet)` with nothing else (no HTTP, no signature, no SQL).
import { createHash, randomBytes } from "node:crypto";
import {
  BENCH_CURRENCY,
  BENCH_KID,
  BENCH_PREFUND_MINOR,
  benchKycLevel,
  benchOnboarding,
} from "../lib/bench-tenant.mjs";
import { serveParent } from "../lib/child.mjs";
import { importFrom } from "../lib/resolve.mjs";
import { percentile } from "../lib/stats.mjs";

const core = await importFrom("server", "@wallet/ledger-core");
const memory = await importFrom("server", "@wallet/ledger-core/memory");

const hasher = { sha256Hex: (d) => createHash("sha256").update(d, "utf8").digest("hex") };
const clock = { now: () => new Date() };

/** A fresh store with `wallets` onboarded customers and a funded prefund. */
async function freshWorld(wallets) {
  const store = memory.createMemoryStore();
  const deps = {
    clock,
    ids: core.createUlidGenerator(clock, { bytes: (n) => randomBytes(n) }),
    hasher,
    vault: memory.createTestVault(hasher),
    catalog: {
      kycLevels: [benchKycLevel],
      walletProfiles: [{ key: "standard_kes", name: "Standard", currency: BENCH_CURRENCY }],
      rails: [],
      beneficiaries: [],
      feeSchedules: [],
    },
  };
  const tenant = {
    id: "bench",
    name: "Bench",
    status: "active",
    scopes: [...core.scopes],
    ipAllowlist: [],
    approvedProfiles: ["standard_kes"],
    defaultProfile: "standard_kes",
    approvedKycLevels: ["bench"],
    approvedRails: [],
    rateLimit: { perSecond: 1_000_000, burst: 1_000_000 },
    webhook: { url: "http://127.0.0.1:9/hooks", enabled: true, events: [], secrets: [] },
  };
  const ctx = { tenant, kid: BENCH_KID, requestId: "bench", scopes: tenant.scopes };
  await store.uow.run((tx) => tx.tenants.upsert(tenant));
  await store.uow.run((tx) =>
    core.fundPrefund(deps, tx, {
      tenantId: tenant.id,
      amountMinor: BENCH_PREFUND_MINOR,
      currency: BENCH_CURRENCY,
    }),
  );
  const walletUids = [];
  for (let n = 0; n < wallets; n++) {
    const c = await store.uow.run((tx) => core.onboardCustomer(deps, ctx, tx, benchOnboarding(n)));
    walletUids.push(c.walletUid);
  }
  return { store, deps, ctx, walletUids };
}

serveParent({
  setup: async () => ({ info: {} }),
  handlers: {
    /** Credits one after another for `durationMs` on a fresh store; every credit awaited. */
    async run({ durationMs, wallets, runTag }) {
      const { store, deps, ctx, walletUids } = await freshWorld(wallets);
      const latenciesUs = [];
      const started = performance.now();
      const endAt = started + durationMs;
      let n = 0;
      for (let t = started; t < endAt; ) {
        const input = {
          walletUid: walletUids[n % walletUids.length],
          amountMinor: 100,
          currency: BENCH_CURRENCY,
          clientReference: `${runTag}-${n}`,
        };
        await store.uow.run((tx) => core.creditWallet(deps, ctx, tx, input));
        n++;
        const now = performance.now();
        latenciesUs.push(Math.round((now - t) * 1000));
        t = now;
      }
      const elapsedMs = performance.now() - started;
      latenciesUs.sort((a, b) => a - b);
      return {
        ok: n,
        failed: 0,
        elapsedMs,
        perSecond: (n / elapsedMs) * 1000,
        p50Ms: percentile(latenciesUs, 0.5) / 1000,
        p99Ms: percentile(latenciesUs, 0.99) / 1000,
      };
    },
  },
});
