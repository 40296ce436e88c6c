import {
  DomainError,
  type ReplayGuardRepository,
  type SigningKey,
  type Tenant,
  type TenantRepository,
} from "@wallet/ledger-core";
import type { Selectable } from "kysely";
import type { SigningKeysTable, TenantsTable } from "../schema/database.js";
import { fromJson, toJson } from "../shared/json-column.js";
import { queryTemplate } from "../shared/query-template.js";
import { lockedForUpdate } from "../shared/sql-dialect.js";
import { affected, type SqlContext } from "./sql-context.js";

const getTenant = queryTemplate((db, p: { id: string }) =>
  db.selectFrom("tenants").selectAll().where("id", "=", p.id),
);

const tenantOfApiKey = queryTemplate((db, p: { apiKeySha256: string }) =>
  db.selectFrom("tenant_api_keys").select("tenant_id").where("api_key_sha256", "=", p.apiKeySha256),
);

const getSigningKey = queryTemplate((db, p: { tenantId: string; kid: string }) =>
  db.selectFrom("signing_keys").selectAll().where("tenant_id", "=", p.tenantId).where("kid", "=", p.kid),
);

/** The tenant owning an API key and its signing key `kid` (columns prefixed `key_`), in one read. */
const credentials = queryTemplate((db, p: { apiKeySha256: string; kid: string }) =>
  db
    .selectFrom("tenant_api_keys as a")
    .innerJoin("tenants as t", "t.id", "a.tenant_id")
    .leftJoin("signing_keys as k", (join) => join.onRef("k.tenant_id", "=", "t.id").on("k.kid", "=", p.kid))
    .selectAll("t")
    .select([
      "k.kid as key_kid",
      "k.public_key_pem as key_public_key_pem",
      "k.status as key_status",
      "k.expires_at as key_expires_at",
      "k.created_at as key_created_at",
    ])
    .where("a.api_key_sha256", "=", p.apiKeySha256)
    .where("a.revoked_at", "is", null),
);

export function sqlTenantRepository(ctx: SqlContext): TenantRepository {
  const { trx, dialect } = ctx;
  return {
    async get(id) {
      const row = await getTenant.first(ctx, { id });
      return row ? toTenant(row) : null;
    },
    async getForUpdate(id) {
      const query = trx.selectFrom("tenants").selectAll().where("id", "=", id);
      const row = await lockedForUpdate(query, dialect).executeTakeFirst();
      return row ? toTenant(row) : null;
    },
    async list() {
      const rows = await trx.selectFrom("tenants").selectAll().orderBy("id").execute();
      return rows.map(toTenant);
    },
    async upsert(t) {
      const row = fromTenant(t);
      const { id: _id, ...changes } = row;
      await trx
        .insertInto("tenants")
        .values(row)
        .onConflict((oc) => oc.column("id").doUpdateSet(changes))
        .execute();
    },
    async findByApiKeyHash(apiKeySha256) {
      const row = await tenantOfApiKey.first(ctx, { apiKeySha256 });
      return row?.tenant_id ?? null;
    },
    async findCredentials(apiKeySha256, kid) {
      const row = await credentials.first(ctx, { apiKeySha256, kid });
      if (!row) return null;
      const { key_kid, key_public_key_pem, key_status, key_expires_at, key_created_at, ...tenant } = row;
      const signingKey =
        key_kid === null || key_public_key_pem === null || key_status === null || key_created_at === null
          ? null
          : toSigningKey({
              tenant_id: tenant.id,
              kid: key_kid,
              public_key_pem: key_public_key_pem,
              status: key_status,
              expires_at: key_expires_at,
              created_at: key_created_at,
            });
      return { tenant: toTenant(tenant), signingKey };
    },
    async addApiKeyHash(tenantId, apiKeySha256) {
      const inserted = await trx
        .insertInto("tenant_api_keys")
        .values({ api_key_sha256: apiKeySha256, tenant_id: tenantId })
        .onConflict((oc) => oc.column("api_key_sha256").doNothing())
        .executeTakeFirst();
      if (affected(inserted) === 1) return;
      // Adding a key twice is a no-op (seeding is idempotent); one key for two tenants never is.
      const owner = await tenantOfApiKey.first(ctx, { apiKeySha256 });
      if (owner?.tenant_id !== tenantId)
        throw new DomainError("Conflict", "This API key belongs to another tenant");
    },
    async getApiKey(tenantId, apiKeySha256) {
      const row = await trx
        .selectFrom("tenant_api_keys")
        .select("revoked_at")
        .where("api_key_sha256", "=", apiKeySha256)
        .where("tenant_id", "=", tenantId)
        .executeTakeFirst();
      return row ? { tenantId, sha256: apiKeySha256, revokedAt: row.revoked_at } : null;
    },
    async revokeApiKey(tenantId, apiKeySha256, revokedAt) {
      await trx
        .updateTable("tenant_api_keys")
        .set({ revoked_at: revokedAt })
        .where("api_key_sha256", "=", apiKeySha256)
        .where("tenant_id", "=", tenantId)
        .where("revoked_at", "is", null)
        .execute();
    },
    async getSigningKey(tenantId, kid) {
      const row = await getSigningKey.first(ctx, { tenantId, kid });
      return row ? toSigningKey(row) : null;
    },
    async listSigningKeys(tenantId) {
      const rows = await trx
        .selectFrom("signing_keys")
        .selectAll()
        .where("tenant_id", "=", tenantId)
        .orderBy("created_at")
        .orderBy("kid")
        .execute();
      return rows.map(toSigningKey);
    },
    async addSigningKey(k) {
      await trx
        .insertInto("signing_keys")
        .values({
          tenant_id: k.tenantId,
          kid: k.kid,
          public_key_pem: k.publicKeyPem,
          status: k.status,
          expires_at: k.expiresAt,
          created_at: k.createdAt,
        })
        .onConflict((oc) => oc.columns(["tenant_id", "kid"]).doNothing())
        .execute();
    },
    async setSigningKeyStatus(tenantId, kid, status) {
      await trx
        .updateTable("signing_keys")
        .set({ status })
        .where("tenant_id", "=", tenantId)
        .where("kid", "=", kid)
        .execute();
    },
  };
}

