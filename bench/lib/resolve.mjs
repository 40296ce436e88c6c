import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root (bench/ sits directly under it). */
export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/**
 * Imports `specifier` as the workspace package at `packages/<pkg>` sees it. pnpm keeps each
 * package's dependencies private, so the bench (which belongs to no package) borrows their
 * resolution instead of declaring hono, better-sqlite3 and pg a second time at the root.
 * Workspace packages resolve to their built `dist/` (run `pnpm build` first; `pnpm bench` does).
 * An ES module build is preferred, as the server itself loads it.
 */
export async function importFrom(pkg, specifier) {
  const require = createRequire(new URL(`../../packages/${pkg}/package.json`, import.meta.url));
  const resolved = esmEntry(require, specifier) ?? require.resolve(specifier);
  return import(pathToFileURL(resolved).href);
}

/** The `import` entry of a bare package specifier's main export, when its package.json has one. */
function esmEntry(require, specifier) {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  const subpath = `.${specifier.slice(name.length)}`;
  let manifestPath;
  try {
    manifestPath = require.resolve(`${name}/package.json`);
  } catch {
    return null; // the package does not export its package.json: fall back to require's answer
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const target = pick(manifest.exports?.[subpath] ?? (subpath === "." ? manifest.exports : undefined));
  return typeof target === "string" ? join(dirname(manifestPath), target) : null;
}

function pick(entry) {
  if (typeof entry === "string" || entry === undefined || entry === null) return entry;
  if (Array.isArray(entry)) return pick(entry[0]);
  return pick(entry.import ?? entry.node ?? entry.default);
}
