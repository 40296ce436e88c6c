import { join, resolve } from "node:path";
import { loadConfig } from "../config/load-config.js";
import { defaultDatabaseUrl, redactDatabaseUrl, resolveDatabaseUrl } from "../server/database-url.js";
import { openCheckedStore } from "../server/start-server.js";
import { parseCommandArgs } from "./args.js";
import { type CliIo, line, UsageError } from "./io.js";

/**
 * `wallet migrate`: brings the schema up to date and exits. A config, when given, is validated
 * first so a deployment fails before touching the database with a file it cannot serve.
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
  if (configOption !== undefined) loadConfig(resolve(cwd, configOption));
  const fallback =
    values["data-dir"] !== undefined
      ? `sqlite:${join(resolve(cwd, values["data-dir"]), "wallet.db")}`
      : defaultDatabaseUrl;
  const databaseUrl = resolveDatabaseUrl(values.db ?? (io.env.WALLET_DATABASE_URL || fallback), cwd);
  const store = await openCheckedStore(databaseUrl);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  io.stdout(line(`migrated ${redactDatabaseUrl(databaseUrl)}`));
  return 0;
}
