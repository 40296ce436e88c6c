import type { Kysely, Migration } from "kysely";

/**
 * `suspense_items (created_at, uid)`: the operator's `GET /suspense` without a status lists every
 * item oldest first, one page at a time (`ORDER BY created_at, uid LIMIT .. OFFSET ..`). The
 * `(status, created_at, uid)` index serves only a list of one status; without this one the
 * default list read and sorted the whole table, which never shrinks, on every call. Frozen in time
 * like every migration.
 */
export const suspenseItemsCreatedMigration: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createIndex("suspense_items_created")
      .on("suspense_items")
      .columns(["created_at", "uid"])
      .execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex("suspense_items_created").execute();
  },
};
