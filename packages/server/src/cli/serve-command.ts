import { join, relative, resolve } from "node:path";
import { loadConfig } from "../config/load-config.js";
import type { WalletConfig } from "../config/schema.js";
import { resolvePiiKeys } from "../crypto/pii-keys.js";
import {
  demoCurrency,
  demoTenantId,
  ensureDemo,
  fundDemoOnce,
  updateCredentialsBaseUrl,
} from "../demo/demo-setup.js";
import { defaultDatabaseUrl, redactDatabaseUrl, resolveDatabaseUrl } from "../server/database-url.js";
import { createLogger, logLevelFrom } from "../server/logger.js";
import { startServer } from "../server/start-server.js";
import { parseCommandArgs, parsePort } from "./args.js";
import { type CliIo, line, UsageError } from "./io.js";

export const serveOptions = {
  config: { type: "string" },
  db: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  "data-dir": { type: "string" },
  /** Run no periodic job and no webhook delivery here: tests drive them, or another process runs them. */
  "no-scheduler": { type: "boolean" },
  /** Do not serve the interactive API reference at GET /docs. */
  "no-reference": { type: "boolean" },
} as const;

/**
 * `wallet serve`: with a config (`--config` or `WALLET_CONFIG`) it serves that; with none it
 * creates the sandbox demo once under `./data/demo` and serves it. Resolves with the exit code
 * once the server has shut down (`io.signal` aborted).
 */
export async function serveCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, serveOptions);
  if (positionals.length > 0) throw new UsageError(`serve: unexpected "${positionals[0]}"`);
  const cwd = io.cwd ?? process.cwd();
  const env = io.env;
  const port =
    values.port !== undefined ? parsePort(values.port, "--port") : parsePort(env.PORT || "8080", "PORT");
  const host = values.host ?? "127.0.0.1";
  const configOption = values.config ?? (env.WALLET_CONFIG || undefined);

  let config: WalletConfig;
  let dataDir: string;
  let demo: ReturnType<typeof ensureDemo> | null = null;
  let fallbackDatabaseUrl = defaultDatabaseUrl;
  if (configOption !== undefined) {
    config = loadConfig(resolve(cwd, configOption));
    dataDir = resolve(cwd, values["data-dir"] ?? "data");
  } else {
    dataDir = resolve(cwd, values["data-dir"] ?? join("data", "demo"));
    demo = ensureDemo(dataDir);
    config = loadConfig(demo.configPath);
    fallbackDatabaseUrl = `sqlite:${join(dataDir, "wallet.db")}`;
  }
  const databaseUrl = resolveDatabaseUrl(values.db ?? (env.WALLET_DATABASE_URL || fallbackDatabaseUrl), cwd);
  const piiKeys = resolvePiiKeys({ env, sandbox: config.sandbox, dataDir });
  const adminToken = env.WALLET_ADMIN_TOKEN || null;
  const logger = createLogger((text) => io.stdout(text), logLevelFrom(env.LOG_LEVEL));

  if (adminToken !== null && adminToken.length < 16) {
    logger.warn({}, "WALLET_ADMIN_TOKEN is shorter than 16 characters; use a long random token");
  }

  const scheduler = values["no-scheduler"] === undefined;
  const running = await startServer({
    config,
    databaseUrl,
    piiKeys,
    piiKeySource: piiKeys.source,
    port,
    host,
    adminToken,
    logger,
    scheduler,
    referencePage: values["no-reference"] === undefined,
  });
  logger.info(
    {
      url: running.url,
      database: redactDatabaseUrl(databaseUrl),
      sandbox: config.sandbox,
      operatorApi: adminToken !== null,
      piiKeySource: piiKeys.source === "WALLET_PII_KEY" ? "WALLET_PII_KEY" : "file",
      tenants: config.tenants.length,
      scheduler,
    },
    "listening",
  );

  try {
    if (demo !== null) {
      updateCredentialsBaseUrl(demo.credentialsPath, running.url);
      const funding = await fundDemoOnce(dataDir, running.store.uow, running.core);
      if (funding.posted)
        logger.info({ tenantId: demoTenantId, amountMinor: funding.balanceMinor }, "demo prefund posted");
      // For the person at the terminal: stderr, so stdout stays JSON lines a log shipper can parse.
      io.stderr(
        demoBanner({
          url: running.url,
          dataDir,
          cwd,
          created: demo.created,
          explicitDataDir: values["data-dir"] !== undefined,
          balanceMinor: funding.balanceMinor,
          reference: values["no-reference"] === undefined,
        }),
      );
    }
  } catch (e) {
    await running.close();
    throw e;
  }

  io.onListening?.(running);
  await untilAborted(io.signal);
  await running.close();
  return 0;
}

