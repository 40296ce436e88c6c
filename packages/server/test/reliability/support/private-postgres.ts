import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { freePort } from "./server-process.js";

/**
 * A Postgres cluster of this test's own (initdb into a temp dir, pg_ctl on a free port), so a
 * test may stop and start it without touching the shared cluster on :5432. As root, the tools run
 * as the `postgres` OS user (initdb refuses root).
 */
export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  /** `pg_ctl stop -m immediate`: the server dies as in a crash, connections are cut. */
  stopImmediately(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** The directory of initdb and pg_ctl, or null when no Postgres server binaries are installed. */
export function postgresBinDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")) && existsSync(join(base, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(base, versions[0], "bin");
}

function run(bin: string, args: string[], asPostgres: boolean, timeoutMs: number): Promise<void> {
  const [file, argv] = asPostgres ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  return new Promise((resolve, reject) =>
    execFile(file, argv, { timeout: timeoutMs }, (e, stdout, stderr) =>
      e
        ? reject(
            new Error(`${bin.split("/").pop()} ${args[0] ?? ""} failed: ${stderr || stdout || e.message}`),
          )
        : resolve(),
    ),
  );
}

export async function startPrivatePostgres(binDir: string): Promise<PrivatePostgres> {
  const asPostgres = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), "wallet-private-pg-"));
  const data = join(dir, "data");
  const sockets = join(dir, "sockets");
  mkdirSync(sockets);
  if (asPostgres) {
    const { uid, gid } = { uid: Number(await idOf("-u")), gid: Number(await idOf("-g")) };
    for (const p of [dir, sockets]) chownSync(p, uid, gid);
  }
  const port = await freePort();
  await run(
    join(binDir, "initdb"),
    ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"],
    asPostgres,
    60_000,
  );
  const pgCtl = join(binDir, "pg_ctl");
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${sockets} -c max_connections=50`;
  const start = () =>
    run(
      pgCtl,
      ["start", "-D", data, "-w", "-t", "30", "-l", join(dir, "postgres.log"), "-o", options],
      asPostgres,
      40_000,
    );
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stopImmediately() {
      await run(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w", "-t", "30"], asPostgres, 40_000);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async destroy() {
      if (running)
        await run(pgCtl, ["stop", "-D", data, "-m", "immediate", "-w", "-t", "30"], asPostgres, 40_000).catch(
          () => {},
        );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function idOf(flag: "-u" | "-g"): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile("id", [flag, "postgres"], { timeout: 5_000 }, (e, stdout) =>
      e ? reject(e) : resolve(stdout.trim()),
    ),
  );
}
