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

/**
 * The URL without its password, for messages and logs, read as text rather than parsed: a
 * password with an unencoded `#`, `/`, `?`, `:` or `@` makes a URL parser put part of it in the
 * port, the path or the host (`postgres://app:1234/abcd@db` parses, with "1234" as the port and no
 * password). Everything between the user name's `:` and the last `@` is masked (a `@` in the query
 * masks more than the password, never less), and so is the value of any parameter named like a
 * secret (`?password=`, which node-postgres reads too, `sslpassword`, a passphrase), its name
 * percent-decoded as node-postgres decodes it, up to the next `&` (an unencoded `#` in it too).
 */
export function redactDatabaseUrl(url: string): string {
  const afterScheme = url.indexOf("//") + 2;
  const at = url.lastIndexOf("@");
  let out = url;
  if (afterScheme > 1 && at > afterScheme) {
    const userInfo = url.slice(afterScheme, at);
    const colon = userInfo.indexOf(":");
    if (colon >= 0) out = `${url.slice(0, afterScheme)}${userInfo.slice(0, colon)}:***${url.slice(at)}`;
  }
  const query = out.indexOf("?");
  if (query < 0) return out;
  const params = out
    .slice(query + 1)
    .split("&")
    .map((param) => {
      const eq = param.indexOf("=");
      return eq > 0 && SECRET_NAME.test(decodedName(param.slice(0, eq)))
        ? `${param.slice(0, eq)}=***`
        : param;
    });
  return `${out.slice(0, query + 1)}${params.join("&")}`;
}

const SECRET_NAME = /password|secret|passphrase/i;

/** A parameter's name as node-postgres reads it (percent-decoded), or as written if it does not decode. */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll("+", " "));
  } catch {
    return name;
  }
}
