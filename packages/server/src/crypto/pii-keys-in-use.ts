import type { PiiVault, UnitOfWork } from "@wallet/ledger-core";
import { StartupError } from "../startup-error.js";

/**
 * Refuses to start when the PII keys cannot open the identifiers the database holds (the first
 * and the last stored): a sandbox started from another directory generates a key of its own, and
 * an operator may pass the wrong `WALLET_PII_KEY`. Started anyway, every read of personal data
 * would answer 500, and the duplicate check of verified identifiers would go blind (their blind
 * index is keyed from the PII key), letting a second customer register the same phone number.
 */
export async function assertPiiKeysOpenStore(
  uow: UnitOfWork,
  vault: PiiVault,
  source: string,
): Promise<void> {
  const sealed = await uow.run((tx) => tx.identifiers.sealedValuesToCheck());
  for (const value of sealed) {
    try {
      vault.open(value);
    } catch (e) {
      // The vault's messages never quote the value (it is personal data); a key id is not.
      throw new StartupError(
        `the PII keys (${source}) cannot open the identifiers stored in the database (${(e as Error).message}): start with the key they were sealed with, listed in WALLET_PII_KEY ("new,old" while rotating)`,
      );
    }
  }
}
