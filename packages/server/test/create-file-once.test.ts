import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// link() answers EPERM where `refuseLinks` is set, as a file system without hard links does.
let refuseLinks = false;
let linkCalls = 0;
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  return {
    ...fs,
    linkSync: (existing: string, created: string) => {
      linkCalls++;
      if (refuseLinks)
        throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
      return fs.linkSync(existing, created);
    },
  };
});
const { createFileOnce } = await import("../src/files/create-file-once.js");

afterEach(() => {
  refuseLinks = false;
  linkCalls = 0;
});

describe("createFileOnce", () => {
  it.each([
    ["through a hard link", false],
    ["in place where the file system makes no hard links", true],
  ])("creates the file whole %s, never replaces one, and leaves no temporary file", (_, noLinks) => {
    refuseLinks = noLinks;
    const dir = mkdtempSync(join(tmpdir(), "wallet-create-once-"));
    const file = join(dir, "secret");
    expect(createFileOnce(file, "first\n", 0o600)).toBe(true);
    expect(createFileOnce(file, "second\n", 0o600)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe("first\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(["secret"]);
    expect(linkCalls).toBeGreaterThan(0); // the mock is the one in use
  });
});
