import { randomBytes } from "node:crypto";
import pg from "pg";

/** The Postgres server tests may use (`WALLET_TEST_POSTGRES_URL`), or null to skip them. */
export function postgresTestUrl(): string | null {
  const url = process.env.WALLET_TEST_POSTGRES_URL?.trim();
  return url ? url : null;
}

/** True when Postgres tests must run (`WALLET_TEST_REQUIRE_POSTGRES=1`): a missing URL is a failure. */
export function requirePostgres(): boolean {
  return process.env.WALLET_TEST_REQUIRE_POSTGRES === "1";
}

/**
 * `postgresTestUrl()` for a suite that needs Postgres: null (the suite skips, and says so once)
 * when the URL is unset, and a failure instead when `WALLET_TEST_REQUIRE_POSTGRES=1`.
 */
export function postgresUrlFor(suite: string): string | null {
  const url = postgresTestUrl();
  if (url === null) {
    if (requirePostgres())
      throw new Error("WALLET_TEST_REQUIRE_POSTGRES=1 but WALLET_TEST_POSTGRES_URL is not set");
    console.info(`${suite} (postgres): WALLET_TEST_POSTGRES_URL is not set; skipped`);
  }
  return url;
}

export interface FreshPostgresDatabase {
  /** Connection URL of the new, empty database. */
  url: string;
  /** Drops the database, closing any connection still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates a uniquely named, empty database on the server of `baseUrl`, so each test suite gets
 * its own schema and suites can run in parallel.
 *
 * @example
 *   const fresh = await createFreshPostgresDatabase(postgresTestUrl()!);
 *   const store = createPostgresStore({ connectionString: fresh.url });
 *   // ...
 *   await store.close();
 *   await fresh.drop();
 */
export async function createFreshPostgresDatabase(baseUrl: string): Promise<FreshPostgresDatabase> {
  const name = `wallet_test_${Date.now().toString(36)}_${randomBytes(6).toString("hex")}`;
  await withAdminClient(baseUrl, (client) => client.query(`create database "${name}"`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdminClient(baseUrl, (client) =>
        client.query(`drop database if exists "${name}" with (force)`),
      );
    },
  };
}

async function withAdminClient<T>(baseUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
