import type { CoreDeps } from "../app/context.js";
import { emitEvent } from "../events/emit.js";
import { accountKeys } from "../ledger/accounts.js";
import { entriesOf } from "../ledger/journal.js";
import { createOperation, transitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import { toOperationView } from "../operations/views.js";
import { invariant, notFound, refuse } from "../shared/errors.js";
import { listWindow } from "../shared/list-window.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertMovementAllowed, assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import {
  type SuspenseItem,
  type SuspenseStatus,
  suspenseListLimitDefault,
  suspenseListLimitMax,
} from "./model.js";
import type { SuspenseItemView } from "./suspense-views.js";
import { toSuspenseItemView, UNATTRIBUTED_TENANT_ID } from "./suspense-views.js";

/**
 * Operator API `GET /suspense`: unmatched payments, oldest first (then by uid), optionally by
 * status, one page at a time: `limit` defaults to 100 and is clamped to 1000; `page` is 1-based.
 * The store reads only that page.
 */
export async function listSuspense(
  _deps: CoreDeps,
  tx: Tx,
  filter: { status?: SuspenseStatus; limit?: number; page?: number } = {},
): Promise<{ data: SuspenseItemView[] }> {
  const window = listWindow(filter, { fallback: suspenseListLimitDefault, max: suspenseListLimitMax });
  const items = await tx.suspense.list({
    ...(filter.status === undefined ? {} : { status: filter.status }),
    ...window,
  });
  return { data: items.map(toSuspenseItemView) };
}

export type SuspenseResolution = { action: "refund" } | { action: "apply"; walletUid: string };

/**
 * Operator: settles an open suspense item.
 * - refund: suspense -> rail clearing (the money goes back out through the rail); item refunded.
 * - apply: suspense -> the wallet, as a completed topup_c2b (provider state reconciled, no charges)
 *   so the statement shows it and the tenant gets topup.confirmed; the wallet must be able to
 *   receive it (status, KYC limits, maximum balance: 422 otherwise), be in the payment's currency
 *   and, when the payment named a tenant's intent, belong to that tenant. Item applied.
 * 404 unknown item or wallet; 409 when the item is not open.
 */
export async function resolveSuspense(
  deps: CoreDeps,
  tx: Tx,
  uid: string,
  resolution: SuspenseResolution,
): Promise<SuspenseItemView> {
  const found = (await tx.suspense.get(uid)) ?? notFound("Suspense item");
  const wallet =
    resolution.action === "apply"
      ? ((await tx.wallets.getAny(resolution.walletUid)) ?? notFound("Wallet"))
      : null;
  const notOpen = (i: SuspenseItem) => refuse("Conflict", `The suspense item is already ${i.status}`);
  if (found.status !== "open") return notOpen(found);
  if (wallet) assertWalletCurrency(wallet, found.currency);
  const suspenseKey = accountKeys.suspense(found.railCode);
  const clearingKey = accountKeys.railClearing(found.railCode);
  const locked = await tx.ledger.lockAccounts(found.currency, [
    suspenseKey,
    clearingKey,
    ...(wallet ? [accountKeys.wallet(wallet.uid), accountKeys.walletHold(wallet.uid)] : []),
  ]);
  // Read under the lock: two operators resolving one item serialize, the second gets 409.
  const item = await tx.suspense.get(uid);
  invariant(item, "a suspense item is never deleted");
  if (item.status !== "open") return notOpen(item);

  const now = deps.clock.now();
  const at = iso(now);
  const resolved: SuspenseItem = { ...item, resolvedAt: at };
  if (wallet === null) {
    await tx.ledger.post({
      uid: deps.ids.next("journal"),
      tenantId: item.tenantId ?? UNATTRIBUTED_TENANT_ID,
      operationUid: null,
      currency: item.currency,
      kind: "suspense_refund",
      createdAt: at,
      entries: entriesOf([
        { from: suspenseKey, to: clearingKey, amountMinor: item.amountMinor, label: "amount" },
      ]),
    });
    resolved.status = "refunded";
    resolved.resolution = { action: "refund", walletUid: null, operationUid: null };
    await tx.suspense.update(resolved);
    return toSuspenseItemView(resolved);
  }

  if (item.tenantId !== null && item.tenantId !== wallet.tenantId) {
    refuse(
      "UnprocessableEntity",
      "The payment named another tenant's intent; apply it to that tenant's wallet",
    );
  }
  const party = await loadWalletParty(deps, tx, wallet.tenantId, wallet.uid);
  await assertMovementAllowed(tx, party, "inbound", item.amountMinor, now, locked);
  const tenant = await tx.tenants.get(wallet.tenantId);
  invariant(tenant, "a wallet's tenant exists");

  const op: Operation = {
    uid: deps.ids.next("operation"),
    tenantId: wallet.tenantId,
    type: "topup_c2b",
    state: "created",
    amountMinor: item.amountMinor,
    feeMinor: 0,
    taxMinor: 0,
    currency: item.currency,
    clientReference: null,
    customerUid: party.customer.uid,
    sourceWalletUid: null,
    destinationWalletUid: wallet.uid,
    counterpartyHint: null,
    feeBreakdown: [],
    provider: {
      railCode: item.railCode,
      state: "reconciled",
      reference: item.providerReference,
      lastUpdatedAt: at,
    },
    mandateUid: null,
    // Not an intent: it must never match a payment, and GET /topup-intents/{uid} does not show it.
    intentReference: null,
    expiresAt: null,
    details: { railCode: item.railCode, suspenseUid: item.uid, reference: item.reference },
    metadata: null,
    createdAt: at,
    completedAt: null,
    fundsMovedAt: at,
    updatedAt: at,
  };
  await createOperation(tx, op, "admin");
  await tx.ledger.post({
    uid: deps.ids.next("journal"),
    tenantId: wallet.tenantId,
    operationUid: op.uid,
    currency: item.currency,
    kind: "suspense_apply",
    createdAt: at,
    entries: entriesOf([
      {
        from: suspenseKey,
        to: accountKeys.wallet(wallet.uid),
        amountMinor: item.amountMinor,
        label: "amount",
      },
    ]),
  });
  await transitionOperation(tx, op, "completed", at, "admin");
  await emitEvent(deps, tx, tenant, "topup.confirmed", op.uid, "operation", toOperationView(op), at);
  resolved.status = "applied";
  resolved.resolution = { action: "apply", walletUid: wallet.uid, operationUid: op.uid };
  await tx.suspense.update(resolved);
  return toSuspenseItemView(resolved);
}
