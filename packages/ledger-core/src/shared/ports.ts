/** Wall clock. Injected so the core has no ambient time. */
export interface Clock {
  now(): Date;
}

/** SHA-256 and HMAC, injected so the core needs no crypto library. */
export interface Hasher {
  /** Lower-case hex SHA-256 of the UTF-8 bytes of `data`. */
  sha256Hex(data: string): string;
}

/** Source of randomness for ids and references. */
export interface RandomSource {
  /** `n` uniformly random bytes. */
  bytes(n: number): Uint8Array;
}

/**
 * Vault for personal data. Values are sealed before storage; a keyed blind index lets the
 * store find duplicates without holding clear text.
 *
 * @example
 *   const sealed = vault.seal("+254712345678");
 *   vault.open(sealed) === "+254712345678";
 */
export interface PiiVault {
  seal(clearText: string): string;
  open(sealed: string): string;
  /** Deterministic keyed hash of the normalized value, scoped by tenant so tenants never collide. */
  blindIndex(tenantId: string, kind: string, normalizedValue: string): string;
}
