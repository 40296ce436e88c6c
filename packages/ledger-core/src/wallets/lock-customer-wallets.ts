import type { Tx } from "../store/unit-of-work.js";
import type { Wallet } from "./model.js";

/**
 * The customer's wallets, each locked for update and read again, for a change to the customer
 * that movements read (its status, its KYC level, an identifier a payout pays to). Call after locking the
 * customer (the one order: customer, then wallets). Movements share-lock their wallet before they
 * read the customer or its identifiers, so those in flight commit before the change is answered,
 * and those starting meanwhile wait, then read the change.
 */
export async function lockCustomerWallets(tx: Tx, tenantId: string, customerUid: string): Promise<Wallet[]> {
  const locked: Wallet[] = [];
  // By uid, the order the expiry job locks wallets in too.
  const listed = (await tx.wallets.listByCustomer(tenantId, customerUid)).sort((a, b) =>
    a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0,
  );
  for (const wallet of listed) {
    locked.push((await tx.wallets.getForUpdate(tenantId, wallet.uid)) ?? wallet);
  }
  return locked;
}
