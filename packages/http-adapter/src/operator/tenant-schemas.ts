import { createPublicKey } from "node:crypto";
import { isIP } from "node:net";
import { eventTypes, scopes, signingKeyStatuses, tenantStatuses } from "@wallet/ledger-core";
import * as v from "valibot";
import { boundedString, instantViewSchema, isoTimestampSchema } from "../validation/common-schemas.js";

/*
 * Operator routes on a tenant (DESIGN.md section 9): status, scopes, allowlist, rate limit, signing
 * keys and webhook. Requests are strict; views never carry a secret (no API key hash, no webhook
 * secret; public keys are public).
 */

const tenantIdSchema = boundedString(1, 128);

/** The config file's kid grammar, so a kid added here is one the config could have declared. */
const kidSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9._:-]{1,64}$/, "must be 1-64 characters of A-Z a-z 0-9 . _ : -"),
);

export const tenantParamsSchema = v.strictObject({ tenantId: tenantIdSchema });
export const signingKeyParamsSchema = v.strictObject({ tenantId: tenantIdSchema, kid: kidSchema });
/** An API key is named by its SHA-256 (lower-case hex), the only form the database holds. */
export const apiKeyParamsSchema = v.strictObject({
  tenantId: tenantIdSchema,
  sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hexadecimal characters")),
});

const uniqueItems = <T>(items: readonly T[]) => new Set(items).size === items.length;

/**
 * `10.0.0.0/8`, `2001:db8::/32` or a bare address (stored as a block of one, the notation the
 * config seeding stores too).
 */
const cidrSchema = v.pipe(
  v.string(),
  v.maxLength(64, "must be at most 64 characters"),
  v.check((s) => normalizeCidr(s) !== null, "must be a CIDR block such as 10.0.0.0/8"),
  v.transform((s) => normalizeCidr(s) ?? s),
);

export function normalizeCidr(value: string): string | null {
  const [address = "", prefixText, ...rest] = value.split("/");
  if (rest.length > 0) return null;
  const family = isIP(address);
  if (family === 0) return null;
  const bits = family === 4 ? 32 : 128;
  if (prefixText === undefined) return `${address}/${bits}`;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > bits) return null;
  return `${address}/${Number(prefixText)}`;
}

const countSchema = (max: number) =>
  v.pipe(
    v.number(),
    v.safeInteger("must be an integer"),
    v.minValue(1, "must be at least 1"),
    v.maxValue(max, `must be at most ${max}`),
  );

/** PATCH /tenants/{tenantId}: only the fields the operator owns (docs/operations.md, precedence). */
export const patchTenantBodySchema = v.strictObject({
  status: v.optional(v.picklist(tenantStatuses, `must be one of ${tenantStatuses.join(", ")}`)),
  scopes: v.optional(
    v.pipe(
      v.array(v.picklist(scopes, "must be a known scope")),
      v.maxLength(scopes.length, `must have at most ${scopes.length} items`),
      v.check(uniqueItems, "must not repeat a scope"),
    ),
  ),
  ipAllowlist: v.optional(
    v.pipe(
      v.array(cidrSchema),
      v.maxLength(256, "must have at most 256 items"),
      v.check(uniqueItems, "must not repeat a block"),
    ),
  ),
  rateLimit: v.optional(v.strictObject({ perSecond: countSchema(1_000_000), burst: countSchema(1_000_000) })),
});

/**
 * The PEM of an Ed25519 public key in SPKI form, re-exported canonically; null for anything else.
 * A private key PEM is refused although node:crypto would derive its public key: an operator who
 * pastes one has leaked it, and must not be told it worked.
 */
export function ed25519SpkiPem(pem: string): string | null {
  const text = pem.trim();
  if (!/^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----$/.test(text)) return null;
  try {
    const key = createPublicKey({ key: text, format: "pem" });
    if (key.asymmetricKeyType !== "ed25519") return null;
    return key.export({ type: "spki", format: "pem" }).toString();
  } catch {
    return null;
  }
}

/** POST /tenants/{tenantId}/signing-keys. */
export const addSigningKeyBodySchema = v.strictObject({
  kid: kidSchema,
  publicKeyPem: v.pipe(
    boundedString(1, 4000),
    v.check((pem) => ed25519SpkiPem(pem) !== null, "must be an Ed25519 public key in PEM (SPKI)"),
    v.transform((pem) => ed25519SpkiPem(pem) ?? pem),
  ),
  expiresAt: v.optional(v.nullable(isoTimestampSchema)),
});

/** PUT /tenants/{tenantId}/webhook: the whole config but its secrets (rotated on their own route). */
export const putWebhookBodySchema = v.strictObject({
  url: v.nullable(
    v.pipe(
      v.string(),
      v.maxLength(2000, "must be at most 2000 characters"),
      v.check(isHttpUrl, "must be an http(s) URL"),
    ),
  ),
  events: v.pipe(
    v.array(v.picklist(eventTypes, "must be an event type of the spec's list")),
    v.maxLength(eventTypes.length, `must have at most ${eventTypes.length} items`),
    v.check(uniqueItems, "must not repeat an event type"),
  ),
  enabled: v.boolean(),
});

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === "http:" || u.protocol === "https:") && u.username === "" && u.password === "";
  } catch {
    return false;
  }
}

export const signingKeyViewSchema = v.object({
  tenantId: v.string(),
  kid: v.string(),
  publicKeyPem: v.string(),
  status: v.picklist(signingKeyStatuses),
  expiresAt: v.nullable(instantViewSchema),
  createdAt: instantViewSchema,
});

export const webhookConfigViewSchema = v.object({
  url: v.nullable(v.string()),
  enabled: v.boolean(),
  /** Empty: every event type. */
  events: v.array(v.string()),
  /** Which secrets exist, newest last; the secrets themselves are shown once, at rotation. */
  secretKids: v.array(v.object({ kid: v.string(), createdAt: instantViewSchema })),
});

export const tenantViewSchema = v.object({
  id: v.string(),
  name: v.string(),
  status: v.picklist(tenantStatuses),
  scopes: v.array(v.string()),
  ipAllowlist: v.array(v.string()),
  approvedProfiles: v.array(v.string()),
  defaultProfile: v.nullable(v.string()),
  approvedKycLevels: v.array(v.string()),
  approvedRails: v.array(v.string()),
  rateLimit: v.object({ perSecond: v.number(), burst: v.number() }),
  webhook: webhookConfigViewSchema,
  signingKeys: v.array(signingKeyViewSchema),
});

export const apiKeyViewSchema = v.object({
  tenantId: v.string(),
  sha256: v.string(),
  status: v.picklist(["active", "revoked"]),
  revokedAt: v.nullable(instantViewSchema),
});

/** A new API key: the key itself is in this answer and nowhere else, ever. */
export const createdApiKeyViewSchema = v.object({
  tenantId: v.string(),
  key: v.string(),
  sha256: v.string(),
  status: v.literal("active"),
});

export const webhookSecretViewSchema = v.object({
  kid: v.string(),
  secret: v.string(),
  createdAt: instantViewSchema,
  /** When it starts signing: at once for a tenant's first or an immediate one, else shortly before the old one ends. */
  signsFrom: instantViewSchema,
});

/** POST .../webhook/secrets: no body, or `{ "immediate": true }` for a secret that leaked. */
export const rotateWebhookSecretBodySchema = v.optional(
  v.strictObject({ immediate: v.optional(v.boolean("immediate must be true or false")) }),
);
