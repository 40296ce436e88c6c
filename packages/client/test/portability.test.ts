import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { errorStatus } from "@wallet/http-adapter";
import { describe, expect, it } from "vitest";
import { walletErrorCodes } from "../src/index.js";

const srcDir = fileURLToPath(new URL("../src/", import.meta.url));
const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  dependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

const importPattern = /(?:from|import)\s*\(?\s*"([^"]+)"/g;

describe("the SDK runs in browsers and edge runtimes", () => {
  const files = sourceFiles(srcDir);

  it("imports no node: module, no server package, only @noble at runtime", () => {
    expect(files.length).toBeGreaterThan(10);
    const outside: string[] = [];
    for (const file of files) {
      for (const [, specifier] of readFileSync(file, "utf8").matchAll(importPattern)) {
        if (specifier!.startsWith(".")) continue;
        if (!specifier!.startsWith("@noble/")) outside.push(`${file.slice(srcDir.length)}: ${specifier}`);
      }
    }
    expect(outside).toEqual([]);
    expect(Object.keys(packageJson.dependencies).sort()).toEqual(["@noble/ed25519", "@noble/hashes"]);
  });

  it("uses no Buffer or process (Node-only globals)", () => {
    for (const file of files) {
      const code = readFileSync(file, "utf8").replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
      expect(code, file).not.toMatch(/\bBuffer\.|\bprocess\./);
    }
  });
});

describe("walletErrorCodes", () => {
  it("lists every refusal code the server maps to a status", () => {
    for (const code of Object.keys(errorStatus)) expect(walletErrorCodes).toContain(code);
  });
});
