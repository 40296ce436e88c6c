import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPrefund } from "@wallet/ledger-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPrivateKeyPem } from "./fixtures.js";
import { run, type Serving, serve } from "./helpers.js";
import { API_KEY, e2eConfig, start } from "./running-server.js";

const adminEnv = { WALLET_ADMIN_TOKEN: "cli-demo-admin-token-0123456789" };

describe("wallet demo", () => {
  let cwd: string;
  let serving: Serving;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), "wallet-cli-demo-"));
    serving = await serve(["--port", "0", "--no-scheduler"], { cwd, env: adminEnv });
  });
  afterAll(async () => {
    await serving?.stop();
  });

  it("tours the API on the running demo server, printing every step, and exits 0", async () => {
    const result = await run(["demo"], { cwd, env: adminEnv });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const out = result.stdout;
    // Each step: its title, the request line with the status, and the fields of note.
    for (const expected of [
      /^ 1\. Health/m,
      /GET \/api\/v1\/tenant\/health -> 200 OK/,
      /GET \/api\/v1\/admin\/tenants\/demo\/prefund\?currency=KES -> 200 OK/,
      /POST \/api\/v1\/tenant\/customers -> 201 Created/,
      /customer cus_\w+ \(active\), wallet wal_\w+/,
      /POST \/api\/v1\/tenant\/wallet-credits -> 201 Created/,
      /POST \/api\/v1\/tenant\/fees\/quote -> 200 OK/,
      /fee 47\.50 KES, tax 4\.00 KES, total 1,551\.50 KES/,
      /POST \/api\/v1\/tenant\/mandates -> 201 Created/,
      /mandate man_\w+ active/,
      /POST \/api\/v1\/tenant\/wallet-debits -> 201 Created/,
      /POST \/api\/v1\/tenant\/payouts -> 202 Accepted/,
      /POST \/api\/v1\/admin\/rails\/sandbox_mobile\/payout-results -> 200 OK/,
      /timeline: created -> processing -> completed/,
      /POST \/api\/v1\/tenant\/topup-intents -> 201 Created/,
      /reference \d{12}/,
      /POST \/api\/v1\/admin\/rails\/sandbox_mobile\/payments -> 200 OK/,
      /GET \/api\/v1\/tenant\/wallets\/wal_\w+\/transactions\?limit=10 -> 200 OK/,
      /4 rows/,
      /GET \/api\/v1\/tenant\/operations\/op_\w+\/receipt -> 200 OK/,
      /receiptHash [0-9a-f]{64}/,
      // 5,000.00 - 1,200.00 - 1,551.50 + 300.00
      /current 2,548\.50 KES, held 0\.00 KES, available 2,548\.50 KES/,
      /^demo complete$/m,
    ]) {
      expect(out).toMatch(expected);
    }
    expect(out).not.toContain("PRIVATE KEY");
    const credentials = JSON.parse(readFileSync(join(cwd, "data", "demo", "credentials.json"), "utf8"));
    expect(out).not.toContain(credentials.apiKey);
  });

  it("skips the operator steps without the operator token", async () => {
    const result = await run(["demo"], { cwd });
    expect(result.code).toBe(0);
    expect(result.stdout.match(/skipped: needs WALLET_ADMIN_TOKEN/g)).toHaveLength(3);
    expect(result.stdout).toMatch(/POST \/api\/v1\/tenant\/payouts -> 202 Accepted/);
    expect(result.stdout).toMatch(/demo complete \(3 operator steps skipped/);
  });

  it("exits 1 at the first failing step, naming it with the error code and request id", async () => {
    const result = await run(["demo", "--api-key", "not-the-key"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/POST \/api\/v1\/tenant\/customers -> 401 Unauthorized/);
    expect(result.stderr).toMatch(
      /^wallet: demo step 3 failed: HTTP 401 Unauthorized: Authentication failed \(X-Request-Id [0-9a-f-]{36}\)\n$/,
    );
  });

  it("exits 1 when the server is not there", async () => {
    const result = await run(["demo", "--base-url", "http://127.0.0.1:9"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^wallet: demo step 1 failed: GET \/health failed: no answer/);
  });
});

describe("wallet call with explicit credentials", () => {
  it("signs with --base-url, --api-key, --kid and --key-file, no credentials file needed", async () => {
    const server = await start(
      e2eConfig(),
      `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-call-")), "wallet.db")}`,
    );
    try {
      const cwd = mkdtempSync(join(tmpdir(), "wallet-call-flags-"));
      writeFileSync(join(cwd, "k1.pem"), testPrivateKeyPem, { mode: 0o600 });
      const flags = ["--base-url", server.url, "--api-key", API_KEY, "--kid", "k1", "--key-file", "k1.pem"];
      const funded = await server.store.uow.run((tx) => getPrefund(server.core, tx, "acme", "KES"));
      expect(funded.balanceMinor).toBe(0);

      const ok = await run(["call", ...flags, "GET", "/operations?limit=1"], { cwd });
      expect(ok.stderr).toBe("");
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^HTTP 200 OK\n/);
      expect(ok.stdout).toContain('"totalPages": 0');

      // Each flag is used: a wrong kid or key is refused by the server.
      const wrongKid = await run(
        ["call", ...flags.slice(0, 4), "--kid", "k9", "--key-file", "k1.pem", "GET", "/operations"],
        {
          cwd,
        },
      );
      expect(wrongKid.code).toBe(1);
      expect(wrongKid.stdout).toMatch(/^HTTP 401 /);
      const wrongKey = await run(
        ["call", ...flags.slice(0, 2), "--api-key", "nope", ...flags.slice(4), "GET", "/operations"],
        {
          cwd,
        },
      );
      expect(wrongKey.stdout).toMatch(/^HTTP 401 /);

      // A missing flag without a credentials file is a usage error naming the way out.
      const partial = await run(["call", "--base-url", server.url, "GET", "/health"], { cwd });
      expect(partial.code).toBe(2);
      expect(partial.stderr).toMatch(/no credentials at .*--api-key, --kid and --key-file/);

      // A body file that is not there is a command-line mistake too: exit 2, one line.
      const missing = await run(["call", ...flags, "POST", "/customers", "@/nonexistent/body.json"], { cwd });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(
        /^wallet: call: cannot read the body file \/nonexistent\/body\.json \(ENOENT\)[^\n]*\n$/,
      );
    } finally {
      await server.close();
    }
  });
});

