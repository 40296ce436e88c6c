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
    // A fragment in a database URL is a password's unencoded `#` cutting it short: the parse is
    // wrong, and the rest of the password would show as the fragment (or as the host).
    if (u.hash !== "") return redactUnparsed(url);
    // The password in the user part, and in the query (`?password=`, which node-postgres reads
    // too), and a `sslpassword`/`sslkey` passphrase likewise.
    const secretParams = [...u.searchParams.keys()].filter((k) => /password|secret|passphrase/i.test(k));
    if (u.password === "" && secretParams.length === 0) return url;
    if (u.password !== "") u.password = "***";
    for (const k of secretParams) u.searchParams.set(k, "***");
    return u.toString();
  } catch {
    return redactUnparsed(url);
  }
}

/**
 * A URL that does not parse (a password with an unencoded `#`, `/` or `?` is enough) is redacted
 * by its text: everything between the user name's `:` and the last `@`, and the
 * value of any parameter named like a secret.
 */
function redactUnparsed(url: string): string {
  const afterScheme = url.indexOf("//") + 2;
  const at = url.lastIndexOf("@");
  let out = url;
  if (afterScheme > 1 && at > afterScheme) {
    const userInfo = url.slice(afterScheme, at);
    const colon = userInfo.indexOf(":");
    if (colon >= 0) out = `${url.slice(0, afterScheme)}${userInfo.slice(0, colon)}:***${url.slice(at)}`;
  }
  return out.replace(/([?&][^=&#]*(?:password|secret|passphrase)[^=&#]*=)[^&#]*/gi, "$1***");
}
