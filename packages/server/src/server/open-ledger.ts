import {
  type Clock,
  type CoreDeps,
  createUlidGenerator,
  isTextOrderedInstant,
  notFound,
  type RequestContext,
  refuse,
  runDueJob,
  StoreUnavailableError,
} from "@wallet/ledger-core";
import { type OpenStoreOptions, openStore, type Store } from "@wallet/persistence";
import { assertCatalogCoversStore } from "../config/catalog-in-use.js";
import type { DatabaseConfig, WalletConfig } from "../config/schema.js";
import { type SeedReport, seedFromConfig } from "../config/seed.js";
import { toCatalog } from "../config/to-core.js";
import { type AesGcmVaultOptions, createAesGcmVault } from "../crypto/aes-gcm-vault.js";
import { createNodeHasher } from "../crypto/node-hasher.js";
import { createNodeRandom } from "../crypto/node-random.js";
import { assertPiiKeysOpenStore } from "../crypto/pii-keys-in-use.js";
import { sealClearDatesOfBirth } from "../crypto/seal-dates-of-birth.js";
import { firstLine, StartupError } from "../startup-error.js";
import { redactDatabaseUrl } from "./database-url.js";

export interface OpenLedgerOptions {
  config: WalletConfig;
  /** `sqlite:<path>`, `sqlite::memory:` or `postgres://...`. */
  databaseUrl: string;
  /** The PII keys (`piiKeyRing(...)`): the same ones every time, or stored values cannot be read. */
  piiKeys: AesGcmVaultOptions;
  /** Named in the one-line error when those keys cannot open what the database holds. */
  piiKeySource?: string | undefined;
  clock?: Clock | undefined;
  connectTimeoutMs?: number | undefined;
}

/** The ledger as `wallet serve` prepares it, without HTTP: for calling the use cases in-process. */
export interface OpenedLedger {
  store: Store;
  core: CoreDeps;
  seeded: SeedReport;
  /** How many dates of birth an earlier version stored in clear this open found and sealed (then 0). */
  sealedDatesOfBirth: number;
  /**
   * The request context of a tenant of the config, for calling use cases on its behalf: no
   * signing key, every scope it holds. NotFound for a tenant the database does not hold, and
   * UnprocessableEntity for one the operator suspended (the API answers its requests 401). It is
   * read now: take one per request, as the API authenticates each.
   */
  contextFor(tenantId: string, requestId?: string | null): Promise<RequestContext>;
  /**
   * Runs the time-driven jobs once, as of now (or `asOf`): mandates due to start or end, top-up
   * intents past their expiry. `wallet serve` runs them every 5 s; an embedding service calls this
   * on its own timer. Returns how many items each moved; an `asOf` that is no instant of the
   * years 0000-9999 is InvalidRequest.
   */
  runDueJobs(
    asOf?: Date,
  ): Promise<{ activatedMandates: number; expiredMandates: number; expiredTopups: number }>;
  close(): Promise<void>;
}

/**
 * Opens the database and makes it ready as `wallet serve` does before it listens, with the same
 * refusals (one line, `ConfigError` or `StartupError`): migrations, the config's catalog covering
 * what the database uses, the PII keys opening what it holds (and sealing the dates of birth an
 * earlier version kept in clear), then the config's tenants seeded.
 * The store is closed again when any of it fails.
 */
