import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";
import type { PiiVault } from "@wallet/ledger-core";

export interface AesGcmVaultOptions {
  /** Every key that may have sealed a stored value, by key id. 32 bytes each. */
  keys: ReadonlyMap<string, Buffer>;
  /** The key new values are sealed with. */
  currentKeyId: string;
  /** HMAC key of the blind index. It must outlive key rotation, or duplicate checks go blind. */
  blindIndexKey: Buffer;
}

const version = "v1";

/** How every value sealed with the key `keyId` starts. */
export const sealedPrefix = (keyId: string): string => `${version}.${keyId}.`;
/** How every value this vault seals starts, whatever its key. */
export const SEALED_MARK = `${version}.`;
const ivBytes = 12;
const tagBytes = 16;
const keyIdPattern = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * AES-256-GCM vault. Sealed values read `v1.<keyId>.<base64url(iv | ciphertext | tag)>`: the key
 * id travels with each ciphertext so old values stay readable after the current key changes. The
 * `v1.<keyId>` header is authenticated too, so it cannot be swapped onto another ciphertext.
 */
export function createAesGcmVault(options: AesGcmVaultOptions): PiiVault {
  const keys = new Map(options.keys);
  for (const [id, key] of keys) {
    if (!keyIdPattern.test(id)) throw new Error(`PII key id must match ${keyIdPattern}`);
    if (key.length !== 32) throw new Error(`PII key ${id} must be 32 bytes`);
  }
  const current = keys.get(options.currentKeyId);
  if (current === undefined) throw new Error("the current PII key id names no key");
  if (options.blindIndexKey.length < 32) throw new Error("the blind index key must be at least 32 bytes");
  const blindIndexKey = Buffer.from(options.blindIndexKey);

  return {
    seal(clearText) {
      const header = `${version}.${options.currentKeyId}`;
      const iv = randomBytes(ivBytes);
      const cipher = createCipheriv("aes-256-gcm", current, iv, { authTagLength: tagBytes });
      cipher.setAAD(Buffer.from(header, "utf8"));
      const body = Buffer.concat([cipher.update(clearText, "utf8"), cipher.final()]);
      const payload = Buffer.concat([iv, body, cipher.getAuthTag()]);
      return `${header}.${payload.toString("base64url")}`;
    },

    open(sealed) {
      // Errors never quote the input: it is ciphertext of personal data.
      const parts = sealed.split(".");
      if (parts.length !== 3 || parts[0] !== version) throw new Error("not a v1 sealed PII value");
      const [, keyId = "", encoded = ""] = parts;
      const key = keys.get(keyId);
      if (key === undefined) throw new Error(`no PII key with id ${keyIdPattern.test(keyId) ? keyId : "?"}`);
      const payload = Buffer.from(encoded, "base64url");
      if (payload.length < ivBytes + tagBytes) throw new Error("sealed PII value is truncated");
      const iv = payload.subarray(0, ivBytes);
      const tag = payload.subarray(payload.length - tagBytes);
      const body = payload.subarray(ivBytes, payload.length - tagBytes);
      const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: tagBytes });
      decipher.setAAD(Buffer.from(`${version}.${keyId}`, "utf8"));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
      } catch {
        throw new Error("sealed PII value failed authentication");
      }
    },

    blindIndex(tenantId, kind, normalizedValue) {
      return createHmac("sha256", blindIndexKey)
        .update(`${tenantId}\0${kind}\0${normalizedValue}`, "utf8")
        .digest("hex");
    },
  };
}
