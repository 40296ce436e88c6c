import { isIP } from "node:net";
import { ed25519SpkiPem } from "@wallet/http-adapter";
import { railOperationTypes } from "@wallet/ledger-core";
import type { WalletConfig } from "./schema.js";

/** One problem found by a rule that relates several values of the config. */
export interface ConfigIssue {
  path: (string | number)[];
  message: string;
}

/**
 * Rules the per-field schema cannot express: uniqueness, references between sections, and what
 * sandbox mode allows. Returns every issue in document order; the loader reports the first.
 */
export function crossCheck(config: WalletConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (path: (string | number)[], message: string) => issues.push({ path, message });

  const unique = <T>(
    section: string,
    items: readonly T[],
    keyOf: (t: T) => string,
    field: string,
    what: string,
  ) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const key = keyOf(item);
      if (seen.has(key)) add([section, i, field], `duplicate ${what} "${key}"`);
      seen.add(key);
    });
    return seen;
  };

  const kycCodes = unique("kycLevels", config.kycLevels, (l) => l.code, "code", "code");
  const profileKeys = unique("walletProfiles", config.walletProfiles, (p) => p.key, "key", "key");
  const railCodes = unique("rails", config.rails, (r) => r.code, "code", "code");
  unique("beneficiaries", config.beneficiaries, (b) => b.entityCode, "entityCode", "entityCode");
  unique(
    "feeSchedules",
    config.feeSchedules,
    (f) => `${f.ruleCode} v${f.versionNo}`,
    "versionNo",
    "rule version",
  );
  unique("tenants", config.tenants, (t) => t.id, "id", "tenant id");

  /** Every entry of a list of CIDR blocks (trusted proxies, a tenant's allowlist) parses. */
  const cidrBlocks = (list: readonly string[], pathOf: (i: number) => (string | number)[]) =>
    list.forEach((cidr, i) => {
      if (parseCidr(cidr) === null) add(pathOf(i), `expected a CIDR block (e.g. 10.0.0.0/8), got "${cidr}"`);
    });

  cidrBlocks(config.trustedProxies, (i) => ["trustedProxies", i]);

  const { leaseMs, timeoutMs } = config.webhooks;
  if (leaseMs !== undefined && leaseMs <= timeoutMs) {
    add(["webhooks", "leaseMs"], `must be longer than webhooks.timeoutMs (${timeoutMs})`);
  }

  config.rails.forEach((rail, i) => {
    if (rail.kind !== "sandbox" && rail.autoPayoutOutcome !== null) {
      add(
        ["rails", i, "autoPayoutOutcome"],
        `only a sandbox rail takes automatic outcomes; this one is "${rail.kind}"`,
      );
    }
  });

  // The highest versionNo of a slot applies; a tie would leave the choice to the order in the file.
  const slots = new Map<string, number>();
  config.feeSchedules.forEach((schedule, i) => {
    const slot = `${schedule.operationType} ${schedule.currency} ${schedule.railCode ?? "(any rail)"} v${schedule.versionNo}`;
    const first = slots.get(slot);
    if (first === undefined) slots.set(slot, i);
    else {
      const other = config.feeSchedules[first]!;
      add(
        ["feeSchedules", i, "versionNo"],
        `ties with feeSchedules[${first}] ("${other.ruleCode}" v${other.versionNo}) for ${schedule.operationType} ${schedule.currency} ${schedule.railCode === null ? "on any rail" : `on rail "${schedule.railCode}"`}: the highest versionNo applies, so they must differ`,
      );
    }
  });

  config.feeSchedules.forEach((schedule, i) => {
    if (schedule.railCode !== null && !railCodes.has(schedule.railCode)) {
      add(["feeSchedules", i, "railCode"], `unknown rail "${schedule.railCode}"`);
    } else if (schedule.railCode !== null && !railOperationTypes.includes(schedule.operationType)) {
      // Credits and debits go through no rail: such a schedule would never be charged, yet a
      // quote naming the rail would show it.
      add(
        ["feeSchedules", i, "railCode"],
        `must be null for ${schedule.operationType} (only payout_b2c and topup_c2b go through a rail)`,
      );
    }
    const labels = new Map<string, string>();
    schedule.components.forEach((c, j) => {
      if (labels.has(c.label))
        add(["feeSchedules", i, "components", j, "label"], `duplicate label "${c.label}"`);
      labels.set(c.label, c.type);
    });
    schedule.components.forEach((c, j) => {
      if (c.type !== "vat" || c.appliesToLabel === null) return;
      const target = labels.get(c.appliesToLabel);
      const path = ["feeSchedules", i, "components", j, "appliesToLabel"];
      if (target === undefined) add(path, `no component labelled "${c.appliesToLabel}"`);
      // Tax on tax is not a thing a fee schedule states; it is a typo for the fee it meant.
      else if (target === "vat")
        add(path, `"${c.appliesToLabel}" is a vat component; name a flat or percentage one`);
    });
  });

  // An API key identifies exactly one tenant, so a hash may appear once in the whole file.
  const apiKeyOwners = new Set<string>();
  config.tenants.forEach((tenant, i) => {
    const at = (...rest: (string | number)[]) => ["tenants", i, ...rest];

    tenant.apiKeys.forEach((k, j) => {
      const hasKey = k.key !== undefined;
      const hasHash = k.sha256 !== undefined;
      if (hasKey === hasHash) {
        add(at("apiKeys", j), 'expected exactly one of "key" or "sha256"');
        return;
      }
      if (hasKey && !config.sandbox) {
        add(
          at("apiKeys", j, "key"),
          'plain API keys are allowed only when "sandbox" is true; give its "sha256"',
        );
      }
      const id = hasKey ? `key:${k.key}` : `sha256:${k.sha256}`;
      if (apiKeyOwners.has(id)) add(at("apiKeys", j), "duplicate API key");
      apiKeyOwners.add(id);
    });

    const kids = new Set<string>();
    tenant.signingKeys.forEach((k, j) => {
      if (kids.has(k.kid)) add(at("signingKeys", j, "kid"), `duplicate kid "${k.kid}"`);
      kids.add(k.kid);
      // A private key is refused too (node:crypto would derive its public key): it would be stored
      // and shown back by the operator API, and an operator who pasted one has leaked it.
      if (ed25519SpkiPem(k.publicKeyPem) === null) {
        add(
          at("signingKeys", j, "publicKeyPem"),
          "expected an Ed25519 public key in PEM (SPKI: BEGIN PUBLIC KEY), never a private key",
        );
      }
    });

    tenant.scopes.forEach((s, j) => {
      if (tenant.scopes.indexOf(s) !== j) add(at("scopes", j), `duplicate scope "${s}"`);
    });

    cidrBlocks(tenant.ipAllowlist, (j) => at("ipAllowlist", j));

    const approved = (
      field: "approvedProfiles" | "approvedKycLevels" | "approvedRails",
      known: Set<string>,
    ) =>
      tenant[field].forEach((c, j) => {
        if (!known.has(c)) add(at(field, j), `unknown ${noun[field]} "${c}"`);
        else if (tenant[field].indexOf(c) !== j) add(at(field, j), `duplicate ${noun[field]} "${c}"`);
      });
    approved("approvedProfiles", profileKeys);
    approved("approvedKycLevels", kycCodes);
    approved("approvedRails", railCodes);

    if (tenant.defaultProfile !== null && !tenant.approvedProfiles.includes(tenant.defaultProfile)) {
      add(at("defaultProfile"), `"${tenant.defaultProfile}" is not in approvedProfiles`);
    }

    if (tenant.webhook !== undefined) {
      const secretKids = new Set<string>();
      tenant.webhook.secrets.forEach((s, j) => {
        if (secretKids.has(s.kid)) add(at("webhook", "secrets", j, "kid"), `duplicate kid "${s.kid}"`);
        secretKids.add(s.kid);
        // Sandbox configs may carry short test secrets; production HMAC secrets must resist guessing.
        if (!config.sandbox && s.secret.length < 16) {
          add(at("webhook", "secrets", j, "secret"), "must be at least 16 characters outside sandbox");
        }
      });
      tenant.webhook.events.forEach((e, j) => {
        if (tenant.webhook?.events.indexOf(e) !== j)
          add(at("webhook", "events", j), `duplicate event "${e}"`);
      });
    }
  });

  return issues;
}

const noun = { approvedProfiles: "profile", approvedKycLevels: "KYC level", approvedRails: "rail" } as const;

/** `10.0.0.0/8`, `2001:db8::/32`, or a bare address (a block of one). Null when it does not parse. */
export function parseCidr(value: string): { address: string; prefix: number; family: 4 | 6 } | null {
  const slash = value.indexOf("/");
  const address = slash === -1 ? value : value.slice(0, slash);
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const max = family === 4 ? 32 : 128;
  if (slash === -1) return { address, prefix: max, family };
  const prefixText = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : null;
}