export async function openLedger(options: OpenLedgerOptions): Promise<OpenedLedger> {
  const clock = options.clock ?? systemClock;
  const store = await openCheckedStore(
    options.databaseUrl,
    options.connectTimeoutMs,
    toStoreOptions(options.databaseUrl, options.config.database),
  );
  let core: CoreDeps;
  let seeded: SeedReport;
  let sealedDatesOfBirth: number;
  try {
    await store.migrate();
    // Before seeding: a refused file must leave nothing of itself in the database.
    await assertCatalogCoversStore(store.uow, options.config);
    core = createCoreDeps(options.config, options.piiKeys, clock);
    await assertPiiKeysOpenStore(
      store.uow,
      core.vault,
      [...options.piiKeys.keys.keys()],
      options.piiKeySource ?? "WALLET_PII_KEY",
    );
    sealedDatesOfBirth = await sealClearDatesOfBirth(store.uow, core.vault);
    seeded = await seedFromConfig(store.uow, options.config, clock);
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  const deps = core;
  return {
    store,
    core,
    seeded,
    sealedDatesOfBirth,
    async contextFor(tenantId, requestId = null) {
      const tenant = (await store.uow.run((tx) => tx.tenants.get(tenantId))) ?? notFound("Tenant");
      if (tenant.status !== "active")
        refuse("UnprocessableEntity", `Tenant ${tenant.id} is ${tenant.status}`);
      return { tenant, kid: null, requestId, scopes: tenant.scopes };
    },
    async runDueJobs(asOf = clock.now()) {
      // The jobs compare ISO strings: past year 9999 one sorts before today's and moves nothing.
      if (!(asOf instanceof Date && isTextOrderedInstant(asOf.getTime()))) {
        refuse("InvalidRequest", "asOf must be a valid instant of the years 0000 to 9999", [
          { field: "asOf", issue: "must be a valid instant of the years 0000 to 9999" },
        ]);
      }
      const at = asOf.toISOString();
      return {
        activatedMandates: await runDueJob(store.uow, deps, "activate-mandates", at),
        expiredMandates: await runDueJob(store.uow, deps, "expire-mandates", at),
        expiredTopups: await runDueJob(store.uow, deps, "expire-topups", at),
      };
    },
    close: () => store.close(),
  };
}

export const systemClock: Clock = { now: () => new Date() };

/** The ports the use cases get, built from node:crypto and the config's catalog. */
export function createCoreDeps(
  config: WalletConfig,
  piiKeys: AesGcmVaultOptions,
  clock: Clock = systemClock,
): CoreDeps {
  return {
    clock,
    ids: createUlidGenerator(clock, createNodeRandom()),
    hasher: createNodeHasher(),
    vault: createAesGcmVault(piiKeys),
    catalog: toCatalog(config),
  };
}

/**
 * Opens the store and checks it answers; a failure becomes a one-line `StartupError`. The
 * message names the database without its password.
 */
export async function openCheckedStore(
  databaseUrl: string,
  connectTimeoutMs = 15_000,
  storeOptions: OpenStoreOptions = {},
): Promise<Store> {
  const shown = redactDatabaseUrl(databaseUrl);
  let store: Store;
  try {
    store = await openStore(databaseUrl, storeOptions);
  } catch (e) {
    throw new StartupError(`cannot open database ${shown}: ${firstLine(e)}`);
  }
  try {
    await withTimeout(store.ping(), connectTimeoutMs, `no answer within ${connectTimeoutMs} ms`);
  } catch (e) {
    await store.close().catch(() => {});
    // The driver's own words: "The store is unavailable" would only repeat "is unreachable".
    const reason = e instanceof StoreUnavailableError && e.cause !== undefined ? e.cause : e;
    throw new StartupError(`database ${shown} is unreachable: ${firstLine(reason)}`);
  }
  return store;
}

/**
 * The config file's `database` section as store options for `databaseUrl`. Group commit is on for
 * SQLite and off for Postgres unless `groupCommit.enabled` says otherwise; its tuning applies
 * whenever it is on.
 */
export function toStoreOptions(databaseUrl: string, database: DatabaseConfig | undefined): OpenStoreOptions {
  const out: OpenStoreOptions = {};
  if (database?.poolSize !== undefined) out.poolSize = database.poolSize;
  if (database?.preparedStatements !== undefined) out.preparedStatements = database.preparedStatements;
  if (database?.sqliteSynchronous !== undefined) out.sqliteSynchronous = database.sqliteSynchronous;
  const { enabled, maxBatch, maxWaitMs, writers } = database?.groupCommit ?? {};
  const on = enabled ?? databaseUrl.startsWith("sqlite:");
  out.groupCommit = on
    ? {
        ...(maxBatch === undefined ? {} : { maxBatch }),
        ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
        ...(writers === undefined ? {} : { writers }),
      }
    : false;
  return out;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
