import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { explicitSslMode } from "../src/postgres/ssl-mode.js";

describe("explicitSslMode", () => {
  it("writes node-postgres' own reading (verify-full) for prefer, require and verify-ca", () => {
    for (const mode of ["prefer", "require", "verify-ca"]) {
      expect(
        explicitSslMode(`postgres://u:p@db.example:5432/wallet?sslmode=${mode}&application_name=w`),
      ).toBe("postgres://u:p@db.example:5432/wallet?sslmode=verify-full&application_name=w");
    }
  });

  it("leaves every other URL as it is", () => {
    for (const url of [
      "postgres://u@db/wallet",
      "postgres://u@db/wallet?sslmode=disable",
      "postgres://u@db/wallet?sslmode=verify-full",
      "postgres://u@db/wallet?uselibpqcompat=true&sslmode=require",
      "not a url",
    ]) {
      expect(explicitSslMode(url)).toBe(url);
    }
  });

  it("keeps pg's nine-line SECURITY WARNING out of the process's output", () => {
    // pg parses the URL when the pool connects; what it warns about goes to stderr.
    const script = (url: string) => `
      import pg from "pg";
      const pool = new pg.Pool({ connectionString: ${JSON.stringify(url)}, connectionTimeoutMillis: 500 });
      pool.on("error", () => {});
      await pool.query("select 1").catch(() => {});
      await pool.end();`;
    const stderrOf = (url: string) =>
      spawnSync(process.execPath, ["--input-type=module", "-e", script(url)], {
        cwd: new URL("..", import.meta.url),
        encoding: "utf8",
        timeout: 20_000,
      }).stderr;
    const url = "postgres://nobody@127.0.0.1:1/x?sslmode=require";
    expect(stderrOf(url)).toMatch(/SECURITY WARNING/);
    expect(stderrOf(explicitSslMode(url))).not.toMatch(/SECURITY WARNING/);
  });
});
