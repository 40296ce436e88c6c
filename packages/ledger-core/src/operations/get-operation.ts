import type { CoreDeps, RequestContext } from "../app/context.js";
import { notFound } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import type { OperationDetailView } from "./views.js";
import { toOperationDetailView } from "./views.js";

/** GET /operations/{uid}: the projection with its timeline and provider block. */
export async function getOperationDetail(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
): Promise<OperationDetailView> {
  const op = (await tx.operations.get(ctx.tenant.id, uid)) ?? notFound("Operation");
  return toOperationDetailView(op, await tx.operations.timeline(op.uid));
}
