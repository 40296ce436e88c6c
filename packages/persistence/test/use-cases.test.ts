import { createHash, randomBytes } from "node:crypto";
import {
  type Catalog,
  type CoreDeps,
  createUlidGenerator,
  creditWallet,
  DomainError,
  fundPrefund,
  getOperationDetail,
  getTrialBalance,
  getWalletBalance,
  listWalletTransactions,
  onboardCustomer,
  type RequestContext,
  runIdempotent,
  scopes,
  type Tenant,
  type UnitOfWork,
} from "@wallet/ledger-core";
import { createMemoryStore, createSteppingClock, createTestVault } from "@wallet/ledger-core/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresTestUrl } from "../src/index.js";
import { freshPostgresStore, freshSqliteStore } from "./support/fresh-stores.js";

/**
 * The ledger's own use cases, run unchanged on every store: what the server will do, end to end
 * below HTTP. The repository contract checks each method; this checks they compose.
 */
const hasher = { sha256Hex: (d: string) => createHash("sha256").update(d, "utf8").digest("hex") };
const catalog: Catalog = {
  kycLevels: [
    {
      code: "tier_1",
      name: "Basic",
      currency: "KES",
      maxBalanceMinor: 10_000_000,
      maxSingleTxnMinor: 7_000_000,
      aggregateDailyLimitMinor: 15_000_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 100_000,
    },
    // A daily limit that credits alone can reach (no balance limit to speak of).
    {
      code: "tier_daily",
      name: "Daily",
      currency: "KES",
      maxBalanceMinor: 1_000_000_000,
      maxSingleTxnMinor: null,
      aggregateDailyLimitMinor: 20_000,
      monthlyOutLimitMinor: null,
      twoFactorThresholdMinor: 1_000_000_000,
    },
  ],
  walletProfiles: [{ key: "standard_kes", name: "Standard", currency: "KES" }],
  rails: [],
  beneficiaries: [],
  feeSchedules: [],
};
const tenant: Tenant = {
  id: "acme",
  name: "Acme",
  status: "active",
  scopes: [...scopes],
  ipAllowlist: [],
  approvedProfiles: ["standard_kes"],
  defaultProfile: "standard_kes",
  approvedKycLevels: ["tier_1", "tier_daily"],
  approvedRails: [],
  rateLimit: { perSecond: 50, burst: 100 },
  webhook: { url: "http://127.0.0.1:9/hooks", enabled: true, events: [], secrets: [] },
};
const ctx: RequestContext = { tenant, kid: "k1", requestId: "req-1", scopes: tenant.scopes };
const onboarding = {
  customerType: "person" as const,
  displayName: "Amina W.",
  identifiers: [
    {
      class: "contact" as const,
      type: "msisdn",
      value: "+254712345678",
      isPrimary: true,
      verificationStatus: "verified" as const,
    },
  ],
  kyc: {
    tierCode: "tier_1",
    reviewType: "onboarding" as const,
    verificationSource: "acme-kyc",
    sourceReference: "kyc-ref-1",
    evidence: { check: "passed" },
    riskRating: "low" as const,
  },
  agreements: [
    {
      agreementType: "wallet_opening" as const,
      documentType: "terms",
      documentVersion: "v1",
      documentUri: "https://example.com/terms/v1",
      documentHash: "a".repeat(64),
      acceptedAt: "2026-11-22T09:59:00.000Z",
      acceptedChannel: "mobile_app",
      evidence: { ip: "203.0.113.9" },
    },
  ],
};

interface Opened {
  uow: UnitOfWork;
  close(): Promise<void>;
}

