import type { CoreDeps, RequestContext } from "../app/context.js";
import { payoutDetailsOf } from "../payouts/model.js";
import { notFound } from "../shared/errors.js";
import { assertPage } from "../shared/list-window.js";
import { addMinor } from "../shared/money.js";
import { storedInstant } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Operation, OperationState, OperationType } from "./model.js";
import type { OperationFilter, Page } from "./repository.js";
import type { OperationView } from "./views.js";
import { TENANT_API_PREFIX, toOperationView } from "./views.js";

export interface PageMeta {
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export interface PagedView<T> {
  data: T[];
  meta: PageMeta;
}

export const pageMeta = (total: number, page: Page): PageMeta => ({
  total,
  page: page.page,
  limit: page.limit,
  totalPages: Math.ceil(total / page.limit),
});

/** GET /operations' filters: the store's, within the caller's tenant. */
export type OperationQuery = Omit<OperationFilter, "tenantId" | "movedOrFinal">;

/**
 * `from`/`to` in the stored form (UTC, milliseconds), as the API's schema rewrites them: the stores
 * compare createdAt as text, so "2026-11-22T10:00:00Z" as given would leave out every operation of
 * that second. A bound that is not an RFC 3339 time in years 0000-9999 is refused 400.
 */
function storedBounds<Q extends { from?: string | undefined; to?: string | undefined }>(query: Q): Q {
  return {
    ...query,
    ...(query.from === undefined ? {} : { from: storedInstant(query.from, "from", "lower") }),
    ...(query.to === undefined ? {} : { to: storedInstant(query.to, "to", "upper") }),
  };
}

/** GET /operations: every operation of the tenant in any state; filters only narrow within it. */
export async function listOperations(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  query: OperationQuery,
  page: Page,
): Promise<PagedView<OperationView>> {
  assertPage(page);
  const { data, total } = await tx.operations.list({ tenantId: ctx.tenant.id, ...storedBounds(query) }, page);
  return { data: data.map(toOperationView), meta: pageMeta(total, page) };
}

export interface StatementItemView {
  operationUid: string;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  /** Relative to the wallet in the path. */
  direction: "inbound" | "outbound";
  state: OperationState;
  clientReference: string | null;
  counterpartyHint: string | null;
  createdAt: string;
  completedAt: string | null;
  receipt: string;
  /**
   * An addition to the spec's item: the part of feeMinor + taxMinor that went back to the wallet:
   * a failed payout's refundable charges, all of them for a reversed operation, 0 otherwise; so
   * that the rows add up to the balance.
   */
  chargesRefundedMinor: number;
}

/** What went back of an operation's charges (see refundTransfers and reverseOperation). */
function chargesRefunded(op: Operation): number {
  if (op.state === "reversed") return op.feeMinor + op.taxMinor;
  if (op.type === "payout_b2c" && op.state === "failed") {
    return addMinor(
      ...payoutDetailsOf(op)
        .charges.filter((l) => l.refundable)
        .map((l) => l.amountMinor),
    );
  }
  return 0;
}

export interface StatementQuery {
  type?: OperationType | undefined;
  state?: OperationState | undefined;
  from?: string | undefined;
  to?: string | undefined;
  includePending?: boolean | undefined;
}

/**
 * GET /wallets/{uid}/transactions. Without includePending only operations that moved funds or
 * reached a final state are listed, so a closed period always returns the same rows.
 */
export async function listWalletTransactions(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  walletUid: string,
  query: StatementQuery,
  page: Page,
): Promise<PagedView<StatementItemView>> {
  assertPage(page);
  const { includePending, ...filters } = storedBounds(query);
  (await tx.wallets.get(ctx.tenant.id, walletUid)) ?? notFound("Wallet");
  const { data, total } = await tx.operations.list(
    { tenantId: ctx.tenant.id, walletUid, ...filters, movedOrFinal: !includePending },
    page,
  );
  return {
    data: data.map((op) => ({
      operationUid: op.uid,
      amountMinor: op.amountMinor,
      feeMinor: op.feeMinor,
      taxMinor: op.taxMinor,
      direction: op.destinationWalletUid === walletUid ? "inbound" : "outbound",
      state: op.state,
      clientReference: op.clientReference,
      counterpartyHint: op.counterpartyHint,
      createdAt: op.createdAt,
      completedAt: op.completedAt,
      receipt: `${TENANT_API_PREFIX}/operations/${op.uid}/receipt`,
      chargesRefundedMinor: chargesRefunded(op),
    })),
    meta: pageMeta(total, page),
  };
}
