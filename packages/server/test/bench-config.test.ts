import { generateKeyPairSync } from "node:crypto";
import { scopes } from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../src/config/index.js";

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
  it("is a valid config, so a change to the config rules cannot break `pnpm bench` unseen", () => {
    const publicKeyPem = generateKeyPairSync("ed25519")
      .publicKey.export({ type: "spki", format: "pem" })
      .toString();
    for (const database of [undefined, { groupCommit: { enabled: true, writers: 4 } }]) {
      const config = parseConfig(
        benchConfig({ apiKey: "bench-api-key-0001", publicKeyPem, scopes, database }),
      );
      expect(config.tenants.map((t) => t.id)).toEqual(["bench"]);
    }
  });
});
