import type { UnitOfWork } from "@wallet/ledger-core";
import { ConfigError } from "./config-error.js";
import type { WalletConfig } from "./schema.js";

/**
 * Refuses a catalog that lacks a KYC level the database still uses (an approved or pending KYC
 * version names it, and so do its customer's wallets) or gives one another currency than its
 * wallets hold, or that lacks a rail that top-up intents still wait
 * on for their payment. The catalog lives in the file, not in the database, so removing such a
 * level from the file would otherwise start a server whose every movement, customer summary and
 * KYC decision on those customers fails on a missing level; removing such a rail, one that answers
 * 404 to the payments of those intents. (Payout results and suspense resolutions do not need the
 * rail in the catalog.)
 */
export async function assertCatalogCoversStore(uow: UnitOfWork, config: WalletConfig): Promise<void> {
  const [levels, rails, tierCurrencies] = await uow.run(
    async (tx) =>
      [
        await tx.kycVersions.tierCodesInUse(),
        await tx.operations.railCodesAwaitingPayment(),
        await tx.wallets.tierCurrenciesInUse(),
      ] as const,
  );
  const missingLevels = missingFrom(levels, config.kycLevels);
  if (missingLevels) {
    throw new ConfigError(
      "kycLevels",
      `missing ${missingLevels}, which customers in the database hold (an approved or pending KYC version); a level in use cannot be removed`,
    );
  }
  // A level's limits are amounts of its currency: another one would run the wallets at that level
  // on amounts of a currency they do not hold (a KYC approval refuses that mismatch too).
  for (const { kycTierCode, currency } of [...tierCurrencies].sort((a, b) =>
    a.kycTierCode < b.kycTierCode ? -1 : 1,
  )) {
    const level = config.kycLevels.find((l) => l.code === kycTierCode);
    if (level !== undefined && level.currency !== currency) {
      throw new ConfigError(
        "kycLevels",
        `"${kycTierCode}" is in ${level.currency}, but wallets in the database at that level hold ${currency}; a level in use cannot change its currency`,
      );
    }
  }
  // A payment reported on a rail the file no longer names is 404: the payer's money for a live
  // intent would have nowhere to go. An inactive rail still takes the payments of its intents.
  const missingRails = missingFrom(rails, config.rails);
  if (missingRails) {
    throw new ConfigError(
      "rails",
      `missing ${missingRails}, which top-up intents in the database still wait on for their payment; set such a rail "inactive" instead of removing it`,
    );
  }
}

/** The codes in use that the catalog lacks, quoted and sorted, or null when it has them all. */
function missingFrom(inUse: readonly string[], catalog: readonly { code: string }[]): string | null {
  const known = new Set(catalog.map((e) => e.code));
  const missing = inUse.filter((code) => !known.has(code)).sort();
  return missing.length === 0 ? null : missing.map((code) => `"${code}"`).join(", ");
}
