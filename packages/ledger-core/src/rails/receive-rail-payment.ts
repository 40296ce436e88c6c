import type { CoreDeps } from "../app/context.js";
import { accountKeys } from "../ledger/accounts.js";
import type { Entry } from "../ledger/journal.js";
import { assertCovered, entriesOf } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import { transitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import type { ErrorCode } from "../shared/errors.js";
import { invariant, isDomainError, notFound, refuse } from "../shared/errors.js";
import { assertCurrencyCode, assertPositiveAmount } from "../shared/money.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { findRail } from "../tenants/catalog.js";
import { completeIntent, intentChargesMinor, intentPaymentEntries } from "../topups/complete-intent.js";
import { isValidIntentReference } from "../topups/intent-reference.js";
import { assertMovementAllowed, loadWalletParty } from "../wallets/movement.js";
import type { RailPayment } from "./model.js";
import type { SuspenseReason } from "./suspense-views.js";
import { UNATTRIBUTED_TENANT_ID } from "./suspense-views.js";

export interface RailPaymentInput {
  railCode: string;
  /** The reference the payer quoted (an intentReference when they typed it right). */
  reference: string;
  amountMinor: number;
  currency: string;
  /** The provider's id of the payment: the same one twice is one payment. */
  providerReference: string;
}

export interface RailPaymentResult {
  matched: boolean;
  operationUid: string | null;
  suspenseUid: string | null;
}

/** `held`: the intent whose own payment this is, refused for its wallet or customer. */
type SuspenseVerdict = {
  kind: "suspense";
  reason: SuspenseReason;
  tenantId: string | null;
  held?: Operation;
};

type Verdict =
  | { kind: "match"; op: Operation; entries: Entry[]; locked: ReadonlyMap<string, number> }
  | SuspenseVerdict;

const resultOf = (p: RailPayment): RailPaymentResult => ({
  matched: p.operationUid !== null,
  operationUid: p.operationUid,
  suspenseUid: p.suspenseUid,
});

const reasonFor = (code: ErrorCode): SuspenseReason | null =>
  code === "WalletNotActive" || code === "CustomerNotActive"
    ? "wallet_cannot_receive"
    : code === "MaxBalanceExceeded"
      ? "max_balance_exceeded"
      : code === "LimitExceeded"
        ? "limit_exceeded"
        : code === "InsufficientFunds"
          ? "charges_not_covered"
          : null;

/**
 * Why an intent no longer takes a payment: `expired` when the expiry job failed it (provider state
 * failed), `intent_closed` when it was paid (completed, held, or held and then refunded).
 */
const closedReason = (intent: Operation): SuspenseReason =>
  intent.state === "failed" && intent.provider?.state === "failed" ? "expired" : "intent_closed";

/** Runs a check that refuses with a DomainError; returns the suspense reason instead of throwing. */
async function refusalReason(check: () => Promise<void> | void): Promise<SuspenseReason | null> {
  try {
    await check();
    return null;
  } catch (e) {
    const reason = isDomainError(e) ? reasonFor(e.code) : null;
    if (reason === null) throw e;
    return reason;
  }
}

/**
 * Decides, reading only, whether the payment completes an intent. A match is a topup_c2b on this
 * rail quoting the reference, still pending_provider, for the exact amount and currency, before
 * expiresAt, whose wallet and customer can receive it within the KYC limits. The wallet's accounts
 * are locked before the intent's state is read, so a concurrent payment or expiry is seen.
 */
async function evaluate(deps: CoreDeps, tx: Tx, input: RailPaymentInput, now: Date): Promise<Verdict> {
  if (!isValidIntentReference(input.reference)) {
    return { kind: "suspense", reason: "invalid_reference", tenantId: null };
  }
  const quoting = await tx.operations.findTopupsByIntentReference(input.reference);
  const onRail = quoting.filter((o) => (o.details?.railCode ?? o.provider?.railCode) === input.railCode);
  const found = onRail.find((o) => o.state === "pending_provider") ?? onRail[0];
  if (!found) {
    const other = quoting[0];
    return other
      ? { kind: "suspense", reason: "rail_mismatch", tenantId: other.tenantId }
      : { kind: "suspense", reason: "unknown_reference", tenantId: null };
  }
  const suspense = (reason: SuspenseReason): SuspenseVerdict => ({
    kind: "suspense",
    reason,
    tenantId: found.tenantId,
  });
  if (found.state !== "pending_provider") return suspense(closedReason(found));
  invariant(
    found.expiresAt !== null && found.destinationWalletUid !== null,
    "an intent has its expiry and wallet",
  );
  if (now.getTime() >= Date.parse(found.expiresAt)) return suspense("expired");
  if (input.currency !== found.currency) return suspense("currency_mismatch");
  if (input.amountMinor !== found.amountMinor) return suspense("amount_mismatch");

  const party = await loadWalletParty(deps, tx, found.tenantId, found.destinationWalletUid);
  const walletKey = accountKeys.wallet(party.wallet.uid);
  const clearingKey = accountKeys.railClearing(input.railCode);
  // The rail clearing, fee and tax accounts are locked last: see lockSharedAndPost.
  const balances = await tx.ledger.lockAccounts(found.currency, [
    walletKey,
    accountKeys.walletHold(party.wallet.uid),
  ]);
  const op = await tx.operations.get(found.tenantId, found.uid);
  invariant(op, "the intent still exists");
  if (op.state !== "pending_provider") return suspense(closedReason(op));

  const entries = intentPaymentEntries(op, clearingKey);
  const chargesMinor = intentChargesMinor(op);
  const refused =
    (await refusalReason(() =>
      assertMovementAllowed(tx, party, "inbound", op.amountMinor, now, balances, chargesMinor),
    )) ?? (await refusalReason(() => assertCovered(balances, entries, () => "InsufficientFunds")));
  return refused ? { ...suspense(refused), held: op } : { kind: "match", op, entries, locked: balances };
}

/**
 * Operator API `POST /rails/{railCode}/payments` (real rails call it too): an inbound payment.
 * A matching one credits the intent's wallet (clearing -> wallet, charges wallet -> fees/tax),
 * completes the top-up with provider state confirmed and emits topup.confirmed. Anything else is
 * not credited: it moves clearing -> suspense and opens a suspense item for reconciliation. When
 * it is the intent's own payment (in time, exact amount and currency) and only the wallet or the
 * customer cannot receive it (status, KYC limits, maximum balance, charges not covered), the
 * intent is `held` with it: no later payment can complete the intent, the expiry job leaves it
 * alone, and the operator's resolution of the item completes or fails it (resolveSuspense).
 *
 * The payment is recorded once per (railCode, providerReference) before anything is posted: a
 * payment already reported (or racing its twin on another process) returns the first outcome and
 * posts nothing. 404 for a rail outside the catalog.
 */
/**
 * A payment the rail reported before, reported again: the first outcome when it is the same
 * payment (a retry), 409 when the same provider reference names other details, which is a
 * provider's error the operator must see rather than a payment to drop in silence.
 */
function repeatOf(first: RailPayment, input: RailPaymentInput): RailPaymentResult {
  if (
    first.reference !== input.reference ||
    first.amountMinor !== input.amountMinor ||
    first.currency !== input.currency
  ) {
    refuse(
      "Conflict",
      `The rail already reported ${input.providerReference} with another reference, amount or currency`,
    );
  }
  return resultOf(first);
}

export async function receiveRailPayment(
  deps: CoreDeps,
  tx: Tx,
  input: RailPaymentInput,
): Promise<RailPaymentResult> {
  assertPositiveAmount(input.amountMinor);
  assertCurrencyCode(input.currency);
  assertStorableStrings(input);
  const rail = findRail(deps.catalog, input.railCode) ?? notFound("Rail");
  const known = await tx.railPayments.get(rail.code, input.providerReference);
  if (known) return repeatOf(known, input);

  const now = deps.clock.now();
  const at = iso(now);
  const verdict = await evaluate(deps, tx, input, now);
  const payment: RailPayment = {
    railCode: rail.code,
    providerReference: input.providerReference,
    reference: input.reference,
    amountMinor: input.amountMinor,
    currency: input.currency,
    receivedAt: at,
    operationUid: verdict.kind === "match" ? verdict.op.uid : null,
    suspenseUid: verdict.kind === "match" ? null : deps.ids.next("suspense"),
  };
  if (!(await tx.railPayments.insertIfNew(payment))) {
    const first = await tx.railPayments.get(rail.code, input.providerReference);
    invariant(first, "a payment refused as known is stored");
    return repeatOf(first, input);
  }

  if (verdict.kind === "match") {
    const { op, entries, locked } = verdict;
    const tenant = await tx.tenants.get(op.tenantId);
    invariant(tenant, "an operation's tenant exists");
    await completeIntent(deps, tx, op, {
      tenant,
      entries,
      locked,
      journalKind: "topup_credit",
      provider: { state: "confirmed", reference: input.providerReference },
      actorType: "provider",
      at,
    });
    return resultOf(payment);
  }

  invariant(payment.suspenseUid, "an unmatched payment has its suspense item");
  const clearingKey = accountKeys.railClearing(rail.code);
  const suspenseKey = accountKeys.suspense(rail.code);
  const journal = {
    uid: deps.ids.next("journal"),
    tenantId: verdict.tenantId ?? UNATTRIBUTED_TENANT_ID,
    operationUid: null,
    currency: input.currency,
    kind: "payment_unmatched",
    createdAt: at,
    entries: entriesOf([
      { from: clearingKey, to: suspenseKey, amountMinor: input.amountMinor, label: "amount" },
    ]),
  };
  await tx.suspense.insert({
    uid: payment.suspenseUid,
    railCode: rail.code,
    tenantId: verdict.tenantId,
    reference: input.reference,
    amountMinor: input.amountMinor,
    currency: input.currency,
    providerReference: input.providerReference,
    reason: verdict.reason,
    status: "open",
    createdAt: at,
    resolvedAt: null,
    resolution: null,
  });
  if (verdict.held) await holdIntent(tx, verdict.held, input.providerReference, payment.suspenseUid, at);
  await lockSharedAndPost(tx, journal, new Map(), () => "InsufficientFunds");
  return resultOf(payment);
}

/**
 * The intent's payment is in suspense: the intent waits for the operator, not for a payment.
 * Provider state confirmed (the provider has the money), no event: none of the spec's types says
 * "paid but held", and `topup.confirmed` says the funds were posted.
 */
async function holdIntent(tx: Tx, op: Operation, providerReference: string, suspenseUid: string, at: string) {
  invariant(op.provider, "an intent has its provider block");
  op.provider = { ...op.provider, state: "confirmed", reference: providerReference, lastUpdatedAt: at };
  op.details = { ...op.details, heldSuspenseUid: suspenseUid };
  await transitionOperation(tx, op, "held", at, "provider");
}
