import { ConfigError } from "../config/config-error.js";
import { firstLine, StartupError } from "../startup-error.js";
import { adminCommand } from "./admin-command.js";
import { callCommand } from "./call-command.js";
import { demoCommand } from "./demo-command.js";
import { usage } from "./help.js";
import { type CliIo, line, UsageError } from "./io.js";
import { keygenCommand } from "./keygen-command.js";
import { migrateCommand } from "./migrate-command.js";
import { serveCommand } from "./serve-command.js";

const commands: Record<string, (argv: readonly string[], io: CliIo) => Promise<number>> = {
  serve: serveCommand,
  migrate: migrateCommand,
  keygen: keygenCommand,
  call: callCommand,
  admin: adminCommand,
  demo: demoCommand,
};

/**
 * The `wallet` command line. Resolves with the exit code; every failure is ONE line on stderr
 * (a config error names its JSON path). 2 = bad command line, 1 = anything else.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    (name === undefined ? io.stderr : io.stdout)(usage);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (command === undefined) {
    io.stderr(line(`wallet: unknown command "${name}"; see "wallet help"`));
    return 2;
  }
  if (asksForHelp(rest)) {
    io.stdout(usage);
    return 0;
  }
  try {
    return await command(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(line(`wallet: ${firstLine(e)}; see "wallet help"`));
      return 2;
    }
    const known = e instanceof ConfigError || e instanceof StartupError;
    io.stderr(line(`wallet: ${known ? firstLine(e) : `${name} failed: ${firstLine(e)}`}`));
    return 1;
  }
}

/** `wallet <command> --help` (or `-h`), anywhere before a `--` that ends the options. */
function asksForHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "--help" || arg === "-h") return true;
  }
  return false;
}
