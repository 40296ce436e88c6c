/**
 * vitest global setup: says plainly, at the start and the end of a run, when the Postgres suites
 * are skipped because no database was given (CI sets the URL and requires it).
 */
const url = process.env.WALLET_TEST_POSTGRES_URL;
const notice =
  "NOTE: the Postgres suites were SKIPPED: set WALLET_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres to run them.";

export default function setup(): () => void {
  if (!url) console.log(`\n${notice}\n`);
  return () => {
    if (!url) console.log(`\n${notice}\n`);
  };
}
