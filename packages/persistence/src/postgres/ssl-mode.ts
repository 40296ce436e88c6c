/** The modes node-postgres (pg 8) reads as `verify-full` unless the URL opts into libpq's meanings. */
const verifiedAnyway = new Set(["prefer", "require", "verify-ca"]);

/**
 * node-postgres 8 treats `sslmode=prefer`, `require` and `verify-ca` as `verify-full` (the
 * certificate and host name are checked), and says so in a nine-line warning on every start,
 * ahead of whatever the process prints. This writes that meaning into the URL (`verify-full`), which
 * changes nothing in what is checked, keeps the warning out, and keeps the check when pg 9 gives
 * those modes libpq's weaker meanings. A URL with `uselibpqcompat=true` (libpq's meanings, as pg
 * documents) or any other mode is left as it is; so is one that is not a URL.
 */
export function explicitSslMode(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return connectionString;
  }
  const mode = url.searchParams.get("sslmode");
  if (mode === null || !verifiedAnyway.has(mode) || url.searchParams.get("uselibpqcompat") === "true") {
    return connectionString;
  }
  url.searchParams.set("sslmode", "verify-full");
  return url.toString();
}
