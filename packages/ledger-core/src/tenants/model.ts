/** Scopes in use (spec, Authentication). */
export const scopes = [
  "customers:read",
  "customers:write",
  "customers:pii",
  "wallets:read",
  "wallet-credits:write",
  "wallet-debits:write",
  "mandates:read",
  "mandates:write",
  "payouts:write",
  "topup-intents:write",
  "operations:read",
] as const;
export type Scope = (typeof scopes)[number];

export const tenantStatuses = ["active", "suspended"] as const;
export type TenantStatus = (typeof tenantStatuses)[number];

export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface WebhookSecret {
  kid: string;
  secret: string;
  createdAt: string;
  /**
   * When it starts signing, if not the default (a tenant's first secret: its `createdAt`; one that
   * replaced another: shortly before that one stops verifying, 24 h on). A rotation marked
   * immediate sets it to `createdAt`.
   */
  signsFrom?: string;
}

export interface WebhookConfig {
  url: string | null;
  enabled: boolean;
  /** Exact event types; empty subscribes to everything. */
  events: string[];
  secrets: WebhookSecret[];
}

/** A tenant account as the service holds it. API keys and signing keys live beside it. */
export interface Tenant {
  id: string;
  name: string;
  status: TenantStatus;
  scopes: Scope[];
  /** CIDR blocks; empty means any address. */
  ipAllowlist: string[];
  approvedProfiles: string[];
  defaultProfile: string | null;
  approvedKycLevels: string[];
  approvedRails: string[];
  rateLimit: RateLimit;
  webhook: WebhookConfig;
}

export const signingKeyStatuses = ["active", "revoked"] as const;
export type SigningKeyStatus = (typeof signingKeyStatuses)[number];

export interface SigningKey {
  tenantId: string;
  kid: string;
  publicKeyPem: string;
  status: SigningKeyStatus;
  expiresAt: string | null;
  createdAt: string;
}

/** An API key as stored: only its SHA-256; revoked keys stay, so seeding never adds them back. */
export interface ApiKeyRecord {
  tenantId: string;
  sha256: string;
  revokedAt: string | null;
}

/** What authentication needs about the caller, resolved from the API key. */
export interface TenantCredentials {
  tenant: Tenant;
  signingKey: SigningKey | null;
}

/** True when the tenant may act through the webhook for this event type right now. */
export const webhookWants = (webhook: WebhookConfig, eventType: string): boolean =>
  webhook.enabled &&
  webhook.url !== null &&
  (webhook.events.length === 0 || webhook.events.includes(eventType));
