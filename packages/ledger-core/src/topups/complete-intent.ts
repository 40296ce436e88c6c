import type { CoreDeps } from "../app/context.js";
import { emitEvent } from "../events/emit.js";
import { chargeTransfers } from "../fees/charges.js";
import { accountKeys } from "../ledger/accounts.js";
import type { Entry } from "../ledger/journal.js";
import { entriesOf } from "../ledger/journal.js";
import { lockSharedAndPost } from "../ledger/posting.js";
import { transitionOperation } from "../operations/lifecycle.js";
import type { ActorType, Operation, ProviderBlock } from "../operations/model.js";
import { toOperationView } from "../operations/views.js";
import { invariant } from "../shared/errors.js";
import { addMinor } from "../shared/money.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Tenant } from "../tenants/model.js";
import { topupDetailsOf } from "./model.js";

/** What the intent's wallet pays out of the payment: the charges quoted when it was issued. */
export const intentChargesMinor = (op: Operation): number =>
  addMinor(...topupDetailsOf(op).charges.map((c) => c.amountMinor));

/** The journal lines of an intent's payment: `from` -> wallet for the amount, its charges wallet -> fees/tax. */
export function intentPaymentEntries(op: Operation, from: string): Entry[] {
  invariant(op.destinationWalletUid, "an intent names its wallet");
  const walletKey = accountKeys.wallet(op.destinationWalletUid);
  return entriesOf([
    { from, to: walletKey, amountMinor: op.amountMinor, label: "amount" },
    ...chargeTransfers(op.tenantId, walletKey, topupDetailsOf(op).charges),
  ]);
}

/**
 * Completes an intent whose payment is credited now (a matching payment from the rail, or a held
 * one the operator applies from suspense): provider state, fundsMovedAt, `completed`,
 * topup.confirmed, then the journal, posted last (lockSharedAndPost).
 */
export async function completeIntent(
  deps: CoreDeps,
  tx: Tx,
  op: Operation,
  p: {
    tenant: Tenant;
    entries: Entry[];
    locked: ReadonlyMap<string, number>;
    journalKind: string;
    provider: Pick<ProviderBlock, "state"> & Partial<Pick<ProviderBlock, "reference">>;
    actorType: ActorType;
    at: string;
  },
): Promise<void> {
  invariant(op.provider, "an intent has its provider block");
  op.provider = { ...op.provider, ...p.provider, lastUpdatedAt: p.at };
  op.fundsMovedAt = p.at;
  await transitionOperation(tx, op, "completed", p.at, p.actorType);
  await emitEvent(deps, tx, p.tenant, "topup.confirmed", op.uid, "operation", toOperationView(op), p.at);
  const journal = {
    uid: deps.ids.next("journal"),
    tenantId: op.tenantId,
    operationUid: op.uid,
    currency: op.currency,
    kind: p.journalKind,
    createdAt: p.at,
    entries: p.entries,
  };
  await lockSharedAndPost(tx, journal, p.locked, () => "InsufficientFunds");
}
