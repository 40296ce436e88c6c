import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureServerBuilt, repoRoot } from "./reliability/support/server-process.js";

const packages = ["ledger-core", "persistence", "http-adapter", "webhooks", "client", "server"] as const;

interface Manifest {
  name: string;
  main?: string;
  types?: string;
  typings?: string;
  exports?: unknown;
  dependencies?: Record<string, string>;
  files?: string[];
}

const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

/** The `types` files a package's manifest publishes (its root and every export). */
function publishedEntries(dir: string, manifest: Manifest): string[] {
  const out = new Set<string>();
  if (manifest.types) out.add(manifest.types);
  const walk = (v: unknown) => {
    if (v === null || typeof v !== "object") return;
    for (const [key, value] of Object.entries(v)) {
      if (key === "types" && typeof value === "string") out.add(value);
      else walk(value);
    }
  };
  walk(manifest.exports);
  return [...out].map((f) => resolve(dir, f));
}

/** Bare module specifiers imported by the declaration files reachable from `entries`. */
function bareImports(entries: string[]): Map<string, string> {
  const seen = new Set<string>();
  const found = new Map<string, string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      const specifier = m[1] as string;
      if (specifier.startsWith(".")) {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, ".d.ts"));
        if (existsSync(target)) queue.push(target);
      } else if (!specifier.startsWith("node:")) {
        found.set(specifier, file);
      }
    }
  }
  return found;
}

/** The package a bare specifier names: `@scope/name` or `name`. */
const packageName = (specifier: string) =>
  specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : (specifier.split("/")[0] as string);

/** Whether the package, as installed beside `fromDir`, ships its own declarations. */
function shipsTypes(fromDir: string, name: string): boolean {
  // Walked by hand: packages whose `exports` do not list ./package.json refuse require.resolve.
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) {
      const m = manifestOf(candidate);
      if (m.types || m.typings || JSON.stringify(m.exports ?? {}).includes('"types"')) return true;
      // Or declarations beside the entry's JavaScript (kysely's way).
      const root = (m.exports as Record<string, unknown> | undefined)?.["."] ?? m.exports;
      const entries = [m.main, root, ...(root && typeof root === "object" ? Object.values(root) : [])];
      return entries.some(
        (e) =>
          typeof e === "string" &&
          [".d.ts", ".d.mts", ".d.cts"].some((ext) =>
            existsSync(join(candidate, e.replace(/\.[cm]?js$/, ext))),
          ),
      );
    }
    if (dirname(dir) === dir) return false;
  }
}

// An npm consumer installs a package's dependencies, never its devDependencies: a declaration
// that imports a package without types of its own needs its @types among the dependencies, or a
// strict `tsc` in the consumer's project fails (persistence's imported better-sqlite3's types).
describe("the packages' published declarations", () => {
  beforeAll(() => ensureServerBuilt(), 200_000);

  it.each(packages)("of %s import only what an npm install of it provides, with types", (pkg) => {
    const dir = join(repoRoot, "packages", pkg);
    const manifest = manifestOf(dir);
    const deps = manifest.dependencies ?? {};
    const missing: string[] = [];
    for (const [specifier, file] of bareImports(publishedEntries(dir, manifest))) {
      const name = packageName(specifier);
      const typesPackage = `@types/${name.replace(/^@/, "").replace("/", "__")}`;
      const provided = name in deps && (shipsTypes(dir, name) || typesPackage in deps);
      if (!provided) missing.push(`${specifier} (in ${file.slice(dir.length + 1)})`);
    }
    expect(missing).toEqual([]);
  });
});

// Stack traces (`--enable-source-maps`, tsx) and "go to definition" follow the maps into the
// sources they name: those must be in the tarball, or they point at files that do not exist.
describe("the packages' published source maps", () => {
  beforeAll(() => ensureServerBuilt(), 200_000);

  it.each(packages)("of %s name only sources the package ships", (pkg) => {
    const dir = join(repoRoot, "packages", pkg);
    const shipped = (manifestOf(dir).files ?? []).map((f) => resolve(dir, f));
    const maps = readdirSync(join(dir, "dist"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".map"),
    );
    expect(maps.length).toBeGreaterThan(0);
    const unshipped: string[] = [];
    for (const map of maps) {
      const file = join(dir, "dist", map);
      const { sources } = JSON.parse(readFileSync(file, "utf8")) as { sources: string[] };
      for (const source of sources) {
        const target = resolve(dirname(file), source);
        const inTarball = shipped.some((root) => !relative(root, target).startsWith(".."));
        if (!inTarball || !existsSync(target)) unshipped.push(`${source} (in ${map})`);
      }
    }
    expect(unshipped).toEqual([]);
  });
});

// Embedders compile with `exactOptionalPropertyTypes` and `skipLibCheck: false`: the declarations
// must compile there (an `AppEnv` whose Bindings may be undefined broke Hono's `Env` constraint),
// and an optional input must take a value that may be undefined (`metadata: maybeMetadata`).
// fixtures/strict-consumer imports every public entry and fills such inputs; one tsc run checks it
// against the built declarations, resolved through node_modules as an npm consumer's would be.
describe("the packages' published declarations, in a strict consumer", () => {
  beforeAll(() => ensureServerBuilt(), 200_000);

  it("compile with exactOptionalPropertyTypes and skipLibCheck off, optional inputs taking undefined", async () => {
    const fixture = join(repoRoot, "packages/server/test/fixtures/strict-consumer");
    const config = JSON.parse(readFileSync(join(fixture, "tsconfig.json"), "utf8")).compilerOptions;
    expect(config).toMatchObject({ exactOptionalPropertyTypes: true, skipLibCheck: false, strict: true });
    const entries = packages.flatMap((pkg) => {
      const dir = join(repoRoot, "packages", pkg);
      const manifest = manifestOf(dir);
      return Object.keys((manifest.exports ?? { ".": null }) as object).map((sub) =>
        sub === "." ? manifest.name : `${manifest.name}/${sub.slice(2)}`,
      );
    });
    const consumer = readFileSync(join(fixture, "consumer.ts"), "utf8");
    const missing = entries.filter((entry) => !consumer.includes(`from "${entry}";`));
    expect(missing, "public entries the consumer does not import").toEqual([]);

    const output = await new Promise<string>((resolve) =>
      execFile(
        join(repoRoot, "node_modules/.bin/tsc"),
        ["-p", join(fixture, "tsconfig.json")],
        { cwd: fixture, timeout: 60_000, maxBuffer: 4 * 1024 * 1024 },
        (error, stdout, stderr) => resolve(error ? `${stdout}${stderr}`.trim() || String(error) : ""),
      ),
    );
    expect(output).toBe("");
  }, 70_000);
});
