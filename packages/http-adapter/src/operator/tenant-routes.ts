import { createHash, randomBytes } from "node:crypto";
import {
  type ApiKeyRecord,
  notFound,
  refuse,
  type SigningKey,
  type Tenant,
  type Tx,
  type WebhookConfig,
} from "@wallet/ledger-core";
import { HttpError } from "../errors/http-error.js";
import { operatorRoute, type RouteEntry } from "../routes/route-entry.js";
import {
  addSigningKeyBodySchema,
  apiKeyParamsSchema,
  apiKeyViewSchema,
  createdApiKeyViewSchema,
  patchTenantBodySchema,
  putWebhookBodySchema,
  rotateWebhookSecretBodySchema,
  signingKeyParamsSchema,
  signingKeyViewSchema,
  tenantParamsSchema,
  tenantViewSchema,
  webhookConfigViewSchema,
  webhookSecretViewSchema,
} from "./tenant-schemas.js";

/*
 * Operator changes to a tenant go through `tx.tenants`, so they live in the database and outlive
 * a restart: config seeding keeps the database's value of every field changed here (docs/
 * operations.md, "Config precedence"). Authentication reads the tenant and the signing key on
 * every request, so a suspension, a scope change or a revocation applies to the next request.
 */

/** Locked until the route's transaction ends: every write here reads the tenant to write it back. */
const loadTenant = async (tx: Tx, tenantId: string): Promise<Tenant> =>
  (await tx.tenants.getForUpdate(tenantId)) ?? notFound("Tenant");

const toSigningKeyView = (k: SigningKey) => ({
  tenantId: k.tenantId,
  kid: k.kid,
  publicKeyPem: k.publicKeyPem,
  status: k.status,
  expiresAt: k.expiresAt,
  createdAt: k.createdAt,
});

const toApiKeyView = (k: ApiKeyRecord) => ({
  tenantId: k.tenantId,
  sha256: k.sha256,
  status: k.revokedAt === null ? ("active" as const) : ("revoked" as const),
  revokedAt: k.revokedAt,
});

/** The webhook config without its secrets: only which kids exist and since when. */
const toWebhookView = (w: WebhookConfig) => ({
  url: w.url,
  enabled: w.enabled,
  events: [...w.events],
  secretKids: [...w.secrets]
    .sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt))
    .map((s) => ({ kid: s.kid, createdAt: s.createdAt })),
});

/** The tenant without secrets: no API key hash, no webhook secret. */
async function toTenantView(tx: Tx, t: Tenant) {
  return {
    id: t.id,
    name: t.name,
    status: t.status,
    scopes: [...t.scopes],
    ipAllowlist: [...t.ipAllowlist],
    approvedProfiles: [...t.approvedProfiles],
    defaultProfile: t.defaultProfile,
    approvedKycLevels: [...t.approvedKycLevels],
    approvedRails: [...t.approvedRails],
    rateLimit: { perSecond: t.rateLimit.perSecond, burst: t.rateLimit.burst },
    webhook: toWebhookView(t.webhook),
    signingKeys: (await tx.tenants.listSigningKeys(t.id)).map(toSigningKeyView),
  };
}

const rotationUnavailable = (): never => {
  throw new HttpError(503, {
    error: "ServiceUnavailable",
    message: "Webhook secret rotation is not configured in this deployment",
  });
};

