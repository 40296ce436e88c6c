import { fork } from "node:child_process";
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";

const READY_TIMEOUT_MS = 180_000;
const CALL_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;

/**
 * Starts `bench/<script>` (or an absolute path) as a child process (its own event loop and heap, as a real server has)
 * and waits for its `ready` message. Calls are request/response over the IPC channel, each bounded.
 *
 * @example
 *   const child = await startChild("servers/bare-hono.mjs", { kind: "bare" });
 *   child.info.url; await child.call("rss"); await child.stop();
 */
export async function startChild(script, options = {}, { execArgv = [] } = {}) {
  const path = isAbsolute(script) ? script : fileURLToPath(new URL(`../${script}`, import.meta.url));
  const proc = fork(path, [], {
    execArgv,
    serialization: "advanced",
    env: { ...process.env, BENCH_CHILD_OPTIONS: JSON.stringify(options) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map();
  let nextId = 0;
  let exited = false;
  const exitedPromise = new Promise((resolve) => {
    proc.once("exit", (code, signal) => {
      exited = true;
      for (const { reject } of pending.values()) reject(new Error(`${script} exited (${code ?? signal})`));
      pending.clear();
      resolve();
    });
  });
  proc.on("message", (m) => {
    const waiter = pending.get(m.id);
    if (waiter === undefined) return;
    pending.delete(m.id);
    if (m.error !== undefined) waiter.reject(new Error(`${script}: ${m.error}`));
    else waiter.resolve(m.result);
  });

  const call = (type, payload = {}, timeoutMs = CALL_TIMEOUT_MS) => {
    if (exited) return Promise.reject(new Error(`${script} is not running`));
    const id = ++nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${script}: no answer to ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      proc.send({ id, type, ...payload });
    });
  };

  const stop = async () => {
    if (exited) return;
    proc.send({ id: 0, type: "stop" });
    const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exitedPromise;
    clearTimeout(timer);
  };

  let info;
  try {
    info = await call("ready", {}, READY_TIMEOUT_MS);
  } catch (e) {
    proc.kill("SIGKILL");
    throw e;
  }
  return { info, call, stop, pid: proc.pid };
}

/**
 * The child side: answers the parent's calls with `handlers[type](message)`. `ready` is answered
 * once `setup()` resolves; `stop` runs `close()` then exits. The child exits on its own when the
 * parent goes away, so a killed harness leaves no server behind.
 */
export function serveParent({ setup, handlers = {}, close = async () => {} }) {
  const options = JSON.parse(process.env.BENCH_CHILD_OPTIONS ?? "{}");
  const ready = setup(options);
  const reply = (id, body) => process.connected && process.send({ id, ...body });
  process.on("disconnect", () => {
    void Promise.resolve(close()).finally(() => process.exit(0));
  });
  process.on("message", async (m) => {
    if (m.type === "stop") {
      await Promise.resolve(close()).catch(() => {});
      process.exit(0);
    }
    try {
      const state = await ready;
      if (m.type === "ready") return reply(m.id, { result: state.info ?? {} });
      if (m.type === "rss")
        return reply(m.id, { result: { rssMb: process.memoryUsage().rss / 1024 / 1024 } });
      const handler = handlers[m.type];
      if (handler === undefined) throw new Error(`unknown call ${m.type}`);
      reply(m.id, { result: await handler(m, state) });
    } catch (e) {
      reply(m.id, { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    }
  });
}
