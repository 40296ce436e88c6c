import type { CoreDeps, RequestContext } from "../app/context.js";
import { emitFirstEvent } from "../events/emit.js";
import { chargeTransfers } from "../fees/charges.js";
import type { FeeCharge } from "../fees/fee-engine.js";
import { chargesFor } from "../fees/fee-engine.js";
import { accountKeys } from "../ledger/accounts.js";
import type { Entry } from "../ledger/journal.js";
import { entriesOf } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import type { Mandate } from "../mandates/model.js";
import { assertClientReferenceUnused } from "../operations/client-reference.js";
import { createAndTransitionOperation } from "../operations/lifecycle.js";
import type { Operation } from "../operations/model.js";
import type { OperationView } from "../operations/views.js";
import { toOperationView } from "../operations/views.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Beneficiary } from "../tenants/catalog.js";
import type { WalletParty } from "../wallets/movement.js";

/** Everything a wallet_debit needs once its request has passed the route's own checks. */
export interface DebitPlan {
  party: WalletParty;
  mandate: Mandate;
  beneficiary: Beneficiary;
  amountMinor: number;
  clientReference: string;
  /** How the debit was authorized: a fresh customer assertion or the standing mandate alone. */
  authorization: "assertion" | "mandate";
}

/**
 * Locks the wallet's accounts (the beneficiary and fee accounts are locked last, when posting);
 * returns their balances. Then checks the clientReference again: a debit holding it that committed
 * while this one waited for the lock makes this one its duplicate (409), as if the two had run one
 * after the other, rather than a refusal for the money the first one spent.
 */
export async function lockDebitAccounts(tx: Tx, plan: DebitPlan): Promise<Map<string, number>> {
  const { wallet } = plan.party;
  const balances = await tx.ledger.lockAccounts(wallet.currency, [
    accountKeys.wallet(wallet.uid),
    accountKeys.walletHold(wallet.uid),
  ]);
  await assertClientReferenceUnused(tx, wallet.tenantId, "wallet_debit", plan.clientReference);
  return balances;
}

/** The charges of a wallet_debit (zero when no fee schedule applies). */
export const debitCharges = (deps: CoreDeps, plan: DebitPlan): FeeCharge =>
  chargesFor(deps.catalog, "wallet_debit", plan.party.wallet.currency, null, plan.amountMinor);

/** Whether the wallet's available balance covers amount + fee + tax. */
export const fundsCover = (balances: ReadonlyMap<string, number>, plan: DebitPlan, charges: FeeCharge) =>
  (balances.get(accountKeys.wallet(plan.party.wallet.uid)) ?? 0) >= charges.totalMinor;

/**
 * The journal of a wallet_debit (DESIGN.md section 2): wallet -> beneficiary for the amount, then
 * wallet -> fees per fee component and wallet -> tax per vat component, itemized by label.
 * Components that round to zero stay in the breakdown but post no line.
 */
export function debitEntries(plan: DebitPlan, charges: FeeCharge): Entry[] {
  const { wallet } = plan.party;
  const walletKey = accountKeys.wallet(wallet.uid);
  return entriesOf([
    {
      from: walletKey,
      to: accountKeys.beneficiary(plan.beneficiary.entityCode),
      amountMinor: plan.amountMinor,
      label: "amount",
    },
    ...chargeTransfers(wallet.tenantId, walletKey, charges.breakdown),
  ]);
}

/** How a wallet_debit ends: funded (its charges, journal lines and the wallet's locked balances) or not. */
export type DebitOutcome =
  | { state: "completed"; charges: FeeCharge; entries: Entry[]; locked: ReadonlyMap<string, number> }
  | { state: "failed" };

/** The outcome of a funded wallet_debit: its charges, journal lines and the wallet's locked balances. */
export const fundedDebit = (
  plan: DebitPlan,
  charges: FeeCharge,
  locked: ReadonlyMap<string, number>,
): DebitOutcome => ({ state: "completed", charges, entries: debitEntries(plan, charges), locked });

/**
 * Writes the wallet_debit operation, created at `now`. `completed`: fires wallet_debit.completed
 * and posts the journal last. `failed` (a mandate debit the wallet could not fund): no journal,
 * nothing charged, wallet_debit.failed. Either way created -> final state in one transaction.
 */
export async function recordDebit(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  plan: DebitPlan,
  outcome: DebitOutcome,
  now: Date,
): Promise<OperationView> {
  const { wallet } = plan.party;
  const at = iso(now);
  const charged = outcome.state === "completed" ? outcome.charges : null;
  const op: Operation = {
    uid: deps.ids.next("operation"),
    tenantId: wallet.tenantId,
    type: "wallet_debit",
    state: "created",
    amountMinor: plan.amountMinor,
    feeMinor: charged?.feeMinor ?? 0,
    taxMinor: charged?.taxMinor ?? 0,
    currency: wallet.currency,
    clientReference: plan.clientReference,
    customerUid: wallet.customerUid,
    sourceWalletUid: wallet.uid,
    destinationWalletUid: null,
    counterpartyHint: plan.beneficiary.name,
    feeBreakdown: charged?.breakdown.map((l) => ({ label: l.label, amountMinor: l.amountMinor })) ?? [],
    provider: null,
    mandateUid: plan.mandate.uid,
    intentReference: null,
    expiresAt: null,
    details: { beneficiaryEntityCode: plan.beneficiary.entityCode, authorization: plan.authorization },
    metadata: null,
    createdAt: at,
    completedAt: null,
    fundsMovedAt: charged ? at : null,
    updatedAt: at,
  };
  const posting =
    outcome.state === "completed"
      ? {
          locked: outcome.locked,
          journal: {
            uid: deps.ids.next("journal"),
            tenantId: wallet.tenantId,
            operationUid: op.uid,
            currency: wallet.currency,
            kind: "wallet_debit",
            createdAt: at,
            entries: outcome.entries,
          },
        }
      : null;
  await createAndTransitionOperation(tx, op, "api_client", outcome.state, at, "system");
  const view = toOperationView(op);
  await emitFirstEvent(deps, tx, ctx.tenant, `wallet_debit.${outcome.state}`, op.uid, "operation", view, at);
  if (posting) await lockSharedAndPost(tx, posting.journal, posting.locked, () => "InsufficientFunds");
  return view;
}
