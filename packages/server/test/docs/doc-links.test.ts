import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Every relative link of the README, the docs and the packages' READMEs names a file of the
// repository (anchors are not checked), and every page the docs cite by name is here.

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const pages = [
  "README.md",
  ...readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(repoRoot, "packages"))
    .map((p) => `packages/${p}/README.md`)
    .filter((p) => existsSync(join(repoRoot, p))),
];

/** The relative targets of a page's Markdown links, without their anchors. */
function relativeLinks(text: string): string[] {
  const links: string[] = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1] ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#")) continue;
    links.push(href.split("#")[0] ?? "");
  }
  return links;
}

describe("documentation links", () => {
  it.each(pages)("%s: every relative link resolves", (page) => {
    const text = readFileSync(join(repoRoot, page), "utf8");
    const missing = relativeLinks(text).filter((href) => !existsSync(join(repoRoot, dirname(page), href)));
    expect(missing).toEqual([]);
  });

  it("the design card the docs cite as DESIGN.md is in the repository", () => {
    const citing = pages.filter((p) => readFileSync(join(repoRoot, p), "utf8").includes("DESIGN"));
    expect(citing.length).toBeGreaterThan(0);
    expect(existsSync(join(repoRoot, "docs/design.md"))).toBe(true);
  });

  it("finds links at all (the check above cannot pass on an empty list)", () => {
    expect(relativeLinks("[a](docs/x.md#y) [b](https://e.com) [c](#z)")).toEqual(["docs/x.md"]);
    expect(pages).toContain("docs/operations.md");
  });
});
