import { type Kysely, type Migration, sql } from "kysely";

/**
 * The payouts still `processing`, oldest first: what the sandbox's automatic payout outcomes look
 * through every few seconds (`operations.listProcessingPayouts`). Without it that read walked
 * every operation of every tenant, with a count, and stalled a large SQLite database's server
 * for seconds at each run. Partial, so it holds only the payouts in flight. Frozen in time like
 * every migration.
 */
export const processingPayoutsMigration: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex("operations_processing_payouts")
      .on("operations")
      .column("uid")
      .where(sql<boolean>`type = 'payout_b2c' and state = 'processing'`)
      .execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("operations_processing_payouts").ifExists().execute();
  },
};
