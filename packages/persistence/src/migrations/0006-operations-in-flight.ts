import type { Kysely, Migration } from "kysely";

/**
 * Shipped on 2026-11-24 as the index `operations (uid) WHERE state IN ('pending_provider',
 * 'processing', 'held')` for the start's check of the rails in use, and removed from the list half
 * an hour later, which left a database that had run it unable to start ("previously executed
 * migration ... is missing"). Back in the list under its name so such a database starts; 0007
 * drops the index, which nothing reads. Its `up` is empty here: a database running it now would
 * build the index (a scan of every operation, writes waiting) only for 0007 to drop it, and both
 * end the same, without it.
 */
export const operationsInFlightMigration: Migration = {
  async up(): Promise<void> {},
  // A database that ran the shipped `up` has the index until 0007; 0007's down makes it again.
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("operations_in_flight").ifExists().execute();
  },
};
