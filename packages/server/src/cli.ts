#!/usr/bin/env node
import { main } from "./cli/main.js";

// The bin: real process streams, environment and signals around the testable `main`.
const shutdown = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals++;
  // A second signal means "now": skip the graceful wait.
  if (signals > 1) process.exit(signal === "SIGINT" ? 130 : 143);
  shutdown.abort(signal);
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

// A reader that went away (`wallet call ... | head -n 1`) is not a failure of the command: what
// is left to print goes nowhere, and the command exits with its own code. Node ignores SIGPIPE,
// so without this a write to the closed pipe is an unhandled EPIPE crash. `serve`, whose log
// nobody reads any more, shuts down as on SIGTERM.
const closed = { stdout: false, stderr: false };
for (const name of ["stdout", "stderr"] as const) {
  process[name].on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    closed[name] = true;
    if (name === "stdout") shutdown.abort("SIGPIPE");
  });
}

const code = await main(process.argv.slice(2), {
  stdout: (text) => {
    if (!closed.stdout) process.stdout.write(text);
  },
  stderr: (text) => {
    if (!closed.stderr) process.stderr.write(text);
  },
  env: process.env,
  signal: shutdown.signal,
});
process.exitCode = code;
process.off("SIGTERM", onSignal);
process.off("SIGINT", onSignal);
