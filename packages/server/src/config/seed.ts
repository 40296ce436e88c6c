import { createHash, createPublicKey } from "node:crypto";
import type { Clock, Tenant, Tx, UnitOfWork } from "@wallet/ledger-core";
import { ConfigError } from "./config-error.js";
import type { TenantConfig, WalletConfig } from "./schema.js";
import { toSigningKeys, toTenant } from "./to-core.js";

export interface SeedReport {
  /** Tenants that were not in the database and were inserted whole. */
  inserted: string[];
  /** Existing tenants whose config-owned fields changed. */
  updated: string[];
  apiKeysAdded: number;
  signingKeysAdded: number;
  /** Signing keys active in the database that the file marks revoked, revoked now. */
  signingKeysRevoked: number;
  /**
   * `tenant/kid` of the file's signing keys whose public key is not the one the database holds
   * under that kid: left as they are (a kid names one key for good; rotate under a new kid).
   */
  signingKeysDiffering: string[];
}

/**
 * Applies the config to the store, idempotently, at every start (docs/operations.md, "Config
 * precedence"). The file owns what the operator declares once (name, approvals, default
 * profile); the operator API owns what changes at run time (status, scopes, allowlist, rate
 * limit, webhook, key statuses), so a restart never silently undoes an operator's change.
 * Credentials are only ever added: a key missing from the file is not removed, and a key the
 * operator revoked is not re-activated. A revocation goes one way only, so the file's applies: a
 * kid the file marks `revoked` is revoked in the database too (an operator revoking a leaked key
 * in the file must not find it still signing).
 */
export async function seedFromConfig(
  uow: UnitOfWork,
  config: WalletConfig,
  clock: Clock,
): Promise<SeedReport> {
  const report: SeedReport = {
    inserted: [],
    updated: [],
    apiKeysAdded: 0,
    signingKeysAdded: 0,
    signingKeysRevoked: 0,
    signingKeysDiffering: [],
  };
  await uow.run(async (tx) => {
    const now = clock.now();
    for (const [i, t] of config.tenants.entries()) {
      const existing = await tx.tenants.getForUpdate(t.id);
      if (existing === null) {
        assertInsertable(t, i, now);
        await tx.tenants.upsert(toTenant(t, now));
        report.inserted.push(t.id);
      } else {
        const merged = withConfigOwnedFields(existing, t);
        if (JSON.stringify(merged) !== JSON.stringify(existing)) {
          await tx.tenants.upsert(merged);
          report.updated.push(t.id);
        }
      }

      for (const hash of await apiKeysToAdd(tx, t, i)) {
        await tx.tenants.addApiKeyHash(t.id, hash);
        report.apiKeysAdded++;
      }

      const known = new Map((await tx.tenants.listSigningKeys(t.id)).map((k) => [k.kid, k]));
      for (const key of toSigningKeys(t, now)) {
        const stored = known.get(key.kid);
        if (stored === undefined) {
          await tx.tenants.addSigningKey(key);
          report.signingKeysAdded++;
          continue;
        }
        if (key.status === "revoked" && stored.status !== "revoked") {
          await tx.tenants.setSigningKeyStatus(t.id, key.kid, "revoked");
          report.signingKeysRevoked++;
        }
        if (!samePublicKey(key.publicKeyPem, stored.publicKeyPem)) {
          report.signingKeysDiffering.push(`${t.id}/${key.kid}`);
        }
      }
    }
  });
  return report;
}

/**
 * The file's tenant `i`'s API keys that no tenant holds yet, or a refusal when one of them belongs
 * to another tenant (`serve`'s seed adds them; `wallet migrate` only checks, before a
 * deployment's servers would refuse the file).
 */
export async function apiKeysToAdd(tx: Tx, t: TenantConfig, i: number): Promise<string[]> {
  const toAdd: string[] = [];
  for (const [j, hash] of apiKeyHashes(t).entries()) {
    const owner = await tx.tenants.findByApiKeyHash(hash);
    if (owner === null) toAdd.push(hash);
    else if (owner !== t.id) {
      throw new ConfigError(`tenants[${i}].apiKeys[${j}]`, "API key already belongs to another tenant");
    }
  }
  return toAdd;
}

/**
 * The checks of the file's tenant `i` that apply only when the seed inserts it (a tenant already
 * in the database keeps what the operator API made of it). They read the file and the clock
 * only, so `wallet migrate` runs them too, before a deployment's servers would refuse the file.
 */
export function assertInsertable(t: TenantConfig, i: number, now: Date): void {
  assertDeliverableWebhook(t, i);
  assertSecretsNotAhead(t, i, now);
}

/** Each tenant of the file that the seed would refuse to insert at `now`, with the reason. */
export function insertRefusals(config: WalletConfig, now: Date): { tenantId: string; error: ConfigError }[] {
  const out: { tenantId: string; error: ConfigError }[] = [];
  for (const [i, t] of config.tenants.entries()) {
    try {
      assertInsertable(t, i, now);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      out.push({ tenantId: t.id, error: e });
    }
  }
  return out;
}

/**
 * The file's webhook of a tenant inserted now (after that, the operator API owns it), checked as
 * the operator API's PUT .../webhook does: enabled, it needs somewhere to send and a secret to
 * sign with, or every event would be written and then fail without a POST.
 */
function assertDeliverableWebhook(t: TenantConfig, i: number): void {
  if (!t.webhook?.enabled) return;
  if (t.webhook.url === null) {
    throw new ConfigError(
      `tenants[${i}].webhook.url`,
      'required when "enabled" is true (set "enabled": false to turn it off)',
    );
  }
  if (t.webhook.secrets.length === 0) {
    throw new ConfigError(
      `tenants[${i}].webhook.secrets`,
      'at least one secret when "enabled" is true (events are signed)',
    );
  }
}

/** How far ahead of the clock a webhook secret's createdAt may be (a clock skew, not a plan). */
const SECRET_AHEAD_MS_MAX = 5 * 60_000;

/**
 * A webhook secret dated in the future at first insert: rotation (which needs the new secret to
 * be the newest) would be refused until that date, and no operator route can change the date.
 */
function assertSecretsNotAhead(t: TenantConfig, i: number, now: Date): void {
  for (const [j, s] of (t.webhook?.secrets ?? []).entries()) {
    if (s.createdAt !== undefined && Date.parse(s.createdAt) > now.getTime() + SECRET_AHEAD_MS_MAX) {
      throw new ConfigError(
        `tenants[${i}].webhook.secrets[${j}].createdAt`,
        "must not be in the future (it would block every rotation until then)",
      );
    }
  }
}

/** The existing tenant with the fields the file owns taken from the file. */
function withConfigOwnedFields(existing: Tenant, t: TenantConfig): Tenant {
  return {
    ...existing,
    name: t.name,
    approvedProfiles: [...t.approvedProfiles],
    defaultProfile: t.defaultProfile,
    approvedKycLevels: [...t.approvedKycLevels],
    approvedRails: [...t.approvedRails],
  };
}

/** Plain keys (sandbox only) are hashed here and never stored or logged as they are. */
export const apiKeyHashes = (t: TenantConfig): string[] =>
  t.apiKeys.map((k) => k.sha256 ?? sha256Hex(k.key ?? ""));

export const sha256Hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex");

/** Whether two PEMs hold the same public key, however they are wrapped. */
function samePublicKey(a: string, b: string): boolean {
  const der = (pem: string) => createPublicKey(pem).export({ type: "spki", format: "der" });
  try {
    return der(a).equals(der(b));
  } catch {
    return a.trim() === b.trim();
  }
}
