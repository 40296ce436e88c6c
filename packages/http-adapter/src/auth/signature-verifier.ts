import { createPublicKey, type KeyObject, verify } from "node:crypto";

/** Ed25519 signatures are 64 bytes: 88 base64 characters with padding. */
const SIGNATURE_BASE64 = /^[A-Za-z0-9+/]{86}==$/;

/**
 * Decodes X-Signature, accepting only the canonical base64 of 64 bytes. Canonical matters for the
 * replay guard: two spellings of the same signature must not count as two signatures.
 */
export function decodeSignature(header: string): Buffer | null {
  if (!SIGNATURE_BASE64.test(header)) return null;
  const bytes = Buffer.from(header, "base64");
  return bytes.byteLength === 64 && bytes.toString("base64") === header ? bytes : null;
}

/**
 * Verifies Ed25519 signatures with node:crypto on the libuv thread pool (the callback form), so a
 * burst of requests does not block the event loop. Public keys are parsed once and cached per
 * (tenant, kid, pem): a rotated key under the same kid gets a new entry.
 */
export class SignatureVerifier {
  readonly #keys = new Map<string, KeyObject>();

  constructor(private readonly cachedKeysMax = 1000) {}

  /** The parsed key, or null when the PEM is not an Ed25519 public key. */
  keyFor(tenantId: string, kid: string, publicKeyPem: string): KeyObject | null {
    const cacheKey = `${tenantId}\n${kid}\n${publicKeyPem}`;
    const cached = this.#keys.get(cacheKey);
    if (cached !== undefined) return cached;
    let key: KeyObject;
    try {
      key = createPublicKey(publicKeyPem);
    } catch {
      return null;
    }
    if (key.asymmetricKeyType !== "ed25519") return null;
    if (this.#keys.size >= this.cachedKeysMax) {
      // Map iteration is insertion order: drop the oldest entry.
      const oldest = this.#keys.keys().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
    this.#keys.set(cacheKey, key);
    return key;
  }

  verify(key: KeyObject, data: Uint8Array, signature: Uint8Array): Promise<boolean> {
    return new Promise((resolve) => {
      verify(null, data, key, signature, (err, ok) => resolve(err === null && ok));
    });
  }
}
