import type { AuditEntry, AuditRepository } from "@wallet/ledger-core";
import { fromJson, toJson } from "../shared/json-column.js";
import type { SqlContext } from "./sql-context.js";

export function sqlAuditRepository({ trx }: SqlContext): AuditRepository {
  return {
    async append(entry) {
      await trx
        .insertInto("audit_log")
        .values({
          at: entry.at,
          tenant_id: entry.tenantId,
          kid: entry.kid,
          action: entry.action,
          customer_uid: entry.customerUid,
          identifier_uids: toJson(entry.identifierUids),
          request_id: entry.requestId,
        })
        .execute();
    },
    async list({ tenantId, limit, offset }) {
      let q = trx.selectFrom("audit_log").selectAll();
      if (tenantId !== undefined) q = q.where("tenant_id", "=", tenantId);
      // Newest first: the primary key (ordinal), or the (tenant_id, ordinal) index, walked backwards.
      const rows = await q
        .orderBy("ordinal", "desc")
        .limit(Math.max(0, Math.trunc(limit)))
        .offset(Math.max(0, Math.trunc(offset)))
        .execute();
      return rows.map(
        (r): AuditEntry => ({
          at: r.at,
          tenantId: r.tenant_id,
          kid: r.kid,
          action: r.action,
          customerUid: r.customer_uid,
          identifierUids: fromJson(r.identifier_uids),
          requestId: r.request_id,
        }),
      );
    },
  };
}
