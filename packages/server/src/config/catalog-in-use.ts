import type { UnitOfWork } from "@wallet/ledger-core";
import { ConfigError } from "./config-error.js";
import type { WalletConfig } from "./schema.js";

/**
 * Refuses a catalog that lacks a KYC level the database still uses (an approved or pending KYC
 * version names it, and so do its customer's wallets). The catalog lives in the file, not in the
 * database, so removing such a level from the file would otherwise start a server whose every
 * movement, customer summary and KYC decision on those customers fails on a missing level.
 */
export async function assertCatalogCoversStore(uow: UnitOfWork, config: WalletConfig): Promise<void> {
  const inUse = await uow.run((tx) => tx.kycVersions.tierCodesInUse());
  const known = new Set(config.kycLevels.map((l) => l.code));
  const missing = inUse.filter((code) => !known.has(code)).sort();
  if (missing.length > 0) {
    const list = missing.map((code) => `"${code}"`).join(", ");
    throw new ConfigError(
      "kycLevels",
      `missing ${list}, which customers in the database hold (an approved or pending KYC version); a level in use cannot be removed`,
    );
  }
}
