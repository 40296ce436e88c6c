import type { CoreDeps } from "../app/context.js";
import type { CustomerStatus } from "../customers/model.js";
import { customerStatuses } from "../customers/model.js";
import { emitEvent } from "../events/emit.js";
import { accountKeys } from "../ledger/accounts.js";
import { assertOneOf, notFound, refuse } from "../shared/errors.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Tenant } from "../tenants/model.js";
import { lockCustomerWallets } from "./lock-customer-wallets.js";
import type { Wallet, WalletStatus } from "./model.js";
import { walletStatuses } from "./model.js";

/** Wallet statuses that fire wallet.status_changed (spec: blocked, frozen, dormant, closed). */
const walletEventStatuses: readonly WalletStatus[] = [
  "debit_blocked",
  "credit_blocked",
  "frozen",
  "dormant",
  "closed",
];
/** Customer statuses that fire customer.status_changed (spec: restricted, suspended, closed). */
const customerEventStatuses: readonly CustomerStatus[] = ["restricted", "suspended", "closed"];

export async function setWalletStatus(
  deps: CoreDeps,
  tx: Tx,
  tenant: Tenant,
  wallet: Wallet,
  status: WalletStatus,
  at: string,
): Promise<Wallet> {
  if (wallet.status === status) return wallet;
  await tx.wallets.setStatus(tenant.id, wallet.uid, status);
  if (walletEventStatuses.includes(status)) {
    await emitEvent(
      deps,
      tx,
      tenant,
      "wallet.status_changed",
      wallet.uid,
      "wallet",
      { uid: wallet.uid, customerUid: wallet.customerUid, status },
      at,
    );
  }
  return { ...wallet, status };
}

/**
 * Whether a wallet (its row locked by the caller) holds funds or a payout's hold. Its accounts are
 * locked: a movement in flight commits first, and none starts meanwhile.
 */
async function holdsFunds(tx: Tx, wallet: Wallet): Promise<boolean> {
  const balances = await tx.ledger.lockAccounts(wallet.currency, [
    accountKeys.wallet(wallet.uid),
    accountKeys.walletHold(wallet.uid),
  ]);
  return [...balances.values()].some((b) => b !== 0);
}

/**
 * Operator: PATCH /admin/wallets/{uid}. Closing needs an empty wallet (409 otherwise): nothing
 * moves into or out of a closed wallet, so money left in it (or held for a payout in flight)
 * would be stuck there.
 */
export async function changeWalletStatus(deps: CoreDeps, tx: Tx, walletUid: string, status: WalletStatus) {
  assertOneOf("status", status, walletStatuses);
  const found = (await tx.wallets.getAny(walletUid)) ?? notFound("Wallet");
  // Locked and read again: the change is decided on the status as it is now, and a second change
  // at once waits for this one (its answer then is what the wallet ends as).
  const wallet = (await tx.wallets.getForUpdate(found.tenantId, walletUid)) ?? notFound("Wallet");
  if (status === "closed" && wallet.status !== "closed" && (await holdsFunds(tx, wallet))) {
    refuse(
      "Conflict",
      "The wallet still holds funds: move them out (and settle its payouts) before closing it",
    );
  }
  const tenant = (await tx.tenants.get(wallet.tenantId)) ?? notFound("Tenant");
  const updated = await setWalletStatus(deps, tx, tenant, wallet, status, iso(deps.clock.now()));
  return { uid: updated.uid, customerUid: updated.customerUid, status: updated.status };
}

/**
 * Operator: PATCH /admin/customers/{uid}. Closing needs the customer's wallets empty (409
 * otherwise), for the reason a wallet's closing does; `deceased` is recorded whatever they hold.
 */
export async function changeCustomerStatus(
  deps: CoreDeps,
  tx: Tx,
  customerUid: string,
  status: CustomerStatus,
) {
  assertOneOf("status", status, customerStatuses);
  const found = (await tx.customers.getAny(customerUid)) ?? notFound("Customer");
  // Locked and read again, as for a wallet's status above.
  const customer = (await tx.customers.getForUpdate(found.tenantId, customerUid)) ?? notFound("Customer");
  const tenant = (await tx.tenants.get(customer.tenantId)) ?? notFound("Tenant");
  if (customer.status !== status) {
    // The customer's wallets locked too (`lockCustomerWallets`): no movement commits after a
    // suspension was answered, and one starting meanwhile reads the changed customer.
    const wallets = await lockCustomerWallets(tx, tenant.id, customer.uid);
    // Their accounts after all the wallet rows, as every movement locks a row before accounts.
    let funded = false;
    for (const wallet of status === "closed" ? wallets : []) funded ||= await holdsFunds(tx, wallet);
    if (funded) {
      refuse(
        "Conflict",
        "The customer's wallets still hold funds: move them out (and settle its payouts) before closing it",
      );
    }
    await tx.customers.setStatus(tenant.id, customer.uid, status);
    if (customerEventStatuses.includes(status)) {
      await emitEvent(
        deps,
        tx,
        tenant,
        "customer.status_changed",
        customer.uid,
        "customer",
        { uid: customer.uid, status },
        iso(deps.clock.now()),
      );
    }
  }
  return { uid: customer.uid, status };
}
