import type { Migration, MigrationProvider } from "kysely";
import type { SqlDialect } from "../shared/sql-dialect.js";
import { initialMigration } from "./0001-initial.js";
import { walletDayTotalsMigration } from "./0002-wallet-day-totals.js";
import { walletDayTotalsByFundsMovedMigration } from "./0003-wallet-day-totals-by-funds-moved.js";
import { apiKeyRevocationMigration } from "./0004-api-key-revocation.js";
import { suspenseItemsCreatedMigration } from "./0005-suspense-items-created.js";
import { operationsInFlightMigration } from "./0006-operations-in-flight.js";
import { dropOperationsInFlightMigration } from "./0007-drop-operations-in-flight.js";
import { processingPayoutsMigration } from "./0008-processing-payouts.js";

/**
 * Every migration, held in code rather than scanned from a folder, so the compiled package runs
 * from `dist/` or a bundle. Names sort in the order they run; never rename, edit or remove a
 * shipped one (a database that ran it refuses to start without it): undo one with a new migration,
 * as 0007 undoes 0006. `test/migrations-shipped.test.ts` holds the shipped names.
 */
export function migrationsFor(dialect: SqlDialect): Record<string, Migration> {
  return {
    "0001-initial": initialMigration(dialect),
    "0002-wallet-day-totals": walletDayTotalsMigration(dialect),
    "0003-wallet-day-totals-by-funds-moved": walletDayTotalsByFundsMovedMigration(dialect),
    "0004-api-key-revocation": apiKeyRevocationMigration,
    "0005-suspense-items-created": suspenseItemsCreatedMigration,
    "0006-operations-in-flight": operationsInFlightMigration,
    "0007-drop-operations-in-flight": dropOperationsInFlightMigration,
    "0008-processing-payouts": processingPayoutsMigration,
  };
}

export function inCodeMigrationProvider(dialect: SqlDialect): MigrationProvider {
  return { getMigrations: async () => migrationsFor(dialect) };
}
