import { generateKeyPairSync } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { createFileOnce } from "../files/create-file-once.js";
import { parseCommandArgs } from "./args.js";
import { type CliIo, line, UsageError } from "./io.js";

const kidPattern = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * `wallet keygen [--kid K] [--out file]`: a new Ed25519 pair. The public key PEM goes to stdout
 * (so `wallet keygen > k2.pub.pem` works); the private key is written to `--out` with mode 0600
 * and never printed. An existing file is never overwritten.
 */
export async function keygenCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    kid: { type: "string" },
    out: { type: "string" },
  });
  if (positionals.length > 0) throw new UsageError(`keygen: unexpected "${positionals[0]}"`);
  const kid = values.kid ?? `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`;
  if (!kidPattern.test(kid)) throw new UsageError("--kid: expected 1-64 characters of [A-Za-z0-9._:-]");
  const out = resolve(io.cwd ?? process.cwd(), values.out ?? `${kid}.private.pem`);

  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();

  mkdirSync(dirname(out), { recursive: true });
  if (!createFileOnce(out, privateKeyPem, 0o600)) {
    io.stderr(line(`wallet: ${out} already exists; choose another --out`));
    return 1;
  }

  io.stdout(publicKeyPem);
  io.stderr(
    [
      `kid: ${kid}`,
      `private key: ${out} (mode 0600; keep it secret)`,
      "Register the public key (stdout) for the tenant, in the config:",
      `  ${JSON.stringify({ kid, publicKeyPem })}`,
      "or through the operator API: POST /api/v1/admin/tenants/{tenantId}/signing-keys",
    ]
      .map(line)
      .join(""),
  );
  return 0;
}
