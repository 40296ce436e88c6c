import type { Kysely, Migration } from "kysely";

/**
 * `tenant_api_keys.revoked_at`: an API key the operator revoked stays in the table (so seeding
 * from the config file never adds it back) and no longer authenticates. Frozen in time like every
 * migration.
 */
export const apiKeyRevocationMigration: Migration = {
  // biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time, untyped by design (Kysely docs)
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable("tenant_api_keys").addColumn("revoked_at", "text").execute();
  },
  // biome-ignore lint/suspicious/noExplicitAny: as above
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable("tenant_api_keys").dropColumn("revoked_at").execute();
  },
};
