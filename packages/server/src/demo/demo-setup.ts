import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CoreDeps, fundPrefund, getPrefund, scopes, type UnitOfWork } from "@wallet/ledger-core";

/** What `wallet call` needs to sign a tenant request. */
export interface Credentials {
  /** Origin of the service, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  apiKey: string;
  kid: string;
  privateKeyPem: string;
}

export const demoTenantId = "demo";
export const demoKid = "demo-k1";
export const demoCurrency = "KES";
/** 1,000,000.00 KES. */
export const demoPrefundMinor = 100_000_000;

export const demoFiles = {
  config: "wallet.config.json",
  credentials: "credentials.json",
  privateKey: `${demoKid}.private.pem`,
  state: "demo-state.json",
} as const;

export interface DemoSetup {
  dir: string;
  configPath: string;
  credentialsPath: string;
  /** True when this call generated the demo (it did not exist before). */
  created: boolean;
}

/**
 * The zero-config sandbox: created once under `dir`, reused afterwards. The config holds only
 * the API key's hash; the plain key and the private key live in files readable by the owner only.
 */
export function ensureDemo(dir: string, now: Date = new Date()): DemoSetup {
  const configPath = join(dir, demoFiles.config);
  const credentialsPath = join(dir, demoFiles.credentials);
  // The config is written last, so its presence means the whole demo was written.
  if (existsSync(configPath)) return { dir, configPath, credentialsPath, created: false };

  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const apiKey = `wk_demo_${randomBytes(24).toString("base64url")}`;
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();

  writePrivate(join(dir, demoFiles.privateKey), privateKeyPem);
  writeCredentials(credentialsPath, {
    baseUrl: "http://127.0.0.1:8080",
    apiKey,
    kid: demoKid,
    privateKeyPem,
  });
  writeFileAtomic(
    join(dir, demoFiles.state),
    `${JSON.stringify({ createdAt: now.toISOString(), prefundPostedAt: null }, null, 2)}\n`,
  );
  writeFileAtomic(configPath, `${JSON.stringify(demoConfig(apiKey, publicKeyPem), null, 2)}\n`);
  return { dir, configPath, credentialsPath, created: true };
}

/** The demo config: the DESIGN.md example catalog and one tenant holding every scope. */
export function demoConfig(apiKey: string, publicKeyPem: string) {
  return {
    sandbox: true,
    kycLevels: [
      {
        code: "tier_1",
        name: "Basic",
        currency: demoCurrency,
        maxBalanceMinor: 10_000_000,
        maxSingleTxnMinor: 7_000_000,
        aggregateDailyLimitMinor: 15_000_000,
        monthlyOutLimitMinor: null,
        twoFactorThresholdMinor: 100_000,
      },
    ],
    walletProfiles: [{ key: "standard_kes", name: "Standard", currency: demoCurrency }],
    rails: [
      {
        code: "sandbox_mobile",
        kind: "sandbox",
        currency: demoCurrency,
        status: "active",
        payouts: true,
        payins: true,
        intentLifetimeSeconds: 3600,
        payerInstructions: "Pay with reference {reference}",
      },
    ],
    beneficiaries: [{ entityCode: "POWERCO", name: "Power Co", canCollect: true }],
    feeSchedules: [
      {
        ruleCode: "payout_std",
        versionNo: 1,
        operationType: "payout_b2c",
        railCode: null,
        currency: demoCurrency,
        components: [
          { label: "Transfer fee", type: "flat", amountMinor: 2500, refundable: true },
          { label: "Levy", type: "percentage", rateBps: 150, refundable: false },
          { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Transfer fee", refundable: true },
        ],
      },
    ],
    tenants: [
      {
        id: demoTenantId,
        name: "Demo tenant",
        status: "active",
        apiKeys: [{ sha256: createHash("sha256").update(apiKey, "utf8").digest("hex") }],
        signingKeys: [{ kid: demoKid, publicKeyPem, status: "active", expiresAt: null }],
        scopes: [...scopes],
        ipAllowlist: [],
        approvedProfiles: ["standard_kes"],
        defaultProfile: "standard_kes",
        approvedKycLevels: ["tier_1"],
        approvedRails: ["sandbox_mobile"],
        rateLimit: { perSecond: 50, burst: 100 },
      },
    ],
  };
}

/**
 * Posts the demo's opening prefund exactly once per demo: the state file records it, and a
 * balance already above zero (a crash between posting and recording) counts as posted.
 * Returns the balance and whether this call posted it.
 */
export async function fundDemoOnce(
  dir: string,
  uow: UnitOfWork,
  core: CoreDeps,
): Promise<{ posted: boolean; balanceMinor: number }> {
  const statePath = join(dir, demoFiles.state);
  const state = readState(statePath);
  const balance = await uow.run((tx) => getPrefund(core, tx, demoTenantId, demoCurrency));
  if (state.prefundPostedAt !== null || balance.balanceMinor > 0) {
    if (state.prefundPostedAt === null)
      writeState(statePath, { ...state, prefundPostedAt: core.clock.now().toISOString() });
    return { posted: false, balanceMinor: balance.balanceMinor };
  }
  const funded = await uow.run((tx) =>
    fundPrefund(core, tx, { tenantId: demoTenantId, amountMinor: demoPrefundMinor, currency: demoCurrency }),
  );
  writeState(statePath, { ...state, prefundPostedAt: core.clock.now().toISOString() });
  return { posted: true, balanceMinor: funded.balanceMinor };
}

/** Points the demo credentials at the address this run listens on (port 0 changes it every run). */
export function updateCredentialsBaseUrl(path: string, baseUrl: string): void {
  const credentials = readCredentials(path);
  if (credentials.baseUrl !== baseUrl) writeCredentials(path, { ...credentials, baseUrl });
}

export function readCredentials(path: string): Credentials {
  const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<Credentials>;
  for (const field of ["baseUrl", "apiKey", "kid", "privateKeyPem"] as const) {
    if (typeof raw[field] !== "string" || raw[field] === "")
      throw new Error(`${path}: "${field}" is missing`);
  }
  return raw as Credentials;
}

export function writeCredentials(path: string, credentials: Credentials): void {
  writePrivate(path, `${JSON.stringify(credentials, null, 2)}\n`);
}

interface DemoState {
  createdAt: string;
  prefundPostedAt: string | null;
}

function readState(path: string): DemoState {
  try {
    const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<DemoState>;
    return { createdAt: raw.createdAt ?? "", prefundPostedAt: raw.prefundPostedAt ?? null };
  } catch {
    return { createdAt: "", prefundPostedAt: null };
  }
}

const writeState = (path: string, state: DemoState) =>
  writeFileAtomic(path, `${JSON.stringify(state, null, 2)}\n`);

/** Owner-only file, written through a temporary name so a crash never leaves half a key. */
export function writePrivate(path: string, content: string): void {
  writeFileAtomic(path, content, 0o600);
}

function writeFileAtomic(path: string, content: string, mode = 0o644): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  chmodSync(tmp, mode); // the umask may have narrowed or the file may have existed
  renameSync(tmp, path);
}