/** Operator API (DESIGN.md section 9): a tenant's status, scopes, allowlist, rate limit, keys and webhook. */
export const operatorTenantRoutes: readonly RouteEntry[] = [
  operatorRoute({
    method: "GET",
    path: "/tenants/{tenantId}",
    operationId: "getTenant",
    summary: "A tenant as the database holds it (operator changes included), without secrets",
    tag: "Operator",
    params: tenantParamsSchema,
    success: { status: 200, description: "The tenant, without secrets", schema: tenantViewSchema },
    errorStatuses: [400, 401, 404, 500, 503],
    // A read, without the lock the writes take: a GET runs on a snapshot, where waiting on a row
    // another transaction changed ends in a serialization failure.
    run: async (tx, { params }) =>
      toTenantView(tx, (await tx.tenants.get(params.tenantId)) ?? notFound("Tenant")),
  }),
  operatorRoute({
    method: "PATCH",
    path: "/tenants/{tenantId}",
    operationId: "updateTenant",
    summary: "Change a tenant's status, scopes, IP allowlist or rate limit (applies to the next request)",
    tag: "Operator",
    params: tenantParamsSchema,
    body: patchTenantBodySchema,
    success: { status: 200, description: "The tenant, without secrets", schema: tenantViewSchema },
    errorStatuses: [400, 401, 404, 413, 500, 503],
    run: async (tx, { params, body }) => {
      const tenant = await loadTenant(tx, params.tenantId);
      const updated: Tenant = {
        ...tenant,
        status: body.status ?? tenant.status,
        scopes: body.scopes ? [...body.scopes] : tenant.scopes,
        ipAllowlist: body.ipAllowlist ? [...body.ipAllowlist] : tenant.ipAllowlist,
        rateLimit: body.rateLimit ? { ...body.rateLimit } : tenant.rateLimit,
      };
      await tx.tenants.upsert(updated);
      return toTenantView(tx, updated);
    },
  }),
  operatorRoute({
    method: "POST",
    path: "/tenants/{tenantId}/signing-keys",
    operationId: "addSigningKey",
    summary: "Register an Ed25519 public key under a new kid; both kids work until one is revoked",
    tag: "Operator",
    params: tenantParamsSchema,
    body: addSigningKeyBodySchema,
    success: { status: 201, description: "The signing key", schema: signingKeyViewSchema },
    errorStatuses: [400, 401, 404, 409, 413, 500, 503],
    run: async (tx, { deps, params, body }) => {
      const now = deps.core.clock.now();
      const expiresAt = body.expiresAt ? new Date(body.expiresAt) : null;
      if (expiresAt !== null && expiresAt.getTime() <= now.getTime()) {
        refuse("InvalidRequest", "The request body is invalid", [
          { field: "expiresAt", issue: "must be in the future" },
        ]);
      }
      const tenant = await loadTenant(tx, params.tenantId);
      // A kid names one key forever: a revoked kid is not re-used either, so a signature can never
      // be checked against a key other than the one it was made with.
      if ((await tx.tenants.getSigningKey(tenant.id, body.kid)) !== null) {
        refuse("Conflict", "The tenant already has a signing key with this kid");
      }
      const key: SigningKey = {
        tenantId: tenant.id,
        kid: body.kid,
        publicKeyPem: body.publicKeyPem,
        status: "active",
        expiresAt: expiresAt?.toISOString() ?? null,
        createdAt: now.toISOString(),
      };
      await tx.tenants.addSigningKey(key);
      return toSigningKeyView(key);
    },
  }),
  operatorRoute({
    method: "POST",
    path: "/tenants/{tenantId}/signing-keys/{kid}/revoke",
    operationId: "revokeSigningKey",
    summary: "Revoke a signing key: requests signed under its kid are refused from the next one on",
    tag: "Operator",
    params: signingKeyParamsSchema,
    success: { status: 200, description: "The key, revoked", schema: signingKeyViewSchema },
    errorStatuses: [400, 401, 404, 500, 503],
    run: async (tx, { params }) => {
      const tenant = await loadTenant(tx, params.tenantId);
      const key = (await tx.tenants.getSigningKey(tenant.id, params.kid)) ?? notFound("Signing key");
      // Revoking twice answers the same: the operator's intent is met either way.
      if (key.status !== "revoked") await tx.tenants.setSigningKeyStatus(tenant.id, key.kid, "revoked");
      return toSigningKeyView({ ...key, status: "revoked" });
    },
  }),
  operatorRoute({
    method: "POST",
    path: "/tenants/{tenantId}/api-keys",
    operationId: "createApiKey",
    summary: "Create an API key, shown once (only its SHA-256 is kept); the tenant's other keys keep working",
    tag: "Operator",
    params: tenantParamsSchema,
    success: { status: 201, description: "The new API key (shown once)", schema: createdApiKeyViewSchema },
    errorStatuses: [400, 401, 404, 500, 503],
    run: async (tx, { params }) => {
      const tenant = await loadTenant(tx, params.tenantId);
      const key = `wk_${randomBytes(32).toString("base64url")}`;
      const sha256 = createHash("sha256").update(key, "utf8").digest("hex");
      await tx.tenants.addApiKeyHash(tenant.id, sha256);
      return { tenantId: tenant.id, key, sha256, status: "active" as const };
    },
  }),
  operatorRoute({
    method: "POST",
    path: "/tenants/{tenantId}/api-keys/{sha256}/revoke",
    operationId: "revokeApiKey",
    summary: "Revoke an API key, named by its SHA-256: requests carrying it are refused from the next one on",
    tag: "Operator",
    params: apiKeyParamsSchema,
    success: { status: 200, description: "The key, revoked", schema: apiKeyViewSchema },
    errorStatuses: [400, 401, 404, 500, 503],
    run: async (tx, { deps, params }) => {
      const tenant = await loadTenant(tx, params.tenantId);
      const key = (await tx.tenants.getApiKey(tenant.id, params.sha256)) ?? notFound("API key");
      // Revoking twice answers the same, with the first revocation's time.
      if (key.revokedAt !== null) return toApiKeyView(key);
      const revoked = { ...key, revokedAt: deps.core.clock.now().toISOString() };
      await tx.tenants.revokeApiKey(tenant.id, key.sha256, revoked.revokedAt);
      return toApiKeyView(revoked);
    },
  }),
  operatorRoute({
    method: "PUT",
    path: "/tenants/{tenantId}/webhook",
    operationId: "putWebhook",
    summary: "Set the webhook URL, event filter and enabled flag; secrets are kept",
    tag: "Operator",
    params: tenantParamsSchema,
    body: putWebhookBodySchema,
    success: {
      status: 200,
      description: "The webhook config, without secrets",
      schema: webhookConfigViewSchema,
    },
    errorStatuses: [400, 401, 404, 409, 413, 500, 503],
    run: async (tx, { params, body }) => {
      if (body.enabled && body.url === null) {
        refuse("InvalidRequest", "The request body is invalid", [
          { field: "url", issue: "required when enabled is true" },
        ]);
      }
      const tenant = await loadTenant(tx, params.tenantId);
      // Events are signed: enabled without a secret, every event would be written and then fail
      // without a POST (config seeding refuses the same state, seed.ts assertDeliverableWebhook).
      if (body.enabled && tenant.webhook.secrets.length === 0) {
        refuse(
          "Conflict",
          "The tenant's webhook has no signing secret: create one first with " +
            "POST /tenants/{tenantId}/webhook/secrets, then enable the webhook",
        );
      }
      const webhook: WebhookConfig = {
        url: body.url,
        enabled: body.enabled,
        events: [...body.events],
        secrets: tenant.webhook.secrets,
      };
      await tx.tenants.upsert({ ...tenant, webhook });
      return toWebhookView(webhook);
    },
  }),
  operatorRoute({
    method: "POST",
    path: "/tenants/{tenantId}/webhook/secrets",
    operationId: "rotateWebhookSecret",
    summary:
      "Create a new webhook signing secret, shown once; it signs once the previous one's 24 h overlap ends, or at once with immediate",
    tag: "Operator",
    params: tenantParamsSchema,
    body: rotateWebhookSecretBodySchema,
    success: { status: 201, description: "The new secret (shown once)", schema: webhookSecretViewSchema },
    errorStatuses: [400, 401, 404, 409, 500, 503],
    run: async (tx, { deps, params, body }) => {
      const rotate = deps.rotateWebhookSecret ?? rotationUnavailable();
      const tenant = await loadTenant(tx, params.tenantId);
      const { webhook, secret, signsFrom } = rotate(tenant.webhook, deps.core.clock.now(), {
        immediate: body?.immediate ?? false,
      });
      await tx.tenants.upsert({ ...tenant, webhook });
      return {
        kid: secret.kid,
        secret: secret.secret,
        createdAt: secret.createdAt,
        signsFrom: signsFrom.toISOString(),
      };
    },
  }),
];
