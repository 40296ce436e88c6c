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

const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: shutdown.signal,
});
process.exitCode = code;
process.off("SIGTERM", onSignal);
process.off("SIGINT", onSignal);
