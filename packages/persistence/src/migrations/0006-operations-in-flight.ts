import { type Kysely, type Migration, sql } from "kysely";

/**
 * `operations (uid) WHERE state IN ('pending_provider', 'processing', 'held')`: the operations
 * still waiting on a payment rail (top-up intents, held intents, payouts). The server's start reads
 * them to refuse a config that drops a rail they name (`railCodesInFlight`); they are few at any
 * time, so the index stays small, and only a payout or top-up entering or leaving those states
 * writes to it. Frozen in time like every migration.
 *
 * Shipped on 2026-11-24 and removed from the list half an hour later, which left a database that
 * had run it unable to start ("previously executed migration ... is missing"). Back in the list
 * as it shipped; 0007 drops its index, which nothing reads.
 */
export const operationsInFlightMigration: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex("operations_in_flight")
      .on("operations")
      .column("uid")
      .where(sql<boolean>`state in ('pending_provider', 'processing', 'held')`)
      .execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("operations_in_flight").execute();
  },
};
