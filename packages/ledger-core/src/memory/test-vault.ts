import type { Hasher, PiiVault } from "../shared/ports.js";

/**
 * A reversible, NON-secret vault for tests and examples: it hides nothing from anyone who reads
 * the store. Production wires the AES-256-GCM vault of the server package.
 */
export function createTestVault(hasher: Hasher): PiiVault {
  return {
    seal: (clear) => `test.${encodeURIComponent(clear)}`,
    open: (sealed) => decodeURIComponent(sealed.slice("test.".length)),
    blindIndex: (tenantId, kind, value) =>
      hasher.sha256Hex(`test-blind-index\0${tenantId}\0${kind}\0${value}`),
  };
}