describe("wallet call and admin meet a redirect", () => {
  it("print it and stop: the key, the signature and the admin token never reach the Location", async () => {
    const { createServer } = await import("node:http");
    const seen: { path: string; headers: string[] }[] = [];
    const proxy = createServer((req, res) => {
      seen.push({ path: req.url ?? "", headers: Object.keys(req.headers) });
      if (req.url?.startsWith("/elsewhere")) return res.end("{}");
      res.writeHead(307, { Location: "/elsewhere" }).end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const cwd = mkdtempSync(join(tmpdir(), "wallet-call-redirect-"));
      writeFileSync(join(cwd, "k1.pem"), testPrivateKeyPem, { mode: 0o600 });
      const signed = ["--base-url", base, "--api-key", API_KEY, "--kid", "k1", "--key-file", "k1.pem"];
      const call = await run(["call", ...signed, "POST", "/wallet-credits", '{"amountMinor":1}'], { cwd });
      const admin = await run(["admin", "--base-url", base, "GET", "/ledger/trial-balance"], {
        cwd,
        env: adminEnv,
      });
      for (const result of [call, admin]) {
        expect(result.code).toBe(1);
        expect(result.stdout).toMatch(/^HTTP 307 /);
      }
      expect(seen.map((s) => s.path)).toEqual([
        "/api/v1/tenant/wallet-credits",
        "/api/v1/admin/ledger/trial-balance",
      ]);
      expect(seen[0]!.headers).toEqual(expect.arrayContaining(["x-api-key", "x-signature", "content-type"]));
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
