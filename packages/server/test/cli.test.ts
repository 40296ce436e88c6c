import { spawn } from "node:child_process";
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { usage } from "../src/cli/help.js";
import { designExample } from "./fixtures.js";
import { run, serve } from "./helpers.js";
import { cliPath, ensureServerBuilt } from "./reliability/support/server-process.js";

const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `wallet-${name}-`));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe("wallet keygen", () => {
  it("prints the public key, writes the private key 0600 and never overwrites", async () => {
    const cwd = tempDir("keygen");
    const first = await run(["keygen", "--kid", "k2", "--out", "keys/k2.pem"], { cwd });
    expect(first.code).toBe(0);
    const file = join(cwd, "keys", "k2.pem");
    expect(modeOf(file)).toBe(0o600);
    const privateKeyPem = readFileSync(file, "utf8");
    expect(first.stdout).not.toContain("PRIVATE KEY");
    expect(first.stderr).not.toContain("PRIVATE KEY");
    const publicKey = createPublicKey(first.stdout);
    expect(publicKey.asymmetricKeyType).toBe("ed25519");
    expect(createPublicKey(createPrivateKey(privateKeyPem)).export({ type: "spki", format: "pem" })).toBe(
      first.stdout,
    );
    expect(first.stderr).toContain("kid: k2");

    const second = await run(["keygen", "--kid", "k2", "--out", "keys/k2.pem"], { cwd });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/already exists/);
    expect(readFileSync(file, "utf8")).toBe(privateKeyPem);
  });

  it("refuses a bad kid as a usage error", async () => {
    const result = await run(["keygen", "--kid", "bad kid"], { cwd: tempDir("keygen") });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("wallet serve refusals", () => {
  const writeConfig = (dir: string, config: unknown) => {
    const file = join(dir, "wallet.config.json");
    writeFileSync(file, JSON.stringify(config));
    return file;
  };

  it("exits 1 with the config error's one line", async () => {
    const cwd = tempDir("badconfig");
    const config = designExample();
    config.tenants[0].signingKeys.push({ ...config.tenants[0].signingKeys[0] });
    const file = writeConfig(cwd, config);
    const result = await run(["serve", "--config", file, "--port", "0"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('wallet: config: tenants[0].signingKeys[1].kid: duplicate kid "k1"\n');
  });

  it("reads the config path from WALLET_CONFIG", async () => {
    const cwd = tempDir("envconfig");
    writeConfig(cwd, { ...designExample(), extra: 1 });
    const result = await run(["serve", "--port", "0"], { cwd, env: { WALLET_CONFIG: "wallet.config.json" } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("wallet: config: extra: unknown key\n");
  });

  it("requires WALLET_PII_KEY outside sandbox", async () => {
    const cwd = tempDir("nopii");
    const config = designExample();
    config.sandbox = false;
    config.tenants[0].apiKeys = [{ sha256: "a".repeat(64) }];
    const file = writeConfig(cwd, config);
    const result = await run(["serve", "--config", file, "--port", "0"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "wallet: WALLET_PII_KEY is required outside sandbox mode (32 random bytes, base64)\n",
    );
  });

  it("names LOG_LEVEL and its values when it holds no level", async () => {
    const cwd = tempDir("loglevel");
    const file = writeConfig(cwd, designExample());
    const result = await run(["serve", "--config", file, "--port", "0"], {
      cwd,
      env: { LOG_LEVEL: "bogus" },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'wallet: LOG_LEVEL: expected one of fatal, error, warn, info, debug, trace, silent, got "bogus"\n',
    );
  });

  it("exits 1 with one line when the database is unreachable, without its password", async () => {
    const cwd = tempDir("nodb");
    const file = writeConfig(cwd, designExample());
    const result = await run(
      ["serve", "--config", file, "--port", "0", "--db", "postgres://wallet:hunter2@127.0.0.1:1/wallet"],
      { cwd, env: { WALLET_PII_KEY: randomBytes(32).toString("base64") } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^wallet: database postgres:\/\/wallet:\*\*\*@127\.0\.0\.1:1\/wallet is unreachable: connect ECONNREFUSED 127\.0\.0\.1:1\n$/,
    );
    expect(result.stderr).not.toContain("hunter2");
  });

  it("exits 1 with one line when the port is taken", async () => {
    const cwd = tempDir("busy");
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    try {
      const port = String((busy.address() as AddressInfo).port);
      const result = await run(["serve", "--config", writeConfig(cwd, designExample()), "--port", port], {
        cwd,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        new RegExp(`^wallet: cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*\\n$`),
      );
    } finally {
      busy.close();
    }
  });

  it("refuses a bad port and an unknown option as usage errors", async () => {
    const cwd = tempDir("usage");
    expect((await run(["serve", "--port", "99999"], { cwd })).code).toBe(2);
    expect((await run(["serve", "--prot", "1"], { cwd })).code).toBe(2);
    expect((await run(["nope"], { cwd })).code).toBe(2);
    // A value that starts with a dash: the message says how to write one.
    const dashed = await run(["serve", "--port", "-1"], { cwd });
    expect(dashed.code).toBe(2);
    expect(dashed.stderr).toContain("use '--port=-XYZ'");
  });
});

describe("wallet migrate", () => {
  it("migrates a sqlite database and exits 0", async () => {
    const cwd = tempDir("migrate");
    const result = await run(["migrate", "--db", "sqlite:./db/w.db"], { cwd });
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(statSync(join(cwd, "db", "w.db")).size).toBeGreaterThan(0);
  });

  it("refuses, with serve's line and status, a tenant that serve's first insert would refuse", async () => {
    const cwd = tempDir("migrate-insert");
    type Webhook = { url: string | null; secrets: Array<{ createdAt?: string }> };
    const edits: Array<(w: Webhook) => void> = [
      (w) => {
        w.url = null;
      },
      (w) => {
        w.secrets = [];
      },
      (w) => {
        w.secrets[0]!.createdAt = "2099-01-01T00:00:00Z";
      },
    ];
    for (const [n, edit] of edits.entries()) {
      const raw = designExample();
      edit(raw.tenants[0].webhook);
      const file = join(cwd, `refused-${n}.json`);
      writeFileSync(file, JSON.stringify(raw));
      const db = `sqlite:./refused-${n}.db`;
      const migrated = await run(["migrate", "--config", file, "--db", db], { cwd });
      expect(migrated.stdout).toBe("");
      expect(migrated.stderr).toMatch(
        /^wallet: config: tenants\[0\]\.webhook\.(url|secrets(\[0\]\.createdAt)?): .+\n$/,
      );
      expect(migrated.code).toBe(1);
      const served = await run(["serve", "--config", file, "--db", db, "--port", "0"], { cwd });
      expect(served).toMatchObject({ code: 1, stderr: migrated.stderr });
    }
  });

  it("does not check the file's webhook of a tenant the database holds already, as serve does not", async () => {
    const cwd = tempDir("migrate-existing");
    writeFileSync(join(cwd, "first.json"), JSON.stringify(designExample()));
    const first = await serve(["--config", "first.json", "--db", "sqlite:./w.db", "--port", "0"], { cwd });
    expect(await first.stop()).toBe(0);
    // After the first insert the operator API owns the webhook: the file may drop its secret.
    const raw = designExample();
    raw.tenants[0].webhook.secrets = [];
    writeFileSync(join(cwd, "later.json"), JSON.stringify(raw));
    const migrated = await run(["migrate", "--config", "later.json", "--db", "sqlite:./w.db"], { cwd });
    expect(migrated).toMatchObject({ code: 0, stderr: "" });
    expect(migrated.stdout).toMatch(/^migrated sqlite:.*w\.db\n$/);
  });

  it("refuses, with serve's line and status, a new tenant whose API key another tenant holds", async () => {
    const cwd = tempDir("migrate-api-key");
    writeFileSync(join(cwd, "first.json"), JSON.stringify(designExample()));
    const first = await serve(["--config", "first.json", "--db", "sqlite:./w.db", "--port", "0"], { cwd });
    expect(await first.stop()).toBe(0);
    const raw = designExample();
    raw.tenants[0].id = "gamma";
    writeFileSync(join(cwd, "second.json"), JSON.stringify(raw));
    const migrated = await run(["migrate", "--config", "second.json", "--db", "sqlite:./w.db"], { cwd });
    expect(migrated).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "wallet: config: tenants[0].apiKeys[0]: API key already belongs to another tenant\n",
    });
    const served = await run(["serve", "--config", "second.json", "--db", "sqlite:./w.db", "--port", "0"], {
      cwd,
    });
    expect(served).toMatchObject({ code: 1, stderr: migrated.stderr });
  });
});

describe("wallet <command> --help", () => {
  it("prints the usage and exits 0 for every command, with --help or -h", async () => {
    const cwd = tempDir("help");
    for (const command of ["serve", "migrate", "keygen", "call", "admin", "demo"]) {
      for (const flag of ["--help", "-h"]) {
        const result = await run([command, flag], { cwd });
        expect(result, `${command} ${flag}`).toEqual({ code: 0, stdout: usage, stderr: "" });
      }
    }
    // After other arguments too; after `--` it is an argument, not a request for help.
    expect(await run(["call", "GET", "/health", "--help"], { cwd })).toMatchObject({
      code: 0,
      stdout: usage,
    });
    expect((await run(["keygen", "--", "-h"], { cwd })).code).toBe(2);
  });
});

describe("wallet call --key-file", () => {
  it("refuses an empty path, a missing, empty or unusable key file as command-line mistakes (exit 2)", async () => {
    const cwd = tempDir("keyfile");
    writeFileSync(join(cwd, "empty.pem"), "");
    writeFileSync(join(cwd, "garbage.pem"), "garbage\n");
    const ed = generateKeyPairSync("ed25519");
    writeFileSync(join(cwd, "public.pem"), ed.publicKey.export({ type: "spki", format: "pem" }));
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    writeFileSync(join(cwd, "rsa.pem"), rsa.privateKey.export({ type: "pkcs8", format: "pem" }));
    const flags = ["--base-url", "http://127.0.0.1:1", "--api-key", "k", "--kid", "k1"];
    for (const [keyFile, reason] of [
      ["", "--key-file: expected the path of a private key PEM, got an empty string"],
      ["missing.pem", "--key-file: cannot read missing.pem (ENOENT)"],
      [".", "--key-file: cannot read . (EISDIR)"],
      ["empty.pem", "--key-file: empty.pem is empty"],
      ["garbage.pem", '--key-file: not a private key PEM (expected "-----BEGIN PRIVATE KEY-----", Ed25519)'],
      ["public.pem", '--key-file: not a private key PEM (expected "-----BEGIN PRIVATE KEY-----", Ed25519)'],
      ["rsa.pem", "--key-file: expected an Ed25519 private key, got rsa"],
    ] as const) {
      const result = await run(["call", ...flags, "--key-file", keyFile, "GET", "/health"], { cwd });
      expect(result).toEqual({ code: 2, stdout: "", stderr: `wallet: ${reason}; see "wallet help"\n` });
    }
  });
});

describe("the demo, end to end", () => {
  it("creates the demo once, serves signed calls, shuts down cleanly and reuses it without re-funding", async () => {
    const cwd = tempDir("demo");
    const demoDir = join(cwd, "data", "demo");

    const first = await serve(["--port", "0"], { cwd });
    expect(modeOf(join(demoDir, "credentials.json"))).toBe(0o600);
    expect(modeOf(join(demoDir, "demo-k1.private.pem"))).toBe(0o600);
    expect(modeOf(join(demoDir, "pii.key"))).toBe(0o600);
    const credentials = JSON.parse(readFileSync(join(demoDir, "credentials.json"), "utf8"));
    expect(Object.keys(credentials).sort()).toEqual(["apiKey", "baseUrl", "kid", "privateKeyPem"]);
    expect(credentials.baseUrl).toBe(first.server.url);
    expect(credentials.kid).toBe("demo-k1");
    // The config holds the key's hash only.
    expect(readFileSync(join(demoDir, "wallet.config.json"), "utf8")).not.toContain(credentials.apiKey);
    const { stdout, stderr: banner } = first.output();
    // The origin, which is what credentials.json and the SDK take as baseUrl.
    expect(banner).toContain(`Base URL:    ${first.server.url} (tenant API under /api/v1/tenant)`);
    expect(banner).toContain("npx pnpm@10 wallet call GET /health");
    expect(stdout).toContain("demo prefund posted");
    expect(banner + stdout).not.toContain(credentials.apiKey);
    // stdout is JSON lines only (the banner is for the terminal, on stderr).
    const lines = stdout.split("\n").filter((l) => l !== "");
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();

    const health = await run(["call", "GET", "/health"], { cwd });
    expect(health.code).toBe(0);
    expect(health.stdout).toMatch(/^HTTP 200 OK\n/);
    expect(health.stdout).toMatch(/X-Request-Id: cli-/);
    expect(health.stdout).toContain('"status": "ok"');

    const customerBody = banner.match(/call POST \/customers '(.+)'/)?.[1];
    expect(customerBody).toBeDefined();
    const customer = await run(["call", "POST", "/api/v1/tenant/customers", customerBody ?? ""], { cwd });
    expect(customer.stderr).toBe("");
    expect(customer.stdout).toMatch(/^HTTP 201 /);
    expect(customer.stdout).toContain("Idempotent-Replayed: false");
    const walletUid = customer.stdout.match(/"walletUid": "(wal_[0-9A-Z]+)"/)?.[1];
    expect(walletUid).toBeDefined();

    const credit = JSON.stringify({
      walletUid,
      amountMinor: 50_000,
      currency: "KES",
      clientReference: "e2e-credit-1",
    });
    const args = ["call", "--idempotency-key", "e2e-credit-key-1", "POST", "/wallet-credits", credit];
    const credited = await run(args, { cwd });
    expect(credited.stdout).toMatch(/^HTTP 201 /);
    expect(credited.stdout).toContain('"amountMinor": 50000');
    const replayed = await run(args, { cwd });
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain("Idempotent-Replayed: true");

    const balance = await run(["call", "GET", `/wallets/${walletUid}/balance`], { cwd });
    expect(balance.stdout).toContain('"availableMinor": 50000');

    // A refusal exits 1 and still prints the status and body.
    const refused = await run(["call", "POST", "/wallet-credits", JSON.stringify({ walletUid })], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^HTTP 400 /);
    expect(refused.stdout).toContain('"error": "InvalidRequest"');

    expect(await first.stop()).toBe(0);
    expect(first.output().stdout).toContain('"msg":"stopped"');
    // The port is closed after shutdown.
    await expect(fetch(`${first.server.url}/api/v1/tenant/health`)).rejects.toThrow();

    // Second start: same demo (given explicitly this time), same keys, no second prefund.
    const adminEnv = { WALLET_ADMIN_TOKEN: "e2e-admin-token-0123456789" };
    const second = await serve(["--port", "0", "--data-dir", demoDir], { cwd, env: adminEnv });
    try {
      const again = JSON.parse(readFileSync(join(demoDir, "credentials.json"), "utf8"));
      expect(again.apiKey).toBe(credentials.apiKey);
      expect(again.baseUrl).toBe(second.server.url);
      expect(second.output().stdout).not.toContain("demo prefund posted");
      // Its fixed onboarding and credit examples ran already: they would answer 409 now.
      expect(second.output().stderr).toContain("reused: the data of earlier runs is still there");
      expect(second.output().stderr).toContain("wallet call --data-dir");
      expect(second.output().stderr).not.toContain("POST /customers");
      expect(second.output().stderr).not.toContain("POST /wallet-credits");
      const { getPrefund } = await import("@wallet/ledger-core");
      const prefund = await second.server.store.uow.run((tx) =>
        getPrefund(second.server.core, tx, "demo", "KES"),
      );
      expect(prefund.balanceMinor).toBe(100_000_000 - 50_000);

      const stillThere = await run(["call", "--data-dir", demoDir, "GET", `/wallets/${walletUid}/balance`], {
        cwd: tmpdir(),
      });
      expect(stillThere.code).toBe(0);
      expect(stillThere.stdout).toContain('"availableMinor": 50000');

      const viaAdmin = await run(["admin", "GET", "/tenants/demo/prefund?currency=KES"], {
        cwd,
        env: adminEnv,
      });
      expect(viaAdmin.code).toBe(0);
      expect(viaAdmin.stdout).toContain(`"balanceMinor": ${100_000_000 - 50_000}`);
      const wrongToken = await run(["admin", "GET", "/ledger/trial-balance"], {
        cwd,
        env: { WALLET_ADMIN_TOKEN: "not-the-token-0123456789" },
      });
      expect(wrongToken.code).toBe(1);
      expect(wrongToken.stdout).toMatch(/^HTTP 401 /);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it("explains where credentials come from when there are none", async () => {
    const cwd = tempDir("nocreds");
    mkdirSync(join(cwd, "data"));
    const result = await run(["call", "GET", "/health"], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no credentials at .*credentials\.json/);
  });
});

describe("the wallet bin, its stdout closed early (`wallet call ... | head -c 20`)", () => {
  beforeAll(() => ensureServerBuilt(), 200_000);

  /** Runs dist/cli.js with the read end of its stdout closed before it writes anything. */
  const runClosed = (args: string[], cwd: string) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [cliPath, ...args], {
        cwd,
        env: { PATH: process.env.PATH ?? "", TMPDIR: tmpdir() },
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString("utf8");
      });
      child.on("close", (code) => resolve({ code, stderr }));
    });

  it("exits quietly with the command's own status, no EPIPE crash", async () => {
    const cwd = tempDir("epipe");
    expect(await runClosed(["help"], cwd)).toEqual({ code: 0, stderr: "" });
    const demo = await serve(["--port", "0"], { cwd });
    try {
      expect(await runClosed(["call", "GET", "/openapi.json"], cwd)).toEqual({ code: 0, stderr: "" });
      // A 404 is still exit 1, and still says nothing on stderr.
      expect(await runClosed(["call", "GET", "/no-such-route"], cwd)).toEqual({ code: 1, stderr: "" });
    } finally {
      expect(await demo.stop()).toBe(0);
    }
  });

  it("stops serve gracefully, as SIGTERM does, when nobody reads its log any more", async () => {
    const result = await runClosed(["serve", "--port", "0"], tempDir("epipe-serve"));
    expect(result.code).toBe(0);
    // Nothing on stderr but the demo's banner, if it came out before the shutdown.
    expect(result.stderr.replace(/\s*Demo sandbox [\s\S]*Stop with Ctrl-C\.\s*/, "")).toBe("");
  }, 60_000);
});
