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
    async list(tenantId) {
      let q = trx.selectFrom("audit_log").selectAll();
      if (tenantId !== undefined) q = q.where("tenant_id", "=", tenantId);
      const rows = await q.orderBy("ordinal").execute();
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
