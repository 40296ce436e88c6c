import { join, resolve } from "node:path";
import { assertCatalogCoversStore } from "../config/catalog-in-use.js";
import { loadConfig } from "../config/load-config.js";
import { insertRefusals } from "../config/seed.js";
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
 * is a catalog that lacks a KYC level or a rail the database still uses (catalog-in-use.ts).
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
    if (config !== null) await assertCatalogCoversStore(store.uow, config);
    if (refusals.length > 0) {
      // The first refused tenant that `serve` would insert, in file order, as its seed finds it.
      const refused = await store.uow.run(async (tx) => {
        for (const r of refusals) if ((await tx.tenants.get(r.tenantId)) === null) return r.error;
        return null;
      });
      if (refused !== null) throw refused;
    }
  } finally {
    await store.close();
  }
  io.stdout(line(`migrated ${redactDatabaseUrl(databaseUrl)}`));
  return 0;
}
