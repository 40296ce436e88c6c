import type { ApiKeyRecord, SigningKey, Tenant, TenantCredentials } from "./model.js";

export interface TenantRepository {
  get(id: string): Promise<Tenant | null>;
  /**
   * The tenant, locked until the transaction ends (Postgres `FOR UPDATE`; SQLite's writer lock):
   * read it this way before writing it back, so two concurrent operator changes cannot lose one.
   */
  getForUpdate(id: string): Promise<Tenant | null>;
  list(): Promise<Tenant[]>;
  /** Inserts or replaces the tenant row (config seeding, operator changes). */
  upsert(t: Tenant): Promise<void>;
  /** Tenant id owning the API key with this SHA-256 hex, revoked or not, or null. */
  findByApiKeyHash(apiKeySha256: string): Promise<string | null>;
  /**
   * What authenticating a request needs, in one read: the tenant owning the API key and its
   * signing key `kid` (null when the tenant has no such key); null when no tenant owns the key or
   * the key is revoked.
   */
  findCredentials(apiKeySha256: string, kid: string): Promise<TenantCredentials | null>;
  /** Adds an active key; a key the tenant already holds (revoked or not) is left as it is. */
  addApiKeyHash(tenantId: string, apiKeySha256: string): Promise<void>;
  /** The tenant's API key with this SHA-256 hex, or null (another tenant's key is null too). */
  getApiKey(tenantId: string, apiKeySha256: string): Promise<ApiKeyRecord | null>;
  /** Marks the tenant's key revoked at `revokedAt`; a key revoked already keeps its first time. */
  revokeApiKey(tenantId: string, apiKeySha256: string, revokedAt: string): Promise<void>;
  getSigningKey(tenantId: string, kid: string): Promise<SigningKey | null>;
  listSigningKeys(tenantId: string): Promise<SigningKey[]>;
  /** Inserts the key if the kid is new; an existing kid is left as it is (operator changes win). */
  addSigningKey(k: SigningKey): Promise<void>;
  setSigningKeyStatus(tenantId: string, kid: string, status: SigningKey["status"]): Promise<void>;
}

/**
 * Seen request signatures, kept for 600 s. In the database so that several processes on one
 * Postgres refuse the same replay.
 */
export interface ReplayGuardRepository {
  /** Records the signature; false when it was already seen and not yet expired. */
  remember(signature: string, now: string, expiresAt: string): Promise<boolean>;
}
