import type { CoreDeps, RequestContext } from "../app/context.js";
import { notFound } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Operation } from "./model.js";
import type { OperationDetailView } from "./views.js";
import { toOperationDetailView } from "./views.js";

/** The operation's detail view, with its timeline as stored now. */
export const readOperationDetail = async (tx: Tx, op: Operation): Promise<OperationDetailView> =>
  toOperationDetailView(op, await tx.operations.timeline(op.uid));

/** GET /operations/{uid}: the projection with its timeline and provider block. */
export async function getOperationDetail(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
): Promise<OperationDetailView> {
  const op = (await tx.operations.get(ctx.tenant.id, uid)) ?? notFound("Operation");
  return readOperationDetail(tx, op);
}
