import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAesGcmVault, keyIdOf, piiKeyRing, resolvePiiKeys } from "../src/crypto/index.js";

const key = () => randomBytes(32);

describe("AES-GCM vault", () => {
  const ring = piiKeyRing(key().toString("base64"));
  const vault = createAesGcmVault(ring);

  it("round-trips and never repeats a ciphertext", () => {
    const a = vault.seal("+254712345678");
    const b = vault.seal("+254712345678");
    expect(a).not.toBe(b);
    expect(a).toMatch(new RegExp(`^v1\\.${ring.currentKeyId}\\.[A-Za-z0-9_-]+$`));
    expect(a).not.toContain("254712345678");
    expect(vault.open(a)).toBe("+254712345678");
    expect(vault.open(vault.seal("Ñandú 😀"))).toBe("Ñandú 😀");
    expect(vault.open(vault.seal(""))).toBe("");
  });

  it("detects tampering with the ciphertext, the tag or the key id", () => {
    const sealed = vault.seal("jane@example.com");
    const [v, id, body] = sealed.split(".") as [string, string, string];
    const bytes = Buffer.from(body, "base64url");
    for (const index of [0, 14, bytes.length - 1]) {
      const flipped = Buffer.from(bytes);
      flipped[index] = (flipped[index] ?? 0) ^ 1;
      expect(() => vault.open(`${v}.${id}.${flipped.toString("base64url")}`)).toThrow(
        "failed authentication",
      );
    }
    expect(() => vault.open(`${v}.${id}.${bytes.subarray(0, 20).toString("base64url")}`)).toThrow(
      "truncated",
    );
    expect(() => vault.open(`v2.${id}.${body}`)).toThrow("not a v1");
    expect(() => vault.open(`v1.kother.${body}`)).toThrow("no PII key");
  });

  it("keeps the blind index stable per tenant and distinct across tenants and kinds", () => {
    const again = createAesGcmVault(ring);
    const a = vault.blindIndex("acme", "msisdn", "+254712345678");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(again.blindIndex("acme", "msisdn", "+254712345678")).toBe(a);
    expect(vault.blindIndex("globex", "msisdn", "+254712345678")).not.toBe(a);
    expect(vault.blindIndex("acme", "email", "+254712345678")).not.toBe(a);
    expect(vault.blindIndex("acme", "msisdn", "+254712345679")).not.toBe(a);
    const otherKey = createAesGcmVault(piiKeyRing(key().toString("base64")));
    expect(otherKey.blindIndex("acme", "msisdn", "+254712345678")).not.toBe(a);
  });

  it("reads old ciphertexts after rotation and keeps the blind index", () => {
    const oldKey = key().toString("base64");
    const before = createAesGcmVault(piiKeyRing(oldKey));
    const sealedBefore = before.seal("A1234567");
    const indexBefore = before.blindIndex("acme", "national_id", "A1234567");

    const newKey = key().toString("base64");
    const rotated = piiKeyRing(`${newKey},${oldKey}`);
    const after = createAesGcmVault(rotated);
    expect(after.open(sealedBefore)).toBe("A1234567");
    const sealedAfter = after.seal("A1234567");
    expect(sealedAfter.split(".")[1]).toBe(keyIdOf(Buffer.from(newKey, "base64")));
    expect(sealedAfter.split(".")[1]).not.toBe(sealedBefore.split(".")[1]);
    expect(after.blindIndex("acme", "national_id", "A1234567")).toBe(indexBefore);
    // The old vault alone cannot read what the new key sealed.
    expect(() => before.open(sealedAfter)).toThrow("no PII key");
  });

  it("refuses malformed key material", () => {
    expect(() => piiKeyRing("c2hvcnQ=")).toThrow("WALLET_PII_KEY: key 1 is not 32 bytes of base64");
    expect(() => piiKeyRing("not base64!")).toThrow("not 32 bytes");
  });
});

describe("resolvePiiKeys", () => {
  it("requires WALLET_PII_KEY outside sandbox", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wallet-pii-"));
    expect(() => resolvePiiKeys({ env: {}, sandbox: false, dataDir })).toThrow(
      "WALLET_PII_KEY is required outside sandbox mode",
    );
  });

  it("generates a sandbox key once, mode 0600, and reuses it", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wallet-pii-"));
    const first = resolvePiiKeys({ env: {}, sandbox: true, dataDir });
    const file = join(dataDir, "pii.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealed = createAesGcmVault(first).seal("+254700000001");
    const second = resolvePiiKeys({ env: {}, sandbox: true, dataDir });
    expect(second.currentKeyId).toBe(first.currentKeyId);
    expect(createAesGcmVault(second).open(sealed)).toBe("+254700000001");
    expect(readFileSync(file, "utf8").trim()).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it("creates the key whole, leaves no temporary file, and never replaces a key that exists", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wallet-pii-"));
    const file = join(dataDir, "pii.key");
    const k = key().toString("base64");
    writeFileSync(file, `${k}\n`, { mode: 0o600 });
    expect(resolvePiiKeys({ env: {}, sandbox: true, dataDir }).currentKeyId).toBe(
      keyIdOf(Buffer.from(k, "base64")),
    );
    expect(readFileSync(file, "utf8")).toBe(`${k}\n`);
    expect(readdirSync(dataDir)).toEqual(["pii.key"]);

    const fresh = mkdtempSync(join(tmpdir(), "wallet-pii-"));
    resolvePiiKeys({ env: {}, sandbox: true, dataDir: fresh });
    expect(readdirSync(fresh)).toEqual(["pii.key"]);
  });

  it("refuses an empty key file, left by a start stopped while writing it, in one line", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wallet-pii-"));
    writeFileSync(join(dataDir, "pii.key"), "", { mode: 0o600 });
    expect(() => resolvePiiKeys({ env: {}, sandbox: true, dataDir })).toThrow(
      /pii\.key is empty \(a first start was stopped while writing it\): delete it and start again$/,
    );
  });

  it("prefers WALLET_PII_KEY when set", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "wallet-pii-"));
    const k = key();
    const ring = resolvePiiKeys({ env: { WALLET_PII_KEY: k.toString("base64") }, sandbox: true, dataDir });
    expect(ring.currentKeyId).toBe(keyIdOf(k));
    expect(() => statSync(join(dataDir, "pii.key"))).toThrow();
  });
});
