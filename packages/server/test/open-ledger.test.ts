import { randomBytes } from "node:crypto";
import {
  createTopupIntent,
  creditWallet,
  DomainError,
  fundPrefund,
  getOperationDetail,
  onboardCustomer,
} from "@wallet/ledger-core";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config/index.js";
import { piiKeyRing } from "../src/crypto/index.js";
import { keyIdOf } from "../src/crypto/pii-keys.js";
import { openLedger } from "../src/server/open-ledger.js";
import { StartupError } from "../src/startup-error.js";
import { databases, e2eConfig, piiKeys } from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const onboarding = {
  customerType: "person" as const,
  displayName: "Embedded Customer",
  identifiers: [
    {
      class: "contact" as const,
      type: "msisdn",
      value: "+254722000301",
      isPrimary: true,
      verificationStatus: "verified" as const,
    },
  ],
  kyc: {
    tierCode: "tier_1",
    reviewType: "onboarding" as const,
    verificationSource: "test",
    sourceReference: "kyc-301",
    evidence: {},
    riskRating: "low" as const,
  },
  agreements: [],
};

/** A customer whose date of birth an earlier version stored in clear. */
const legacy = {
  uid: "cus_01JLEGACYDATEOFBIRTH0000",
  tenantId: "acme",
  status: "active" as const,
  customerType: "person" as const,
  displayName: "Earlier Customer",
  dateOfBirth: "1984-02-29",
  regionCode: null,
  preferredLocale: "en",
  clientReference: null,
  metadata: null,
  createdAt: "2026-01-01T00:00:00.000Z",
};

