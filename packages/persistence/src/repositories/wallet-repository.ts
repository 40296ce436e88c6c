import type { Wallet, WalletRepository } from "@wallet/ledger-core";
import type { Kysely, Selectable } from "kysely";
import type { Database, WalletsTable } from "../schema/database.js";
import { queryTemplate } from "../shared/query-template.js";
import { lockedForUpdate } from "../shared/sql-dialect.js";
import { getCustomer, toCustomer } from "./customer-repository.js";
import type { SqlContext } from "./sql-context.js";

const walletByUid = (db: Kysely<Database>, p: { tenantId: string; uid: string }) =>
  db.selectFrom("wallets").selectAll().where("tenant_id", "=", p.tenantId).where("uid", "=", p.uid);
const getWallet = queryTemplate(walletByUid);

/** The wallet's columns as they are, its customer's prefixed `c_` (both have uid, status...). */
const walletWithCustomer = (db: Kysely<Database>, p: { tenantId: string; uid: string }) =>
  db
    .selectFrom("wallets as w")
    .innerJoin("customers as c", (j) =>
      j.onRef("c.uid", "=", "w.customer_uid").onRef("c.tenant_id", "=", "w.tenant_id"),
    )
    .selectAll("w")
    .select([
      "c.uid as c_uid",
      "c.tenant_id as c_tenant_id",
      "c.status as c_status",
      "c.customer_type as c_customer_type",
      "c.display_name as c_display_name",
      "c.date_of_birth as c_date_of_birth",
      "c.region_code as c_region_code",
      "c.preferred_locale as c_preferred_locale",
      "c.client_reference as c_client_reference",
      "c.metadata as c_metadata",
      "c.created_at as c_created_at",
    ])
    .where("w.tenant_id", "=", p.tenantId)
    .where("w.uid", "=", p.uid);
const getWalletWithCustomer = queryTemplate(walletWithCustomer);
/**
 * Postgres: the wallet's row share-locked (see the port), then its customer read by a statement
 * of its own. Read committed gives that statement a snapshot taken after the lock was granted: a
 * customer status change, which locks the customer's wallets for update before it writes, has
 * either committed (and is seen) or waits for this movement. Joined into the locking statement,
 * the customer would be read as of that statement's start, before a wait for the lock. The
 * customer's row is not locked: concurrent movements of one customer's wallets would share it
 * (a multixact each).
 */
const getWalletShared = queryTemplate((db, p: { tenantId: string; uid: string }) =>
  walletByUid(db, p).forShare(),
);

export function sqlWalletRepository(ctx: SqlContext): WalletRepository {
  const { trx, dialect } = ctx;
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
    async getWithCustomer(tenantId, uid) {
      if (dialect === "postgres") {
        const wallet = await getWalletShared.first(ctx, { tenantId, uid });
        if (!wallet) return null;
        const customer = await getCustomer.first(ctx, { tenantId, uid: wallet.customer_uid });
        if (!customer) return null;
        return { wallet: toWallet(wallet), customer: toCustomer(customer) };
      }
      const row = await getWalletWithCustomer.first(ctx, { tenantId, uid });
      if (!row) return null;
      return {
        wallet: toWallet(row),
        customer: toCustomer({
          uid: row.c_uid,
          tenant_id: row.c_tenant_id,
          status: row.c_status,
          customer_type: row.c_customer_type,
          display_name: row.c_display_name,
          date_of_birth: row.c_date_of_birth,
          region_code: row.c_region_code,
          preferred_locale: row.c_preferred_locale,
          client_reference: row.c_client_reference,
          metadata: row.c_metadata,
          created_at: row.c_created_at,
        }),
      };
    },
    async getForUpdate(tenantId, uid) {
      const row = await lockedForUpdate(walletByUid(trx, { tenantId, uid }), dialect).executeTakeFirst();
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
    async tierCurrenciesInUse() {
      const rows = await trx.selectFrom("wallets").select(["kyc_tier_code", "currency"]).distinct().execute();
      return rows.map((r) => ({ kycTierCode: r.kyc_tier_code, currency: r.currency }));
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