/**
 * Expired rows purged on every Nth call, at most this many at a time, so no call is slow: up to ten
 * rows a call against the one it adds, so a burst's expired rows are worked off, not kept.
 */
export const REPLAY_PURGE_EVERY = 100;
export const REPLAY_PURGE_MAX_ROWS = 1000;

// One statement decides: a new signature is inserted, an expired one is replaced, a live one is
// left alone (0 rows), atomically on both engines.
const rememberSignature = queryTemplate((db, p: { signature: string; now: string; expiresAt: string }) =>
  db
    .insertInto("replay_guard")
    .values({ signature: p.signature, seen_at: p.now, expires_at: p.expiresAt })
    .onConflict((oc) =>
      oc
        .column("signature")
        .doUpdateSet({ seen_at: p.now, expires_at: p.expiresAt })
        .where("replay_guard.expires_at", "<=", p.now),
    ),
);

export function sqlReplayGuardRepository(ctx: SqlContext): ReplayGuardRepository {
  const { trx, housekeeping } = ctx;
  return {
    async remember(signature, now, expiresAt) {
      housekeeping.replayGuardCalls = (housekeeping.replayGuardCalls + 1) % REPLAY_PURGE_EVERY;
      if (housekeeping.replayGuardCalls === 0) {
        await trx
          .deleteFrom("replay_guard")
          .where("signature", "in", (qb) =>
            qb
              .selectFrom("replay_guard")
              .select("signature")
              .where("expires_at", "<=", now)
              .limit(REPLAY_PURGE_MAX_ROWS),
          )
          .execute();
      }
      return (await rememberSignature.affected(ctx, { signature, now, expiresAt })) === 1;
    },
  };
}

function fromTenant(t: Tenant): Selectable<TenantsTable> {
  return {
    id: t.id,
    name: t.name,
    status: t.status,
    scopes: toJson(t.scopes),
    ip_allowlist: toJson(t.ipAllowlist),
    approved_profiles: toJson(t.approvedProfiles),
    default_profile: t.defaultProfile,
    approved_kyc_levels: toJson(t.approvedKycLevels),
    approved_rails: toJson(t.approvedRails),
    rate_limit: toJson(t.rateLimit),
    webhook: toJson(t.webhook),
  };
}

function toTenant(r: Selectable<TenantsTable>): Tenant {
  return {
    id: r.id,
    name: r.name,
    status: r.status as Tenant["status"],
    scopes: fromJson(r.scopes),
    ipAllowlist: fromJson(r.ip_allowlist),
    approvedProfiles: fromJson(r.approved_profiles),
    defaultProfile: r.default_profile,
    approvedKycLevels: fromJson(r.approved_kyc_levels),
    approvedRails: fromJson(r.approved_rails),
    rateLimit: fromJson(r.rate_limit),
    webhook: fromJson(r.webhook),
  };
}

function toSigningKey(r: Selectable<SigningKeysTable>): SigningKey {
  return {
    tenantId: r.tenant_id,
    kid: r.kid,
    publicKeyPem: r.public_key_pem,
    status: r.status as SigningKey["status"],
    expiresAt: r.expires_at,
    createdAt: r.created_at,
  };
}
