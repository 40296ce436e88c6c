import type { CoreDeps, RequestContext } from "../app/context.js";
import { emitFirstEvent } from "../events/emit.js";
import { assertAmountCoversCharges, chargeTransfers } from "../fees/charges.js";
import { chargesFor } from "../fees/fee-engine.js";
import { accountKeys } from "../ledger/accounts.js";
import { entriesOf } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import { assertClientReference, refuseClientReferenceUsed } from "../operations/client-reference.js";
import { createAndTransitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import type { OperationView } from "../operations/views.js";
import { toOperationView } from "../operations/views.js";
import { assertFreeForm } from "../shared/free-form.js";
import { assertPositiveAmount } from "../shared/money.js";
import { iso, utcDayStart } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertMovementAllowed, assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";

export interface CreditWalletInput {
  walletUid: string;
  amountMinor: number;
  currency: string;
  clientReference: string;
  metadata?: Record<string, unknown> | undefined;
}

/**
 * POST /wallet-credits: moves `amountMinor` from the tenant's prefund to the wallet, at once.
 * Refusals: 404 wallet, 409 clientReference reused, 422 currency, charges above the amount,
 * status, KYC limits (MaxBalanceExceeded), FundingNotPositioned when the prefund cannot cover it.
 */
export async function creditWallet(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: CreditWalletInput,
): Promise<OperationView> {
  assertPositiveAmount(input.amountMinor);
  if (input.metadata !== undefined) assertFreeForm("metadata", input.metadata);
  const tenantId = ctx.tenant.id;
  const party = await loadWalletParty(deps, tx, tenantId, input.walletUid);
  const { wallet } = party;
  const now = deps.clock.now();
  const at = iso(now);
  const prefund = accountKeys.prefund(tenantId);
  const walletKey = accountKeys.wallet(wallet.uid);
  // The wallet's accounts now, the prefund (and fee accounts) last: see lockSharedAndPost.
  const balances = await tx.ledger.lockAccounts(wallet.currency, [
    walletKey,
    accountKeys.walletHold(wallet.uid),
  ]);
  // Checked once, under the wallet's lock (nothing before it refuses with 409/422): a credit
  // holding the clientReference that committed while this one waited makes this one its duplicate
  // (409), not a refusal for the limits it used. A twin to another wallet waits on the
  // clientReference's unique index when inserting, then gets 409 too. The day's sum for the limits
  // is read with it, under the same lock (one round trip on Postgres); refusals keep their order.
  assertClientReference(input.clientReference);
  const dailyTotalMinor = await tx.operations.sumForWalletUnlessReferenced(
    { tenantId, type: "wallet_credit", clientReference: input.clientReference },
    wallet.uid,
    iso(utcDayStart(now)),
    "both",
  );
  if (dailyTotalMinor === null) refuseClientReferenceUsed("wallet_credit");
  assertWalletCurrency(wallet, input.currency);
  // Charges, when a wallet_credit schedule exists, are paid by the wallet out of what it receives
  // (computed here, after the 409 and the currency: they may refuse an amount too).
  const charges = chargesFor(deps.catalog, "wallet_credit", wallet.currency, null, input.amountMinor);
  assertAmountCoversCharges(charges);
  await assertMovementAllowed(
    tx,
    party,
    "inbound",
    input.amountMinor,
    now,
    balances,
    charges.feeMinor + charges.taxMinor,
    dailyTotalMinor,
  );
  const entries = entriesOf([
    { from: prefund, to: walletKey, amountMinor: input.amountMinor, label: "amount" },
    ...chargeTransfers(tenantId, walletKey, charges.breakdown),
  ]);

  const op: Operation = {
    uid: deps.ids.next("operation"),
    tenantId,
    type: "wallet_credit",
    state: "created",
    amountMinor: input.amountMinor,
    feeMinor: charges.feeMinor,
    taxMinor: charges.taxMinor,
    currency: wallet.currency,
    clientReference: input.clientReference,
    customerUid: wallet.customerUid,
    sourceWalletUid: null,
    destinationWalletUid: wallet.uid,
    counterpartyHint: null,
    feeBreakdown: charges.breakdown.map((l) => ({ label: l.label, amountMinor: l.amountMinor })),
    provider: null,
    mandateUid: null,
    intentReference: null,
    expiresAt: null,
    details: null,
    metadata: input.metadata ?? null,
    createdAt: at,
    completedAt: null,
    fundsMovedAt: at,
    updatedAt: at,
  };
  const journal = {
    uid: deps.ids.next("journal"),
    tenantId,
    operationUid: op.uid,
    currency: wallet.currency,
    kind: "wallet_credit",
    createdAt: at,
    entries,
  };
  await createAndTransitionOperation(tx, op, "api_client", "completed", at, "system");
  const view = toOperationView(op);
  await emitFirstEvent(deps, tx, ctx.tenant, "wallet_credit.completed", op.uid, "operation", view, at);
  // A prefund that cannot cover it refuses here, undoing everything above with the transaction.
  await lockSharedAndPost(tx, journal, balances, (key) =>
    key === prefund ? "FundingNotPositioned" : "InsufficientFunds",
  );
  return view;
}
