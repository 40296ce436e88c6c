import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "@wallet/persistence";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../src/config/index.js";
import type { RawConfig } from "./fixtures.js";
import { run } from "./helpers.js";
import { clientOf, databases, e2eConfig, onboard, start } from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

/** tier_1 as the design example has it, and tier_2 beside it, both approved for acme. */
const withTier2 = (c: RawConfig) => {
  c.kycLevels.push({ ...c.kycLevels[0], code: "tier_2", name: "Standard", maxBalanceMinor: 50_000_000 });
  c.tenants[0].approvedKycLevels = ["tier_1", "tier_2"];
};

describe.each(databases)("a catalog that drops a KYC level in use, on $name", ({ url, skip }) => {
  it.skipIf(skip)("stops the start with one line naming it; a level nobody holds may go", async () => {
    const databaseUrl = await url(cleanups);
    const server = await start(e2eConfig(withTier2), databaseUrl);
    try {
      await onboard(clientOf(server.url)); // a tier_1 customer and wallet
    } finally {
      await server.close();
    }

    // tier_2 is held by no one: removing it is fine.
    const unused = await start(e2eConfig(), databaseUrl);
    await unused.close();

    // tier_1 is: the server refuses to start rather than answer 500 on that customer's wallet.
    const dropped = e2eConfig((c) => {
      withTier2(c);
      c.kycLevels = c.kycLevels.filter((l: { code: string }) => l.code !== "tier_1");
      c.tenants[0].approvedKycLevels = ["tier_2"];
      c.tenants[0].name = "Renamed by the refused file";
    });
    const refused = await start(dropped, databaseUrl).then(
      async (s) => {
        await s.close();
        return null;
      },
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    // Refused before seeding: nothing of the file reached the database.
    const store = openStore(databaseUrl);
    try {
      expect((await store.uow.run((tx) => tx.tenants.get("acme")))?.name).not.toBe(
        "Renamed by the refused file",
      );
    } finally {
      await store.close();
    }
    expect((refused as Error).message).toBe(
      'config: kycLevels: missing "tier_1", which customers in the database hold (an approved or pending KYC version); a level in use cannot be removed',
    );
  });
});

describe.each(databases)(
  "a catalog that gives a KYC level in use another currency, on $name",
  ({ url, skip }) => {
    it.skipIf(skip)(
      "stops the start with one line naming it; the same level in its currency starts",
      async () => {
        const databaseUrl = await url(cleanups);
        const server = await start(e2eConfig(), databaseUrl);
        try {
          await onboard(clientOf(server.url)); // a tier_1 customer and KES wallet
        } finally {
          await server.close();
        }
        const inUsd = e2eConfig((c) => {
          c.kycLevels[0].currency = "USD";
        });
        const refused = await start(inUsd, databaseUrl).then(
          async (s) => {
            await s.close();
            return null;
          },
          (e: unknown) => e,
        );
        expect(refused).toBeInstanceOf(ConfigError);
        expect((refused as Error).message).toBe(
          'config: kycLevels: "tier_1" is in USD, but wallets in the database at that level hold KES; a level in use cannot change its currency',
        );
        const again = await start(e2eConfig(), databaseUrl);
        await again.close();
      },
    );
  },
);

/** A second rail beside sandbox_mobile, approved for acme. */
const withSecondRail = (c: RawConfig) => {
  c.rails.push({ ...c.rails[0], code: "sandbox_bank" });
  c.tenants[0].approvedRails = [...c.tenants[0].approvedRails, "sandbox_bank"];
};

describe.each(databases)(
  "a catalog that drops a rail operations still wait on, on $name",
  ({ url, skip }) => {
    it.skipIf(skip)("stops the start with one line naming it; kept as inactive, it starts", async () => {
      const databaseUrl = await url(cleanups);
      const server = await start(e2eConfig(withSecondRail), databaseUrl);
      try {
        const client = clientOf(server.url);
        const { walletUid } = await onboard(client);
        const intent = await client.call("POST", "/topup-intents", {
          walletUid,
          amountMinor: 5_000,
          currency: "KES",
          railCode: "sandbox_bank",
          clientReference: "tu-live",
        });
        expect(intent.status, intent.text).toBe(201);
      } finally {
        await server.close();
      }
      const withoutBank = (c: RawConfig) => {
        c.tenants[0].approvedRails = c.tenants[0].approvedRails.filter((r: string) => r !== "sandbox_bank");
      };
      const refused = await start(e2eConfig(withoutBank), databaseUrl).then(
        async (s) => {
          await s.close();
          return null;
        },
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(ConfigError);
      // `wallet migrate`, the deploy step before the servers, refuses the file the same way.
      const cwd = mkdtempSync(join(tmpdir(), "wallet-migrate-"));
      writeFileSync(join(cwd, "dropped.json"), JSON.stringify(e2eConfig(withoutBank)));
      const migrated = await run(["migrate", "--config", "dropped.json", "--db", databaseUrl], { cwd });
      expect(migrated).toMatchObject({
        code: 1,
        stdout: "",
        stderr: `wallet: ${(refused as Error).message}\n`,
      });
      expect((refused as Error).message).toBe(
        'config: rails: missing "sandbox_bank", which top-up intents in the database still wait on for their payment; set such a rail "inactive" instead of removing it',
      );
      // Kept as inactive, it starts (the intent can still be paid through it).
      const inactive = await start(
        e2eConfig((c) => {
          withSecondRail(c);
          c.rails[1].status = "inactive";
        }),
        databaseUrl,
      );
      await inactive.close();
    });
  },
);
