import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { adminCommand } from "../src/cli/admin-command.js";
import { UsageError } from "../src/cli/io.js";
import { parseRequestArgs } from "../src/cli/request-args.js";

const cwd = mkdtempSync(join(tmpdir(), "wallet-cli-args-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

const call = { methods: ["GET", "POST", "PATCH"], prefix: "/api/v1/tenant", example: "/customers", cwd };
const admin = { methods: ["GET", "POST", "PATCH", "PUT"], prefix: "/api/v1/admin", example: "/audit", cwd };

const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error("no UsageError");
};

describe("wallet call / wallet admin: METHOD PATH [json]", () => {
  it("adds the prefix unless given, upper-cases the method and keeps the body as typed", () => {
    expect(parseRequestArgs("call", ["post", "/customers", '{"a": 1}'], call)).toEqual({
      method: "POST",
      path: "/api/v1/tenant/customers",
      body: '{"a": 1}',
    });
    expect(parseRequestArgs("admin", ["GET", "/api/v1/admin/audit?limit=1"], admin)).toEqual({
      method: "GET",
      path: "/api/v1/admin/audit?limit=1",
      body: undefined,
    });
    writeFileSync(join(cwd, "body.json"), '{"b":2}');
    expect(parseRequestArgs("admin", ["PUT", "/x", "@body.json"], admin).body).toBe('{"b":2}');
  });

  it("names the command it parses for in every refusal", () => {
    for (const [command, rules] of [
      ["call", call],
      ["admin", admin],
    ] as const) {
      expect(usage(() => parseRequestArgs(command, ["GET"], rules))).toBe(
        `${command}: expected METHOD PATH [json]`,
      );
      expect(usage(() => parseRequestArgs(command, ["GET", "/x", "{}", "y"], rules))).toMatch(
        new RegExp(`^${command}: unexpected "y"`),
      );
      expect(usage(() => parseRequestArgs(command, ["DELETE", "/x"], rules))).toMatch(
        new RegExp(`^${command}: METHOD must be one of GET, POST, PATCH`),
      );
      expect(usage(() => parseRequestArgs(command, ["GET", "x"], rules))).toBe(
        `${command}: PATH must start with "/", e.g. ${rules.example}`,
      );
      expect(usage(() => parseRequestArgs(command, ["POST", "/x", "{nope"], rules))).toMatch(
        new RegExp(`^${command}: the body is not JSON`),
      );
      expect(usage(() => parseRequestArgs(command, ["POST", "/x", "@missing.json"], rules))).toBe(
        `${command}: cannot read the body file missing.json (ENOENT)`,
      );
      expect(
        usage(() => parseRequestArgs(command, ["POST", "/x", `"${"a".repeat(1024 * 1024)}"`], rules)),
      ).toBe(`${command}: body larger than 1 MiB`);
    }
  });

  it("wallet admin refuses a body that is not JSON as admin, before asking for the token", async () => {
    const io = { env: {}, cwd, stdout: () => {}, stderr: () => {} };
    await expect(adminCommand(["POST", "/tenants", "{nope"], io)).rejects.toThrow(
      /^admin: the body is not JSON/,
    );
    await expect(adminCommand(["GET", "/audit"], io)).rejects.toThrow(/^admin: set WALLET_ADMIN_TOKEN/);
  });
});
