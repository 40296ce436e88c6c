import type { CoreDeps, RequestContext } from "../app/context.js";
import { accountKeys } from "../ledger/accounts.js";
import { notFound } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Wallet, WalletBalance } from "./model.js";

/** Balance of a wallet: current = available + held. Reads the projections, locks nothing. */
export async function readWalletBalance(tx: Tx, wallet: Wallet): Promise<WalletBalance> {
  const keys = [accountKeys.wallet(wallet.uid), accountKeys.walletHold(wallet.uid)];
  const [balances, lastMovedAt] = await Promise.all([
    tx.ledger.balances(wallet.currency, keys),
    tx.ledger.lastMovedAt(wallet.currency, keys),
  ]);
  const available = balances.get(keys[0]!) ?? 0;
  const held = balances.get(keys[1]!) ?? 0;
  return {
    walletUid: wallet.uid,
    currency: wallet.currency,
    currentMinor: available + held,
    heldMinor: held,
    availableMinor: available,
    status: wallet.status,
    asOf: lastMovedAt ?? wallet.createdAt,
  };
}

/** GET /wallets/{uid}/balance. */
export async function getWalletBalance(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  walletUid: string,
): Promise<WalletBalance> {
  const wallet = (await tx.wallets.get(ctx.tenant.id, walletUid)) ?? notFound("Wallet");
  return readWalletBalance(tx, wallet);
}
