import type { CoreDeps, RequestContext } from "../app/context.js";
import type { PagedView } from "../operations/list-operations.js";
import { pageMeta } from "../operations/list-operations.js";
import type { Page } from "../operations/repository.js";
import { notFound } from "../shared/errors.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Mandate, MandateStatus } from "./model.js";
import type { MandateView } from "./views.js";
import { toMandateView } from "./views.js";

/** The tenant's mandate; another tenant's is 404, identical to a nonexistent one. */
export const loadMandate = async (tx: Tx, ctx: RequestContext, uid: string): Promise<Mandate> =>
  (await tx.mandates.get(ctx.tenant.id, uid)) ?? notFound("Mandate");

/** GET /mandates/{uid}. */
export async function getMandate(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
): Promise<MandateView> {
  return toMandateView(await loadMandate(tx, ctx, uid));
}

export interface MandateQuery {
  customerUid?: string;
  status?: MandateStatus;
}

/** GET /mandates: the tenant's mandates; a customer outside the account matches nothing. */
export async function listMandates(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  query: MandateQuery,
  page: Page,
): Promise<PagedView<MandateView>> {
  const { data, total } = await tx.mandates.list({ tenantId: ctx.tenant.id, ...query }, page);
  return { data: data.map(toMandateView), meta: pageMeta(total, page) };
}
