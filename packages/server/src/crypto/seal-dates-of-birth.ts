import type { PiiVault, UnitOfWork } from "@wallet/ledger-core";
import { SEALED_MARK } from "./aes-gcm-vault.js";

const BATCH = 500;

/**
 * Seals the dates of birth a version before they were sealed stored in clear (in whatever form:
 * anything the AES-GCM vault did not seal), 500 at a time in uid order (one pass over the
 * table), each batch one statement in its own transaction; answers how many it found in clear.
 * Safe on several processes starting at once: a date another one sealed meanwhile is left as
 * that one wrote it.
 */
export async function sealClearDatesOfBirth(uow: UnitOfWork, vault: PiiVault): Promise<number> {
  let sealed = 0;
  let after: string | undefined;
  for (;;) {
    const clear = await uow.run(async (tx) => {
      const batch = await tx.customers.clearDatesOfBirth(BATCH, SEALED_MARK, after);
      await tx.customers.sealDatesOfBirth(
        batch.map((c) => ({ uid: c.uid, clear: c.dateOfBirth, sealed: vault.seal(c.dateOfBirth) })),
      );
      return batch;
    });
    sealed += clear.length;
    if (clear.length < BATCH) return sealed;
    after = clear.at(-1)?.uid;
  }
}
