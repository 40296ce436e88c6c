import type { CoreDeps, RequestContext } from "../app/context.js";
import { assertAmountCoversCharges } from "../fees/charges.js";
import { chargesFor } from "../fees/fee-engine.js";
import { accountKeys } from "../ledger/accounts.js";
import { assertClientReferenceUnused } from "../operations/client-reference.js";
import { readOperationDetail } from "../operations/get-operation.js";
import { createAndTransitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import type { TopupDetailView, TopupView } from "../operations/views.js";
import { isTopupView, toOperationView } from "../operations/views.js";
import { railFor } from "../rails/rail-capability.js";
import { invariant, notFound, refuse } from "../shared/errors.js";
import { assertPositiveAmount } from "../shared/money.js";
import { addSeconds, iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { assertMovementAllowed, assertWalletCurrency, loadWalletParty } from "../wallets/movement.js";
import { intentReferenceFromHex } from "./intent-reference.js";
import type { TopupDetails } from "./model.js";
import {
  DEFAULT_INTENT_LIFETIME_SECONDS,
  INTENT_LIFETIME_SECONDS_MAX,
  INTENT_LIFETIME_SECONDS_MIN,
} from "./model.js";

export interface CreateTopupIntentInput {
  walletUid: string;
  amountMinor: number;
  currency: string;
  railCode: string;
  expiresInSeconds?: number | null | undefined;
  clientReference: string;
}

/** Attempts at drawing a reference no live intent holds; 10^11 values make a second try rare already. */
export const INTENT_REFERENCE_ATTEMPTS_MAX = 8;

/** Domain guard for the request's lifetime (the HTTP schema refuses the same with 400 first). */
function assertLifetime(requested: number | null | undefined): void {
  if (requested === undefined || requested === null) return;
  if (
    !Number.isSafeInteger(requested) ||
    requested < INTENT_LIFETIME_SECONDS_MIN ||
    requested > INTENT_LIFETIME_SECONDS_MAX
  ) {
    refuse("InvalidRequest", "expiresInSeconds must be an integer between 60 and 86400", [
      { field: "expiresInSeconds", issue: "between 60 and 86400" },
    ]);
  }
}

/**
 * A fresh reference no live (pending_provider) intent holds, on any rail of any tenant: a payment
 * names only the reference, so it must point at one intent. It is a keyed hash (the vault's
 * blind index, whose key only the service holds) of the operation uid and an attempt counter, so
 * a retry draws a new value and nobody can work a reference out from a uid: two uids of one
 * millisecond differ by one, and a tenant sees its own. The database backs this with a unique
 * index over live intents' references.
 */
async function drawIntentReference(
  deps: CoreDeps,
  tx: Tx,
  tenantId: string,
  operationUid: string,
): Promise<string> {
  for (let attempt = 0; attempt < INTENT_REFERENCE_ATTEMPTS_MAX; attempt++) {
    const keyed = deps.vault.blindIndex(tenantId, "intent-reference", `${operationUid}:${attempt}`);
    const reference = intentReferenceFromHex(deps.hasher.sha256Hex(`intent-reference:${keyed}`));
    const holders = await tx.operations.findTopupsByIntentReference(reference);
    if (!holders.some((o) => o.state === "pending_provider")) return reference;
  }
  // 8 collisions in a row among 10^11 values means the generator is broken, not bad luck.
  throw new Error(`no free intent reference after ${INTENT_REFERENCE_ATTEMPTS_MAX} attempts`);
}

/**
 * POST /topup-intents: issues a 12-digit reference the payer quotes; no money moves until the rail
 * reports a matching payment (`receiveRailPayment`). Refusals, in order: 404 wallet; 409
 * clientReference used by another top-up; 422 currency; the generic 422 for a rail not approved,
 * inactive or not accepting payments; 422 when its charges exceed the amount; 422 when the customer
 * or wallet cannot receive a credit of this amount now (statuses, then the KYC limits:
 * LimitExceeded, MaxBalanceExceeded).
 */
export async function createTopupIntent(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  input: CreateTopupIntentInput,
): Promise<TopupView> {
  assertPositiveAmount(input.amountMinor);
  assertLifetime(input.expiresInSeconds);
  const tenantId = ctx.tenant.id;
  const party = await loadWalletParty(deps, tx, tenantId, input.walletUid);
  const { wallet, customer } = party;
  await assertClientReferenceUnused(tx, tenantId, "topup_c2b", input.clientReference);
  assertWalletCurrency(wallet, input.currency);
  const rail = railFor(deps, ctx.tenant, input.railCode, "payins", wallet.currency);
  const lifetime = input.expiresInSeconds ?? rail.intentLifetimeSeconds ?? DEFAULT_INTENT_LIFETIME_SECONDS;
  const now = deps.clock.now();
  // "Able to receive a credit" (spec): the statuses and the KYC limits, as a credit of this amount
  // would meet them now, so no intent is issued for a payment that could only go to suspense.
  // Read without a lock: nothing moves here, and the payment is checked again, under the lock,
  // when it arrives (a refusal then puts it in suspense).
  const walletKeys = [accountKeys.wallet(wallet.uid), accountKeys.walletHold(wallet.uid)];
  const balances = await tx.ledger.balances(wallet.currency, walletKeys);
  // Fixed now so the intent shows what the payment will cost; charged when the payment matches.
  const charges = chargesFor(deps.catalog, "topup_c2b", wallet.currency, rail.code, input.amountMinor);
  assertAmountCoversCharges(charges);
  await assertMovementAllowed(
    tx,
    party,
    "inbound",
    input.amountMinor,
    now,
    balances,
    charges.feeMinor + charges.taxMinor,
  );

  const at = iso(now);
  const uid = deps.ids.next("operation");
  const intentReference = await drawIntentReference(deps, tx, ctx.tenant.id, uid);
  const details: TopupDetails = {
    railCode: rail.code,
    payerInstructions: rail.payerInstructions?.replaceAll("{reference}", intentReference) ?? null,
    charges: charges.breakdown,
  };
  const op: Operation = {
    uid,
    tenantId,
    type: "topup_c2b",
    state: "created",
    amountMinor: input.amountMinor,
    feeMinor: charges.feeMinor,
    taxMinor: charges.taxMinor,
    currency: wallet.currency,
    clientReference: input.clientReference,
    customerUid: customer.uid,
    sourceWalletUid: null,
    destinationWalletUid: wallet.uid,
    counterpartyHint: null,
    feeBreakdown: charges.breakdown.map((l) => ({ label: l.label, amountMinor: l.amountMinor })),
    provider: { railCode: rail.code, state: "pending", reference: null, lastUpdatedAt: at },
    mandateUid: null,
    intentReference,
    expiresAt: iso(addSeconds(now, lifetime)),
    details: { ...details },
    metadata: null,
    createdAt: at,
    completedAt: null,
    fundsMovedAt: null,
    updatedAt: at,
  };
  await createAndTransitionOperation(tx, op, "api_client", "pending_provider", at, "system");
  const view = toOperationView(op);
  invariant(isTopupView(view), "an intent's view carries its top-up fields");
  return view;
}

/** GET /topup-intents/{uid}: the operation detail with intentReference and expiresAt; 404 for anything else. */
export async function getTopupIntent(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
): Promise<TopupDetailView> {
  const op = await tx.operations.get(ctx.tenant.id, uid);
  if (op?.type !== "topup_c2b" || op.intentReference === null) return notFound("Top-up intent");
  const view = await readOperationDetail(tx, op);
  invariant(isTopupView(view), "an intent's view carries its top-up fields");
  return view;
}
