import type { CoreDeps } from "../app/context.js";
import type { Customer } from "../customers/model.js";
import { assertWithinLimits } from "../kyc/limits.js";
import { accountKeys } from "../ledger/accounts.js";
import { invariant, notFound, refuse } from "../shared/errors.js";
import { iso, utcDayStart, utcMonthStart } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { KycLevel } from "../tenants/catalog.js";
import { findKycLevel } from "../tenants/catalog.js";
import type { Wallet } from "./model.js";
import type { Direction } from "./status-rules.js";
import { assertCanMove } from "./status-rules.js";

export interface WalletParty {
  wallet: Wallet;
  customer: Customer;
  level: KycLevel;
}

/** The tenant's wallet with its customer and KYC level; 404 when it is not the tenant's. */
export async function loadWalletParty(
  deps: CoreDeps,
  tx: Tx,
  tenantId: string,
  walletUid: string,
): Promise<WalletParty> {
  const { wallet, customer } = (await tx.wallets.getWithCustomer(tenantId, walletUid)) ?? notFound("Wallet");
  const level = findKycLevel(deps.catalog, wallet.kycTierCode);
  invariant(level, `KYC level ${wallet.kycTierCode} is missing from the catalog`);
  return { wallet, customer, level };
}

/** Refuses a request whose currency is not the wallet's. */
export function assertWalletCurrency(wallet: Wallet, currency: string): void {
  if (wallet.currency !== currency) {
    refuse("CurrencyMismatch", "The currency must equal the wallet's currency", [
      { field: "currency", issue: `expected ${wallet.currency}` },
    ]);
  }
}

/**
 * Status and KYC-limit checks shared by every movement. Call after locking the wallet's
 * accounts so the sums cannot move underneath. Returns the locked balances.
 */
export async function assertMovementAllowed(
  tx: Tx,
  party: WalletParty,
  direction: Direction,
  amountMinor: number,
  now: Date,
  lockedBalances: ReadonlyMap<string, number>,
  /** Inbound: the charges the wallet pays out of the amount (see LimitCheck.inboundChargesMinor). */
  inboundChargesMinor = 0,
  /**
   * The day's sum ("both", from today's UTC midnight) when the caller read it already, under the
   * same lock (`sumForWalletUnlessReferenced`); read here otherwise.
   */
  dailyTotalRead?: number,
): Promise<void> {
  const { wallet, customer, level } = party;
  assertCanMove(wallet.status, customer.status, direction);
  const current =
    (lockedBalances.get(accountKeys.wallet(wallet.uid)) ?? 0) +
    (lockedBalances.get(accountKeys.walletHold(wallet.uid)) ?? 0);
  // The month's outbound sum is read only when a monthly limit applies: unbounded by a limit, it
  // could pass 2^53 - 1 (which the SQL stores refuse to read inexactly), and it is one read less.
  // Without it, the daily sum alone is awaited: no Promise.all (its array, its promise and a
  // closure per element) around a single read.
  const daily =
    dailyTotalRead === undefined
      ? tx.operations.sumForWallet(wallet.uid, iso(utcDayStart(now)), "both")
      : dailyTotalRead;
  const [dailyTotalMinor, monthlyOutTotalMinor] =
    direction === "outbound" && level.monthlyOutLimitMinor !== null
      ? await Promise.all([
          daily,
          tx.operations.sumForWallet(wallet.uid, iso(utcMonthStart(now)), "outbound"),
        ])
      : [await daily, 0];
  assertWithinLimits({
    level,
    direction,
    amountMinor,
    currentBalanceMinor: current,
    dailyTotalMinor,
    monthlyOutTotalMinor,
    inboundChargesMinor,
  });
}
