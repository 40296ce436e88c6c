import { join, resolve } from "node:path";
import { assertCatalogCoversStore } from "../config/catalog-in-use.js";
import { loadConfig } from "../config/load-config.js";
import { apiKeysToAdd, insertRefusals } from "../config/seed.js";
import { defaultDatabaseUrl, redactDatabaseUrl, resolveDatabaseUrl } from "../server/database-url.js";
import { openCheckedStore } from "../server/open-ledger.js";
import { parseCommandArgs } from "./args.js";
import { type CliIo, line, UsageError } from "./io.js";

/**
 * `wallet migrate`: brings the schema up to date and exits. A config, when given, is validated
 * before the database is opened, so a deployment fails before touching it with a file it cannot
 * serve. The checks `serve` makes only when it first inserts a tenant (config/seed.ts: an enabled
 * webhook without a url or a secret, a secret dated ahead) read the file alone as well, but a
 * tenant already in the database is not inserted again: a tenant failing one is refused once the
 * database has answered that it does not hold it, with the line and exit status `serve` has. So
 * is a catalog that lacks a KYC level or a rail the database still uses (catalog-in-use.ts), and a
 * tenant of the file with an API key another tenant holds.
 */
export async function migrateCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    db: { type: "string" },
    config: { type: "string" },
    "data-dir": { type: "string" },
  });
  if (positionals.length > 0) throw new UsageError(`migrate: unexpected "${positionals[0]}"`);
  const cwd = io.cwd ?? process.cwd();
  const configOption = values.config ?? (io.env.WALLET_CONFIG || undefined);
  const config = configOption === undefined ? null : loadConfig(resolve(cwd, configOption));
  const refusals = config === null ? [] : insertRefusals(config, new Date());
  const fallback =
    values["data-dir"] !== undefined
      ? `sqlite:${join(resolve(cwd, values["data-dir"]), "wallet.db")}`
      : defaultDatabaseUrl;
  const databaseUrl = resolveDatabaseUrl(values.db ?? (io.env.WALLET_DATABASE_URL || fallback), cwd);
  const store = await openCheckedStore(databaseUrl);
  try {
    await store.migrate();
    // In serve's order: the catalog against the data (a KYC level or a rail still in use), then
    // the tenants its seed would insert.
    if (config !== null) {
      await assertCatalogCoversStore(store.uow, config);
      // Tenant by tenant in file order, as the seed finds them: a refusal of a tenant it would
      // insert, then an API key of the tenant's that another tenant holds. Nothing is written.
      await store.uow.run(async (tx) => {
        for (const [i, t] of config.tenants.entries()) {
          const refused = refusals.find((r) => r.tenantId === t.id);
          if (refused !== undefined && (await tx.tenants.get(t.id)) === null) throw refused.error;
          await apiKeysToAdd(tx, t, i);
        }
      });
    }
  } finally {
    await store.close();
  }
  io.stdout(line(`migrated ${redactDatabaseUrl(databaseUrl)}`));
  return 0;
}