function describeUseCases(name: string, open: () => Promise<Opened>) {
  describe(`ledger use cases on ${name}`, () => {
    let store: Opened;
    let deps: CoreDeps;
    beforeAll(async () => {
      store = await open();
      const clock = createSteppingClock("2026-11-22T10:00:00.000Z", 1);
      deps = {
        clock,
        ids: createUlidGenerator(clock, { bytes: (n) => randomBytes(n) }),
        hasher,
        vault: createTestVault(hasher),
        catalog,
      };
    });
    afterAll(async () => store?.close());

    /** The tenant, its prefund topped up by `prefundMinor`, and a new customer whose phone is `msisdn`. */
    const fundedCustomer = async (prefundMinor: number, msisdn: string, tierCode = "tier_1") => {
      const run = store.uow.run.bind(store.uow);
      await run((tx) => tx.tenants.upsert(tenant));
      await run((tx) =>
        fundPrefund(deps, tx, { tenantId: "acme", amountMinor: prefundMinor, currency: "KES" }),
      );
      return run((tx) =>
        onboardCustomer(deps, ctx, tx, {
          ...onboarding,
          identifiers: [{ ...onboarding.identifiers[0]!, value: msisdn }],
          kyc: { ...onboarding.kyc, tierCode },
        }),
      );
    };

    it("onboards, funds, credits (once per clientReference under a race) and reads it all back", async () => {
      const run = store.uow.run.bind(store.uow);
      const customer = await fundedCustomer(1_000_000, onboarding.identifiers[0]!.value);
      const { walletUid } = customer;
      expect(walletUid).toMatch(/^wal_/);

      const credit = (amountMinor: number, clientReference: string) =>
        run((tx) =>
          creditWallet(deps, ctx, tx, { walletUid, amountMinor, currency: "KES", clientReference }),
        );
      const first = await credit(12_345, "cr-1");
      await credit(655, "cr-2");
      const raced = await Promise.allSettled([1, 2, 3, 4, 5].map(() => credit(1_000, "cr-race")));
      expect(raced.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      for (const r of raced) {
        if (r.status === "rejected") expect((r.reason as DomainError).code).toBe("Conflict");
      }
      const refused = await credit(2_000_000, "cr-too-much").catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(DomainError);

      const balance = await run((tx) => getWalletBalance(deps, ctx, tx, walletUid));
      expect(balance).toMatchObject({ currentMinor: 14_000, heldMinor: 0, availableMinor: 14_000 });
      const statement = await run((tx) =>
        listWalletTransactions(deps, ctx, tx, walletUid, {}, { page: 1, limit: 10, sort: [] }),
      );
      expect(statement.meta.total).toBe(3);
      expect(statement.data.map((i) => i.amountMinor)).toEqual([1_000, 655, 12_345]);
      const detail = await run((tx) => getOperationDetail(deps, ctx, tx, first.uid));
      expect(detail).toMatchObject({ uid: first.uid, state: "completed", amountMinor: 12_345 });
      expect(await run((tx) => getOperationDetail(deps, ctx, tx, first.uid))).toEqual(detail);
      const trial = await run((tx) => getTrialBalance(tx));
      expect(trial.balanced).toBe(true);
      expect(trial.currencies).toEqual([
        { currency: "KES", debitsMinor: 1_014_000, creditsMinor: 1_014_000, netMinor: 0 },
      ]);
    });

    it("an idempotent credit whose claim was taken over stores nothing and moves nothing (IdempotencyKeyInUse)", async () => {
      const run = store.uow.run.bind(store.uow);
      const customer = await fundedCustomer(100_000, "+254700000030");
      const claim = { tenantId: "acme", key: "slow-key", requestHash: "h-slow" };
      // Claims the key as a new request would: answers what holds it now.
      const claimAgain = () =>
        store.uow.run((tx) =>
          tx.idempotency.claim({
            ...claim,
            state: "in_progress",
            response: null,
            lockedUntil: "",
            createdAt: "",
          }),
        );
      const taker = { createdAt: "" };
      // Another request takes the key over (its lock expired) right before the work's transaction.
      const uow: UnitOfWork = {
        run: async (work) => {
          const seen = await claimAgain();
          if (seen.kind !== "existing") throw new Error("expected the first claim");
          const later = new Date(Date.parse(seen.record.lockedUntil) + 1);
          taker.createdAt = later.toISOString();
          await store.uow.run((tx) =>
            tx.idempotency.claim({
              ...seen.record,
              createdAt: taker.createdAt,
              lockedUntil: new Date(later.getTime() + 60_000).toISOString(),
            }),
          );
          return store.uow.run(work);
        },
        autocommit: (work) => store.uow.autocommit(work),
      };
      const outcome = await runIdempotent(
        uow,
        deps.clock,
        claim,
        async (tx) => {
          const op = await creditWallet(deps, ctx, tx, {
            walletUid: customer.walletUid,
            amountMinor: 700,
            currency: "KES",
            clientReference: "slow-1",
          });
          return { status: 201, body: JSON.stringify(op) };
        },
        () => null,
      ).catch((e: unknown) => e);
      expect((outcome as DomainError).code).toBe("IdempotencyKeyInUse");
      const balance = await run((tx) => getWalletBalance(deps, ctx, tx, customer.walletUid));
      expect(balance.currentMinor).toBe(0);
      expect(
        await run((tx) => tx.operations.findByClientReference("acme", "wallet_credit", "slow-1")),
      ).toBeNull();
      expect(await claimAgain()).toMatchObject({
        kind: "existing",
        record: { state: "in_progress", response: null, createdAt: taker.createdAt },
      });
    });

    it("credits: a taken clientReference refuses first (409), then currency, then the day's limit", async () => {
      const run = store.uow.run.bind(store.uow);
      const customer = await fundedCustomer(100_000, "+254700000020", "tier_daily");
      const { walletUid } = customer;
      const credit = (amountMinor: number, clientReference: string, currency = "KES") =>
        run((tx) => creditWallet(deps, ctx, tx, { walletUid, amountMinor, currency, clientReference }));
      const refusal = async (p: Promise<unknown>) => ((await p.catch((e: unknown) => e)) as DomainError).code;
      await credit(15_000, "day-1");
      await credit(5_000, "day-2");
      // The day's sum is 20,000, the limit: one more minor unit is refused.
      expect(await refusal(credit(1, "day-3"))).toBe("LimitExceeded");
      // A taken reference is a 409 before the currency and the limits would refuse it.
      expect(await refusal(credit(1, "day-1"))).toBe("Conflict");
      expect(await refusal(credit(1, "day-2", "USD"))).toBe("Conflict");
      expect(await refusal(credit(1, "day-4", "USD"))).toBe("CurrencyMismatch");
      const balance = await run((tx) => getWalletBalance(deps, ctx, tx, walletUid));
      expect(balance).toMatchObject({ currentMinor: 20_000, heldMinor: 0, availableMinor: 20_000 });
    });
  });
}

describeUseCases("memory", async () => ({ uow: createMemoryStore().uow, close: async () => {} }));

describeUseCases("sqlite", () => freshSqliteStore());

const pgUrl = postgresTestUrl();
if (pgUrl) describeUseCases("postgres", () => freshPostgresStore(pgUrl));
