import type { CoreDeps, RequestContext } from "../app/context.js";
import type { PagedView } from "../operations/list-operations.js";
import { pageMeta } from "../operations/list-operations.js";
import type { Page } from "../operations/repository.js";
import { notFound } from "../shared/errors.js";
import { assertPage } from "../shared/list-window.js";
import type { Tx } from "../store/unit-of-work.js";
import type { Mandate, MandateStatus } from "./model.js";
import type { MandateView } from "./views.js";
import { toMandateView } from "./views.js";

/** The tenant's mandate; another tenant's is 404, identical to a nonexistent one. */
export const loadMandate = async (tx: Tx, ctx: RequestContext, uid: string): Promise<Mandate> =>
  (await tx.mandates.get(ctx.tenant.id, uid)) ?? notFound("Mandate");

/**
 * `m` read again after locking its wallet for update, before a change of its status (revoke,
 * replace, the operator's suspend or resume). Every debit share-locks the wallet until it commits
 * and reads its mandate under that lock: the change waits for the debits in flight, and a debit
 * that starts meanwhile waits for the change and then sees it. No debit commits on a mandate after
 * its revocation or suspension was answered.
 */
export async function lockMandateForChange(tx: Tx, m: Mandate): Promise<Mandate> {
  await tx.wallets.getForUpdate(m.tenantId, m.walletUid);
  return (await tx.mandates.get(m.tenantId, m.uid)) ?? notFound("Mandate");
}

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
  customerUid?: string | undefined;
  status?: MandateStatus | undefined;
}

/** GET /mandates: the tenant's mandates; a customer outside the account matches nothing. */
export async function listMandates(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  query: MandateQuery,
  page: Page,
): Promise<PagedView<MandateView>> {
  assertPage(page);
  const { data, total } = await tx.mandates.list({ tenantId: ctx.tenant.id, ...query }, page);
  return { data: data.map(toMandateView), meta: pageMeta(total, page) };
}