describe.each(databases)("openLedger on $name", ({ url, skip }) => {
  it.skipIf(skip)(
    "prepares the database as serve does, runs the use cases and the due jobs, and refuses what serve refuses",
    async () => {
      const databaseUrl = await url(cleanups);
      const config = parseConfig(e2eConfig());
      const ledger = await openLedger({ config, databaseUrl, piiKeys });
      let intentUid: string;
      try {
        expect(ledger.seeded.inserted).toEqual(["acme"]);
        const acme = await ledger.contextFor("acme", "req-1");
        expect(acme).toMatchObject({ kid: null, requestId: "req-1", tenant: { id: "acme" } });
        expect(acme.scopes).toEqual(acme.tenant.scopes);
        const unknown = await ledger.contextFor("nobody").catch((e: unknown) => e);
        expect(unknown).toBeInstanceOf(DomainError);
        expect((unknown as DomainError).code).toBe("NotFound");

        const { store, core } = ledger;
        // Suspended by the operator: no context, as the API answers the tenant 401.
        await store.uow.run(async (tx) => tx.tenants.upsert({ ...acme.tenant, status: "suspended" }));
        const suspended = await ledger.contextFor("acme").catch((e: unknown) => e);
        expect([(suspended as DomainError).code, (suspended as Error).message]).toEqual([
          "UnprocessableEntity",
          "Tenant acme is suspended",
        ]);
        await store.uow.run(async (tx) => tx.tenants.upsert(acme.tenant));

        await store.uow.run((tx) =>
          fundPrefund(core, tx, { tenantId: "acme", amountMinor: 100_000, currency: "KES" }),
        );
        const customer = await store.uow.run((tx) => onboardCustomer(core, acme, tx, onboarding));
        const credit = await store.uow.run((tx) =>
          creditWallet(core, acme, tx, {
            walletUid: customer.walletUid,
            amountMinor: 2_500,
            currency: "KES",
            clientReference: "embedded-1",
          }),
        );
        expect(credit.state).toBe("completed");

        const intent = await store.uow.run((tx) =>
          createTopupIntent(core, acme, tx, {
            walletUid: customer.walletUid,
            amountMinor: 1_000,
            currency: "KES",
            railCode: "sandbox_mobile",
            expiresInSeconds: 60,
            clientReference: "embedded-topup-1",
          }),
        );
        intentUid = intent.uid;
        expect(await ledger.runDueJobs()).toEqual({
          activatedMandates: 0,
          expiredMandates: 0,
          expiredTopups: 0,
        });
        expect(await ledger.runDueJobs(new Date(Date.now() + 120_000))).toEqual({
          activatedMandates: 0,
          expiredMandates: 0,
          expiredTopups: 1,
        });
        // An instant the jobs cannot compare is refused, not run as of nothing.
        for (const bad of [new Date("x"), new Date(8.64e15), "2026-01-01" as unknown as Date]) {
          const e = await ledger.runDueJobs(bad).catch((err: unknown) => err);
          expect([(e as DomainError).code, (e as DomainError).details?.[0]?.field]).toEqual([
            "InvalidRequest",
            "asOf",
          ]);
        }
        const expired = await store.uow.run((tx) => getOperationDetail(core, acme, tx, intent.uid));
        expect(expired.state).toBe("failed");
      } finally {
        await ledger.close();
      }

      const reopened = await openLedger({ config, databaseUrl, piiKeys });
      // ...and one an embedder wrote in its own form, before dates were normalized.
      const odd = { ...legacy, uid: "cus_01JLEGACYODDDATEOFBIRTH0", dateOfBirth: "29/02/1984" };
      await reopened.store.uow.run(async (tx) => {
        await tx.customers.insert(legacy);
        await tx.customers.insert(odd);
      });
      await reopened.close();

      // Opened again with the same key: the data is there, nothing is seeded twice, and the
      // clear date of birth is sealed.
      const again = await openLedger({ config, databaseUrl, piiKeys });
      try {
        const stored = await again.store.uow.run((tx) => tx.customers.getAny(legacy.uid));
        expect(stored?.dateOfBirth).not.toBe("1984-02-29");
        expect(again.core.vault.open(stored?.dateOfBirth as string)).toBe("1984-02-29");
        expect(await again.store.uow.run((tx) => tx.customers.clearDatesOfBirth(10, "v1."))).toEqual([]);
        expect(again.sealedDatesOfBirth).toBe(2);
        const oddStored = await again.store.uow.run((tx) => tx.customers.getAny(odd.uid));
        expect(again.core.vault.open(oddStored?.dateOfBirth as string)).toBe("29/02/1984");
        expect(again.seeded.inserted).toEqual([]);
        const acme = await again.contextFor("acme");
        const detail = await again.store.uow.run((tx) => getOperationDetail(again.core, acme, tx, intentUid));
        expect(detail.state).toBe("failed");
      } finally {
        await again.close();
      }

      // Another PII key cannot read what the first sealed: refused before anything is seeded.
      const refused = await openLedger({
        config,
        databaseUrl,
        piiKeys: piiKeyRing(randomBytes(32).toString("base64")),
        piiKeySource: "the test's other key",
      }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StartupError);
      expect((refused as Error).message).toContain("the PII keys (the test's other key) cannot open");

      // A config without the KYC level the customer holds: refused too.
      const dropped = parseConfig(
        e2eConfig((c) => {
          c.kycLevels[0].code = "tier_x";
          c.tenants[0].approvedKycLevels = ["tier_x"];
        }),
      );
      const refusedConfig = await openLedger({ config: dropped, databaseUrl, piiKeys }).catch(
        (e: unknown) => e,
      );
      expect(refusedConfig).toBeInstanceOf(ConfigError);
      expect((refusedConfig as Error).message).toContain('"tier_1"');
    },
  );

  it.skipIf(skip)(
    "refuses keys that cannot open a sealed date of birth, as it refuses them for identifiers",
    async () => {
      const databaseUrl = await url(cleanups);
      const config = parseConfig(e2eConfig());
      const [original, next] = [randomBytes(32), randomBytes(32)];
      const first = await openLedger({
        config,
        databaseUrl,
        piiKeys: piiKeyRing(original.toString("base64")),
      });
      await first.store.uow.run((tx) => tx.customers.insert(legacy));
      await first.close();
      // Sealed at this start with the ring's first key...
      const rotated = piiKeyRing(`${next.toString("base64")},${original.toString("base64")}`);
      await (await openLedger({ config, databaseUrl, piiKeys: rotated })).close();
      // ...which a later start without it could never open again.
      const refused = await openLedger({
        config,
        databaseUrl,
        piiKeys: piiKeyRing(original.toString("base64")),
      }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StartupError);
      expect((refused as Error).message).toContain(`(no PII key with id ${keyIdOf(next)})`);
    },
  );
});
