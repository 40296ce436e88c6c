import { type Kysely, type Migration, sql } from "kysely";

/**
 * Drops 0006's `operations_in_flight` index: the start's check of the rails in use reads only
 * the top-up intents that wait for a payment (`railCodesAwaitingPayment`), through the indexes
 * the operations already had, so the index was only kept up to date, never read. `if exists`:
 * only a database that ran 0006 as it shipped has it. Frozen in time like every migration.
 */
export const dropOperationsInFlightMigration: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("operations_in_flight").ifExists().execute();
  },
  // Down makes it again, for 0006's down to drop.
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async down(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex("operations_in_flight")
      .on("operations")
      .column("uid")
      .where(sql<boolean>`state in ('pending_provider', 'processing', 'held')`)
      .execute();
  },
};
