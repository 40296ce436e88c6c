import { isDomainError } from "@wallet/ledger-core";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Outcome, onboardingBody, send } from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, createReal, type Real } from "../../../ledger-core/test/model/world.js";
import {
  createFreshPostgresDatabase,
  createPostgresStore,
  type PostgresStoreOptions,
} from "../../src/index.js";

export { postgresUrlFor } from "../../src/testing.js";

export interface PostgresReal {
  real: Real;
  /** The fresh database's URL, for a second client (a blocker, a checker). */
  url: string;
  /** Closes the store and drops the database. */
  close(): Promise<void>;
}

/** A fresh, migrated database with the model's `Real` (the use cases as routes run them) over it. */
export async function openPostgresReal(
  baseUrl: string,
  options: Omit<PostgresStoreOptions, "connectionString"> = {},
): Promise<PostgresReal> {
  const fresh = await createFreshPostgresDatabase(baseUrl);
  const store = createPostgresStore({ ...options, connectionString: fresh.url });
  try {
    await store.migrate();
    const real = await createReal({
      name: "postgres",
      uow: store.uow,
      snapshot: async () => ({ journals: [], accounts: [], operations: [] }),
      close: async () => {},
    });
    return {
      real,
      url: fresh.url,
      async close() {
        await store.close();
        await fresh.drop();
      },
    };
  } catch (e) {
    await store.close();
    await fresh.drop();
    throw e;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Forces one interleaving of two requests: another connection holds `table` in SHARE mode, which
 * lets reads and row locks through but stops inserts and updates; `first` starts and stops at its
 * first write to `table`, holding whatever it locked before; then `second` starts and runs as far
 * as it can; then the table takes writes again. Both outcomes.
 */
export async function firstStopsAt<A, B>(
  url: string,
  table: string,
  first: () => Promise<A>,
  second: () => Promise<B>,
): Promise<[A, B]> {
  const blocker = new pg.Client({ connectionString: url });
  await blocker.connect();
  try {
    await blocker.query("begin");
    await blocker.query(`lock table ${table} in share mode`);
    const a = first();
    await sleep(300);
    const b = second();
    await sleep(500);
    await blocker.query("commit");
    return await Promise.all([a, b]);
  } finally {
    await blocker.end();
  }
}

/** What a Postgres race suite works with, filled in before its first test. */
export interface RaceSuite {
  real: Real;
  /** The fresh database's URL, for a blocker. */
  url: string;
  /** A second connection, for reading what the requests left. */
  sql: pg.Client;
}

/**
 * Call inside a `describe`: opens a fresh database (`openPostgresReal`) and a second connection
 * before the suite's tests, closes both after them.
 */
export function raceSuite(
  baseUrl: string,
  options: Omit<PostgresStoreOptions, "connectionString"> = {},
): RaceSuite {
  const suite = {} as RaceSuite;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    const opened = await openPostgresReal(baseUrl, options);
    cleanups.push(() => opened.close());
    const sql = new pg.Client({ connectionString: opened.url });
    await sql.connect();
    cleanups.unshift(() => sql.end());
    Object.assign(suite, { real: opened.real, url: opened.url, sql });
  }, 60_000);
  afterAll(async () => {
    for (const c of cleanups) await c();
  });
  return suite;
}

/** A request's outcome in a word: "ok" for a 2xx, else its error code (stored or thrown). */
export const outcomeOf = (o: Outcome): string =>
  o.kind === "refused" ? o.code : o.status < 300 ? "ok" : (JSON.parse(o.body).error as string);

/** What `work` (an operator's call, say) returns, or the code of the refusal it throws. */
export async function valueOrCode<T>(work: () => Promise<T>): Promise<T | string> {
  try {
    return await work();
  } catch (e) {
    if (isDomainError(e)) return e.code as string;
    throw e;
  }
}

/** The body of a credit of `amountMinor` to `walletUid`, its clientReference made of both. */
export const creditBody = (walletUid: string, amountMinor: number, ref: string): string =>
  JSON.stringify({ walletUid, amountMinor, currency: CURRENCY, clientReference: `${walletUid}-${ref}` });

/**
 * A tier_2 customer onboarded with `msisdn`, its wallet funded by a credit of `amountMinor`; `tag`
 * makes the two requests' idempotency keys.
 */
export async function fundedCustomer(real: Real, tag: string, msisdn: string, amountMinor: number) {
  const body = JSON.stringify(onboardingBody(msisdn, "tier_2", "low"));
  const onboarded = await send(real, "onboard", `${tag}-onboard`, body);
  if (onboarded.kind !== "answer") throw new Error(onboarded.code);
  const { uid: customerUid, walletUid } = JSON.parse(onboarded.body) as { uid: string; walletUid: string };
  const funded = await send(real, "credit", `${tag}-fund`, creditBody(walletUid, amountMinor, "fund"));
  if (funded.kind !== "answer" || funded.status !== 201) throw new Error("funding credit refused");
  return { customerUid, walletUid };
}
