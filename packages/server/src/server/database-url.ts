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
    if (u.password === "") return url;
    u.password = "***";
    return u.toString();
  } catch {
    return url;
  }
}
