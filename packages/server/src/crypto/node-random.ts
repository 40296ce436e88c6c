import { randomBytes } from "node:crypto";
import type { RandomSource } from "@wallet/ledger-core";

/** The core's `RandomSource` port over the operating system's CSPRNG. */
export function createNodeRandom(): RandomSource {
  return {
    bytes(n) {
      if (!Number.isSafeInteger(n) || n < 0 || n > 65_536)
        throw new RangeError(`random byte count out of range: ${n}`);
      return new Uint8Array(randomBytes(n));
    },
  };
}
