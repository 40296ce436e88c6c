import { identifierBlindIndex, type PiiVault, type UnitOfWork } from "@wallet/ledger-core";
import { StartupError } from "../startup-error.js";
import { SEALED_MARK, sealedPrefix } from "./aes-gcm-vault.js";

/**
 * Refuses to start when the PII keys do not fit the identifiers the database holds:
 * - a value sealed with a key that is not in the ring (a sandbox started from another directory
 *   generates a key of its own, an operator may pass the wrong `WALLET_PII_KEY`, or drop a
 *   rotation's middle key): every read of it would fail (one scan of the identifiers, and one of
 *   the customers for their sealed dates of birth);
 * - the first and the last identifier must open, and their blind index must be the one the last
 *   key of the ring makes (keys listed "old,new" instead of "new,old" open everything, but index
 *   anew).
 * Started anyway, reads of personal data would fail, or the duplicate check of verified
 * identifiers would go blind, letting a second customer register the same phone number.
 */
export async function assertPiiKeysOpenStore(
  uow: UnitOfWork,
  vault: PiiVault,
  keyIds: readonly string[],
  source: string,
): Promise<void> {
  const prefixes = keyIds.map(sealedPrefix);
  const { outside, birthOutside, ends } = await uow.run(async (tx) => ({
    outside: await tx.identifiers.sealedOutsidePrefixes(prefixes),
    birthOutside: await tx.customers.sealedDateOfBirthOutsidePrefixes(SEALED_MARK, prefixes),
    ends: await tx.identifiers.firstAndLast(),
  }));
  const open = (sealed: string): string => {
    try {
      return vault.open(sealed);
    } catch (e) {
      // The vault's messages never quote the value (it is personal data); a key id is not.
      throw new StartupError(
        `the PII keys (${source}) cannot open the personal data stored in the database (${(e as Error).message}): start with every key they were sealed with, listed in WALLET_PII_KEY ("new,old" while rotating)`,
      );
    }
  };
  if (outside !== null) open(outside);
  if (birthOutside !== null) open(birthOutside);
  for (const identifier of ends) {
    const value = open(identifier.sealedValue);
    const index = identifierBlindIndex(vault, identifier.tenantId, identifier.class, identifier.type, value);
    if (index !== identifier.blindIndex) {
      throw new StartupError(
        `the PII keys (${source}) open the identifiers stored in the database, but the last of them is not the key their blind index was made with: keep the original key last in WALLET_PII_KEY ("new,old" while rotating), or the duplicate check of verified identifiers goes blind`,
      );
    }
  }
}
