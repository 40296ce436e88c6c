import { createHash } from "node:crypto";
import type { Hasher } from "@wallet/ledger-core";

/** The core's `Hasher` port over node:crypto. */
export function createNodeHasher(): Hasher {
  return {
    sha256Hex: (data) => createHash("sha256").update(data, "utf8").digest("hex"),
  };
}
