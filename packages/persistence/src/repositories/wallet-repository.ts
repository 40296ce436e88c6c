import type { Wallet, WalletRepository } from "@wallet/ledger-core";
import type { Selectable } from "kysely";
import type { WalletsTable } from "../schema/database.js";
import { queryTemplate } from "../shared/query-template.js";
import type { SqlContext } from "./sql-context.js";

const getWallet = queryTemplate((db, p: { tenantId: string; uid: string }) =>
  db.selectFrom("wallets").selectAll().where("tenant_id", "=", p.tenantId).where("uid", "=", p.uid),
);

export function sqlWalletRepository(ctx: SqlContext): WalletRepository {
  const { trx } = ctx;
  return {
    async insert(w) {
      await trx
        .insertInto("wallets")
        .values({
          uid: w.uid,
          tenant_id: w.tenantId,
          customer_uid: w.customerUid,
          purpose: w.purpose,
          status: w.status,
          currency: w.currency,
          rules_profile_key: w.rulesProfileKey,
          kyc_tier_code: w.kycTierCode,
          created_at: w.createdAt,
        })
        .execute();
    },
    async get(tenantId, uid) {
      const row = await getWallet.first(ctx, { tenantId, uid });
      return row ? toWallet(row) : null;
    },
    async getAny(uid) {
      const row = await trx.selectFrom("wallets").selectAll().where("uid", "=", uid).executeTakeFirst();
      return row ? toWallet(row) : null;
    },
    async listByCustomer(tenantId, customerUid) {
      const rows = await trx
        .selectFrom("wallets")
        .selectAll()
        .where("customer_uid", "=", customerUid)
        .where("tenant_id", "=", tenantId)
        .orderBy("created_at")
        .orderBy("uid")
        .execute();
      return rows.map(toWallet);
    },
    async setStatus(tenantId, uid, status) {
      await trx
        .updateTable("wallets")
        .set({ status })
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .execute();
    },
    async setKycTier(tenantId, uid, tierCode) {
      await trx
        .updateTable("wallets")
        .set({ kyc_tier_code: tierCode })
        .where("tenant_id", "=", tenantId)
        .where("uid", "=", uid)
        .execute();
    },
  };
}

function toWallet(r: Selectable<WalletsTable>): Wallet {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    customerUid: r.customer_uid,
    purpose: r.purpose as Wallet["purpose"],
    status: r.status as Wallet["status"],
    currency: r.currency,
    rulesProfileKey: r.rules_profile_key,
    kycTierCode: r.kyc_tier_code,
    createdAt: r.created_at,
  };
}
