import type { PiiVault, UnitOfWork } from "@wallet/ledger-core";

const BATCH = 500;

/**
 * Seals the dates of birth a version before they were sealed stored in clear, in batches of 500,
 * each in its own transaction; answers how many. Safe on several processes starting at once: a
 * date another one sealed meanwhile is left as that one wrote it.
 */
export async function sealClearDatesOfBirth(uow: UnitOfWork, vault: PiiVault): Promise<number> {
  let sealed = 0;
  for (;;) {
    const done = await uow.run(async (tx) => {
      const clear = await tx.customers.clearDatesOfBirth(BATCH);
      for (const c of clear)
        await tx.customers.sealDateOfBirth(c.uid, c.dateOfBirth, vault.seal(c.dateOfBirth));
      return clear.length;
    });
    sealed += done;
    if (done < BATCH) return sealed;
  }
}
