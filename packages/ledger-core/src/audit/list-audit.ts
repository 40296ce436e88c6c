import { listWindow } from "../shared/list-window.js";
import type { Tx } from "../store/unit-of-work.js";
import { type AuditEntry, auditListLimitDefault, auditListLimitMax } from "./model.js";

/**
 * Operator API `GET /audit`: audit rows of unmasked personal-data reads, newest first, of one
 * tenant or all, one page at a time (`limit` defaults to 100 and is clamped to 1000). The store
 * reads only that page.
 */
export async function listAudit(
  tx: Tx,
  query: { tenantId?: string | undefined; limit?: number | undefined; page?: number | undefined } = {},
): Promise<{ data: AuditEntry[] }> {
  const window = listWindow(query, { fallback: auditListLimitDefault, max: auditListLimitMax });
  const data = await tx.audit.list({
    ...(query.tenantId === undefined ? {} : { tenantId: query.tenantId }),
    ...window,
  });
  return { data };
}
