import { generateKeyPairSync } from "node:crypto";
import { scopes } from "@wallet/ledger-core";
import { createFixedClock, createMemoryStore } from "@wallet/ledger-core/memory";
import { describe, expect, it } from "vitest";
import { assertCatalogCoversStore } from "../src/config/catalog-in-use.js";
import { parseConfig, seedFromConfig } from "../src/config/index.js";

/** The bench belongs to no package (and has no types); its ledger server starts from this config. */
const { benchConfig } = (await import(
  new URL("../../../bench/lib/bench-tenant.mjs", import.meta.url).href
)) as {
  benchConfig: (o: {
    apiKey: string;
    publicKeyPem: string;
    scopes: readonly string[];
    database?: unknown;
  }) => unknown;
};

describe("the bench's server config", () => {
  it("is a valid config that seeds a fresh database, so a stricter rule cannot break `pnpm bench` unseen", async () => {
    const publicKeyPem = generateKeyPairSync("ed25519")
      .publicKey.export({ type: "spki", format: "pem" })
      .toString();
    for (const database of [undefined, { groupCommit: { enabled: true, writers: 4 } }]) {
      const config = parseConfig(
        benchConfig({ apiKey: "bench-api-key-0001", publicKeyPem, scopes, database }),
      );
      expect(config.tenants.map((t) => t.id)).toEqual(["bench"]);
      // What the bench's server does at start, on an empty database.
      const store = createMemoryStore();
      await assertCatalogCoversStore(store.uow, config);
      const clock = createFixedClock("2026-11-24T00:00:00.000Z");
      expect((await seedFromConfig(store.uow, config, clock)).inserted).toEqual(["bench"]);
    }
  });
});
