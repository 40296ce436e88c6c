import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { piiKeyRing } from "../src/crypto/index.js";
import { keyIdOf } from "../src/crypto/pii-keys.js";
import { StartupError } from "../src/startup-error.js";
import { clientOf, databases, e2eConfig, onboard, piiKeys, start } from "./running-server.js";

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c();
});

const refusalOf = (p: Promise<{ close(): Promise<void> }>) =>
  p.then(
    async (s) => {
      await s.close();
      return null;
    },
    (e: unknown) => e,
  );

describe.each(databases)("PII keys that cannot open the stored identifiers, on $name", ({ url, skip }) => {
  it.skipIf(skip)("stop the start with one line; the right key, alone or in a ring, starts", async () => {
    const databaseUrl = await url(cleanups);
    const original = randomBytes(32).toString("base64");
    const first = await start(e2eConfig(), databaseUrl, { piiKeys: piiKeyRing(original) });
    try {
      await onboard(clientOf(first.url));
    } finally {
      await first.close();
    }

    // Another key (a sandbox started from another directory generates one): refused, not 500s.
    const other = randomBytes(32);
    const refused = await refusalOf(
      start(e2eConfig(), databaseUrl, {
        piiKeys: piiKeyRing(other.toString("base64")),
        piiKeySource: "/elsewhere/data/pii.key",
      }),
    );
    expect(refused).toBeInstanceOf(StartupError);
    const originalId = keyIdOf(Buffer.from(original, "base64"));
    expect((refused as Error).message).toBe(
      `the PII keys (/elsewhere/data/pii.key) cannot open the identifiers stored in the database (no PII key with id ${originalId}): start with the key they were sealed with, listed in WALLET_PII_KEY ("new,old" while rotating)`,
    );
    expect((refused as Error).message).not.toContain(original);

    // A rotation ring holding the original starts; so does the original alone.
    for (const ring of [`${other.toString("base64")},${original}`, original]) {
      const s = await start(e2eConfig(), databaseUrl, { piiKeys: piiKeyRing(ring) });
      await s.close();
    }
  });
});

describe("an empty database", () => {
  it("starts with any key: there is nothing to open", async () => {
    const s = await start(e2eConfig(), await databases[0]!.url(cleanups), { piiKeys });
    await s.close();
  });
});