function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

const exampleCustomer = JSON.stringify({
  customerType: "person",
  displayName: "Jane Demo",
  identifiers: [
    {
      class: "contact",
      type: "msisdn",
      value: "+254700000001",
      isPrimary: true,
      verificationStatus: "verified",
      verifiedAt: "2026-01-01T00:00:00.000Z",
    },
  ],
  kyc: {
    tierCode: "tier_1",
    reviewType: "onboarding",
    verificationSource: "demo",
    sourceReference: "demo-kyc-1",
    evidence: { method: "demo" },
    riskRating: "low",
  },
  agreements: [
    {
      agreementType: "wallet_opening",
      documentType: "terms",
      documentVersion: "1",
      documentUri: "https://example.com/terms/1",
      documentHash: "0".repeat(64),
      acceptedAt: "2026-01-01T00:00:00.000Z",
      acceptedChannel: "app",
      evidence: { method: "checkbox" },
    },
  ],
});

function demoBanner(o: {
  url: string;
  dataDir: string;
  cwd: string;
  created: boolean;
  explicitDataDir: boolean;
  balanceMinor: number;
  reference: boolean;
}): string {
  const shownDir = relative(o.cwd, o.dataDir) || ".";
  const dirFlag = o.explicitDataDir ? ` --data-dir ${shownDir}` : "";
  const major = Math.trunc(o.balanceMinor / 100).toLocaleString("en-US");
  const minor = String(o.balanceMinor % 100).padStart(2, "0");
  return [
    "",
    o.created
      ? `Demo sandbox created in ${shownDir}/ (reused on later runs).`
      : `Demo sandbox from ${shownDir}/ (reused: the data of earlier runs is still there).`,
    // The origin, as credentials.json and the SDK's baseUrl take it; the routes sit under the prefix.
    `  Base URL:    ${o.url} (tenant API under /api/v1/tenant)`,
    `  Tenant:      ${demoTenantId} (every scope; prefund ${major}.${minor} ${demoCurrency})`,
    `  Credentials: ${shownDir}/credentials.json (API key, kid, private key; keep private)`,
    ...(o.reference ? [`  Reference:   ${o.url}/docs (interactive API reference)`] : []),
    "Try:",
    // As the README runs them: a machine with only Node and npm has no global pnpm.
    `  npx pnpm@10 wallet call${dirFlag} GET /health`,
    // Fixed examples: once run, the same msisdn and clientReference answer 409 Conflict, so a
    // reused demo does not suggest them again (the tour below makes fresh ones on every run).
    ...(o.created
      ? [
          `  npx pnpm@10 wallet call${dirFlag} POST /customers '${exampleCustomer}'`,
          `  npx pnpm@10 wallet call${dirFlag} POST /wallet-credits '{"walletUid":"<walletUid>","amountMinor":50000,"currency":"KES","clientReference":"demo-credit-1"}'`,
        ]
      : []),
    `  npx pnpm@10 wallet demo${dirFlag}   (a scripted tour; WALLET_ADMIN_TOKEN set runs the operator steps too)`,
    "Stop with Ctrl-C.",
    "",
  ]
    .map(line)
    .join("");
}
