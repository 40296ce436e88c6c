import type { Catalog, FeeComponent, SigningKey, Tenant } from "@wallet/ledger-core";
import { parseCidr } from "./cross-check.js";
import type { TenantConfig, WalletConfig } from "./schema.js";

/** The ledger-core catalog described by the config (identical in every process). */
export function toCatalog(config: WalletConfig): Catalog {
  return {
    kycLevels: config.kycLevels.map((l) => ({ ...l })),
    walletProfiles: config.walletProfiles.map((p) => ({ ...p })),
    // The automatic-outcome rule is the server's scheduler's business, not the core's.
    rails: config.rails.map(({ autoPayoutOutcome: _rule, autoOutcomeDelaySeconds: _delay, ...r }) => ({
      ...r,
    })),
    beneficiaries: config.beneficiaries.map((b) => ({ ...b })),
    feeSchedules: config.feeSchedules.map((f) => ({
      ...f,
      components: f.components.map((c): FeeComponent => ({ ...c })),
    })),
  };
}

/** A tenant of the config as the store holds it, without its keys (see `toSigningKeys`). */
export function toTenant(t: TenantConfig, at: Date): Tenant {
  return {
    id: t.id,
    name: t.name,
    status: t.status,
    scopes: [...t.scopes],
    ipAllowlist: t.ipAllowlist.map(normalizeCidr),
    approvedProfiles: [...t.approvedProfiles],
    defaultProfile: t.defaultProfile,
    approvedKycLevels: [...t.approvedKycLevels],
    approvedRails: [...t.approvedRails],
    rateLimit: { ...t.rateLimit },
    webhook: {
      url: t.webhook?.url ?? null,
      enabled: t.webhook?.enabled ?? false,
      events: [...(t.webhook?.events ?? [])],
      secrets: (t.webhook?.secrets ?? []).map((s) => ({
        kid: s.kid,
        secret: s.secret,
        createdAt: new Date(s.createdAt ?? at).toISOString(),
      })),
    },
  };
}

/** Every tenant of the config; `at` stamps webhook secrets that carry no createdAt. */
export const toTenants = (config: WalletConfig, at: Date = new Date(0)): Tenant[] =>
  config.tenants.map((t) => toTenant(t, at));

export function toSigningKeys(t: TenantConfig, at: Date): SigningKey[] {
  return t.signingKeys.map((k) => ({
    tenantId: t.id,
    kid: k.kid,
    publicKeyPem: k.publicKeyPem.trim().concat("\n"),
    status: k.status,
    expiresAt: k.expiresAt === null ? null : new Date(k.expiresAt).toISOString(),
    createdAt: at.toISOString(),
  }));
}

/** A bare address becomes a block of one, so the allowlist holds one notation. */
function normalizeCidr(value: string): string {
  const parsed = parseCidr(value);
  return parsed === null ? value : `${parsed.address}/${parsed.prefix}`;
}
