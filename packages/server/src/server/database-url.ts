import { isAbsolute, resolve } from "node:path";

export const defaultDatabaseUrl = "sqlite:./data/wallet.db";

/**
 * Makes a relative `sqlite:` path absolute against `cwd`, so the database a command uses does not
 * depend on where the process happens to be started from inside the library.
 */
export function resolveDatabaseUrl(url: string, cwd: string): string {
  if (!url.startsWith("sqlite:")) return url;
  const path = url.slice("sqlite:".length);
  if (path === "" || path === ":memory:" || path.startsWith("//") || isAbsolute(path)) return url;
  return `sqlite:${resolve(cwd, path)}`;
}

/** The URL without its password, for messages and logs. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    // The password in the user part, and in the query (`?password=`, which node-postgres reads
    // too), and a `sslpassword`/`sslkey` passphrase likewise.
    const secretParams = [...u.searchParams.keys()].filter((k) => /password|secret|passphrase/i.test(k));
    if (u.password === "" && secretParams.length === 0) return url;
    if (u.password !== "") u.password = "***";
    for (const k of secretParams) u.searchParams.set(k, "***");
    return u.toString();
  } catch {
    return url;
  }
}
