import type { CoreDeps, RequestContext } from "../app/context.js";
import { notFound } from "../shared/errors.js";
import { canonicalJson } from "../shared/jcs.js";
import type { Tx } from "../store/unit-of-work.js";
import { finalStates, type Operation, type OperationState, type OperationType } from "./model.js";

export interface ReceiptView {
  operationUid: string;
  type: OperationType;
  /** When the operation completed, otherwise when its money first moved. */
  occurredAt: string;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  totalDebitedMinor: number;
  currency: string;
  counterparty: { hint: string | null };
  references: { clientReference: string | null; providerReference: string | null; journalUids: string[] };
  feeBreakdown: { label: string; amountMinor: number }[];
  state: OperationState;
  /** SHA-256 hex of the RFC 8785 canonical JSON of the receipt without this field. */
  receiptHash: string;
}

/** Builds the receipt of an operation whose money moved. Every field is stored, so reads are byte-identical. */
export function buildReceipt(
  deps: Pick<CoreDeps, "hasher">,
  op: Operation,
  journalUids: string[],
): ReceiptView {
  const occurredAt = op.completedAt ?? op.fundsMovedAt;
  if (occurredAt === null) return notFound("Receipt");
  const receipt: Omit<ReceiptView, "receiptHash"> = {
    operationUid: op.uid,
    type: op.type,
    occurredAt,
    amountMinor: op.amountMinor,
    feeMinor: op.feeMinor,
    taxMinor: op.taxMinor,
    totalDebitedMinor: op.amountMinor + op.feeMinor + op.taxMinor,
    currency: op.currency,
    counterparty: { hint: op.counterpartyHint },
    references: {
      clientReference: op.clientReference,
      // A rail's reference while the operation is still processing (an `uncertain` result may
      // carry one) would change the receipt, and its hash, without a change of state: it shows
      // once the operation is final.
      providerReference: finalStates.includes(op.state) ? (op.provider?.reference ?? null) : null,
      journalUids,
    },
    feeBreakdown: op.feeBreakdown.map((l) => ({ label: l.label, amountMinor: l.amountMinor })),
    state: op.state,
  };
  return { ...receipt, receiptHash: deps.hasher.sha256Hex(canonicalJson(receipt)) };
}

/** GET /operations/{uid}/receipt: 404 until the operation has moved funds. */
export async function getReceipt(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
): Promise<ReceiptView> {
  const op = (await tx.operations.get(ctx.tenant.id, uid)) ?? notFound("Operation");
  if (op.fundsMovedAt === null) return notFound("Receipt");
  const journals = await tx.ledger.journalsOf(ctx.tenant.id, op.uid);
  return buildReceipt(
    deps,
    op,
    journals.map((j) => j.uid),
  );
}
