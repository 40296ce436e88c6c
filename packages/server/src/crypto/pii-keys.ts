import { createHash, hkdfSync, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createFileOnce } from "../files/create-file-once.js";
import { StartupError } from "../startup-error.js";
import type { AesGcmVaultOptions } from "./aes-gcm-vault.js";

/**
 * The vault's key ring from `WALLET_PII_KEY`: one base64 32-byte key, or a comma-separated list
 * when rotating (`new,old,...`). The first key seals new values; every listed key opens old ones.
 * The LAST key anchors the blind index (HKDF), so the duplicate check survives rotation as long
 * as the original key stays at the end of the list.
 */
export function piiKeyRing(value: string, source = "WALLET_PII_KEY"): AesGcmVaultOptions {
  const parts = value.split(",").map((p) => p.trim());
  if (parts.length > 16) throw new StartupError(`${source}: at most 16 keys`);
  const keys = new Map<string, Buffer>();
  const ids: string[] = [];
  for (const [i, part] of parts.entries()) {
    const key = decodeKey(part);
    if (key === null) throw new StartupError(`${source}: key ${i + 1} is not 32 bytes of base64`);
    const id = keyIdOf(key);
    if (!keys.has(id)) ids.push(id);
    keys.set(id, key);
  }
  const anchor = keys.get(ids.at(-1) ?? "");
  const currentKeyId = ids[0];
  if (anchor === undefined || currentKeyId === undefined) throw new StartupError(`${source}: no key given`);
  return { keys, currentKeyId, blindIndexKey: deriveBlindIndexKey(anchor) };
}

export interface ResolvePiiKeysOptions {
  env: Readonly<Record<string, string | undefined>>;
  sandbox: boolean;
  /** Where a sandbox keeps its generated key (`<dataDir>/pii.key`). */
  dataDir: string;
}

/**
 * `WALLET_PII_KEY` when set. Outside sandbox it is required: a generated key lost with a
 * container would make every stored identifier unreadable. In sandbox without it, one key is
 * generated once and kept in `<dataDir>/pii.key` (0600) so ciphertexts survive restarts.
 */
export function resolvePiiKeys(options: ResolvePiiKeysOptions): AesGcmVaultOptions & { source: string } {
  const fromEnv = options.env.WALLET_PII_KEY;
  if (fromEnv !== undefined && fromEnv.trim() !== "")
    return { ...piiKeyRing(fromEnv), source: "WALLET_PII_KEY" };
  if (!options.sandbox) {
    throw new StartupError("WALLET_PII_KEY is required outside sandbox mode (32 random bytes, base64)");
  }
  const file = join(options.dataDir, "pii.key");
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  // Created once, whole: a start killed midway leaves no partial key, and one that exists stays.
  createFileOnce(file, `${randomBytes(32).toString("base64")}\n`, 0o600);
  const text = readFileSync(file, "utf8").trim();
  if (text === "") {
    // Only a release that wrote the file in place could leave it so, stopped mid-write; no start
    // got past it, so nothing was sealed with it.
    throw new StartupError(
      `${file} is empty (a first start was stopped while writing it): delete it and start again`,
    );
  }
  return { ...piiKeyRing(text, file), source: file };
}

function decodeKey(text: string): Buffer | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return null;
  const key = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return key.length === 32 ? key : null;
}

/** A short public id for a key; reveals nothing usable about the key. */
export const keyIdOf = (key: Buffer): string =>
  `k${createHash("sha256").update("wallet-pii-key-id\0").update(key).digest("hex").slice(0, 10)}`;

export const deriveBlindIndexKey = (key: Buffer): Buffer =>
  Buffer.from(hkdfSync("sha256", key, "wallet-ledger", "pii-blind-index-v1", 32));
