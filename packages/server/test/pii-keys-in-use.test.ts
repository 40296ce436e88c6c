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
      `the PII keys (/elsewhere/data/pii.key) cannot open the personal data stored in the database (no PII key with id ${originalId}): start with every key they were sealed with, listed in WALLET_PII_KEY ("new,old" while rotating)`,
    );
    expect((refused as Error).message).not.toContain(original);

    // A rotation ring holding the original starts; so does the original alone.
    for (const ring of [`${other.toString("base64")},${original}`, original]) {
      const s = await start(e2eConfig(), databaseUrl, { piiKeys: piiKeyRing(ring) });
      await s.close();
    }

    // The ring in the wrong order ("old,new") opens everything, but would index anew with the
    // new key: the duplicate check would not see the stored identifiers. Refused.
    const reversed = await refusalOf(
      start(e2eConfig(), databaseUrl, { piiKeys: piiKeyRing(`${original},${other.toString("base64")}`) }),
    );
    expect(reversed).toBeInstanceOf(StartupError);
    expect((reversed as Error).message).toBe(
      'the PII keys (WALLET_PII_KEY) open the identifiers stored in the database, but the last of them is not the key their blind index was made with: keep the original key last in WALLET_PII_KEY ("new,old" while rotating), or the duplicate check of verified identifiers goes blind',
    );
  });

  it.skipIf(skip)(
    "a rotation's middle key dropped is refused, though the first and last identifiers open",
    async () => {
      const databaseUrl = await url(cleanups);
      const [k1, k2, k3] = [0, 1, 2].map(() => randomBytes(32).toString("base64")) as [
        string,
        string,
        string,
      ];
      let msisdn = 700_000_100;
      for (const ring of [k1, `${k2},${k1}`, `${k3},${k2},${k1}`]) {
        const s = await start(e2eConfig(), databaseUrl, { piiKeys: piiKeyRing(ring) });
        try {
          await onboard(clientOf(s.url), `+254${++msisdn}`);
        } finally {
          await s.close();
        }
      }
      const refused = await refusalOf(
        start(e2eConfig(), databaseUrl, { piiKeys: piiKeyRing(`${k3},${k1}`) }),
      );
      expect(refused).toBeInstanceOf(StartupError);
      expect((refused as Error).message).toContain(
        `cannot open the personal data stored in the database (no PII key with id ${keyIdOf(Buffer.from(k2, "base64"))})`,
      );
    },
  );
});

describe("an empty database", () => {
  it("starts with any key: there is nothing to open", async () => {
    const s = await start(e2eConfig(), await databases[0]!.url(cleanups), { piiKeys });
    await s.close();
  });
});
