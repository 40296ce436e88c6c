import type { CoreDeps } from "../app/context.js";
import { emitEvent } from "../events/emit.js";
import { accountKeys } from "../ledger/accounts.js";
import { entriesOf } from "../ledger/journal.js";
import { createOperation, transitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import { toOperationView } from "../operations/views.js";
import { assertOneOf, invariant, notFound, refuse } from "../shared/errors.js";
import { listWindow } from "../shared/list-window.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Tenant } from "../tenants/model.js";
import { completeIntent, intentChargesMinor, intentPaymentEntries } from "../topups/complete-intent.js";
import { dropQuotedCharges, topupDetailsOf } from "../topups/model.js";
import {
  assertMovementAllowed,
  assertWalletCurrency,
  loadWalletParty,
  type WalletParty,
} from "../wallets/movement.js";
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
  filter: { status?: SuspenseStatus | undefined; limit?: number | undefined; page?: number | undefined } = {},
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
 * An item holding a `held` intent's own payment (see receiveRailPayment) settles that intent:
 * apply completes it, on its own wallet only (422 for another), with the charges it quoted and
 * topup.confirmed; refund fails it (provider state reversed, no charges, no event).
 * 404 unknown item or wallet; 409 when the item is not open.
 */
export async function resolveSuspense(
  deps: CoreDeps,
  tx: Tx,
  uid: string,
  resolution: SuspenseResolution,
): Promise<SuspenseItemView> {
  assertOneOf("action", resolution.action, ["refund", "apply"] as const);
  const found = (await tx.suspense.get(uid)) ?? notFound("Suspense item");
  const wallet =
    resolution.action === "apply"
      ? ((await tx.wallets.getAny(resolution.walletUid)) ?? notFound("Wallet"))
      : null;
  const notOpen = (i: SuspenseItem) => refuse("Conflict", `The suspense item is already ${i.status}`);
  if (found.status !== "open") return notOpen(found);
  if (wallet) assertWalletCurrency(wallet, found.currency);
  // The wallet share-locked before its accounts, as every movement does (loadWalletParty): an
  // operator's status change, which locks the row first too, never waits on us the other way round.
  const party = wallet ? await loadWalletParty(deps, tx, wallet.tenantId, wallet.uid) : null;
  const suspenseKey = accountKeys.suspense(found.railCode);
  const clearingKey = accountKeys.railClearing(found.railCode);
  // Every account the resolution may post to, in one sorted call: applying a held intent's payment
  // also posts its charges to the tenant's fee and tax accounts, which sort before the rail's; taken
  // later, they would be locked against the order every other posting follows (a deadlock).
  const chargeKeys =
    wallet && found.tenantId !== null
      ? [accountKeys.fees(found.tenantId), accountKeys.tax(found.tenantId)]
      : [];
  const locked = await tx.ledger.lockAccounts(found.currency, [
    suspenseKey,
    clearingKey,
    ...(wallet ? [accountKeys.wallet(wallet.uid), accountKeys.walletHold(wallet.uid)] : []),
    ...chargeKeys,
  ]);
  // Read under the lock: two operators resolving one item serialize, the second gets 409.
  const item = await tx.suspense.get(uid);
  invariant(item, "a suspense item is never deleted");
  if (item.status !== "open") return notOpen(item);

  const now = deps.clock.now();
  const at = iso(now);
  const resolved: SuspenseItem = { ...item, resolvedAt: at };
  const held = await heldIntentOf(tx, item);
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
    if (held) {
      // The payment goes back: the intent ends unpaid, and its quoted charges were never taken.
      invariant(held.provider, "an intent has its provider block");
      held.provider = { ...held.provider, state: "reversed", lastUpdatedAt: at };
      dropQuotedCharges(held);
      await transitionOperation(tx, held, "failed", at, "admin");
    }
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
  if (held && held.destinationWalletUid !== wallet.uid) {
    refuse(
      "UnprocessableEntity",
      "The payment is a top-up intent's: apply it to the intent's wallet, or refund it",
      [{ field: "walletUid", issue: `the payment is for top-up ${held.uid}` }],
    );
  }
  invariant(party, "an item applied to a wallet has loaded it");
  const tenant = await tx.tenants.get(wallet.tenantId);
  invariant(tenant, "a wallet's tenant exists");
  if (held) {
    await completeHeldIntent(deps, tx, { item, held, party, tenant, locked, now });
    resolved.status = "applied";
    resolved.resolution = { action: "apply", walletUid: wallet.uid, operationUid: held.uid };
    await tx.suspense.update(resolved);
    return toSuspenseItemView(resolved);
  }
  await assertMovementAllowed(tx, party, "inbound", item.amountMinor, now, locked);

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

/** The `held` intent whose own payment the item holds, if any (found by the reference it quoted). */
async function heldIntentOf(tx: Tx, item: SuspenseItem): Promise<Operation | null> {
  if (item.tenantId === null) return null;
  const quoting = await tx.operations.findTopupsByIntentReference(item.reference);
  return (
    quoting.find(
      (o) =>
        o.state === "held" && o.tenantId === item.tenantId && topupDetailsOf(o).heldSuspenseUid === item.uid,
    ) ?? null
  );
}

/**
 * Applies a held intent's payment as the match it would have been: suspense -> wallet for the
 * amount, the intent's quoted charges wallet -> fees/tax, the intent completed (provider state
 * reconciled) with topup.confirmed. The wallet must be able to receive it now (422 otherwise).
 */
async function completeHeldIntent(
  deps: CoreDeps,
  tx: Tx,
  a: {
    item: SuspenseItem;
    held: Operation;
    party: WalletParty;
    tenant: Tenant;
    locked: ReadonlyMap<string, number>;
    now: Date;
  },
): Promise<void> {
  const { item, held, party, tenant, locked, now } = a;
  await assertMovementAllowed(tx, party, "inbound", item.amountMinor, now, locked, intentChargesMinor(held));
  await completeIntent(deps, tx, held, {
    tenant,
    entries: intentPaymentEntries(held, accountKeys.suspense(item.railCode)),
    locked,
    journalKind: "suspense_apply",
    provider: { state: "reconciled" },
    actorType: "admin",
    at: iso(now),
  });
}
