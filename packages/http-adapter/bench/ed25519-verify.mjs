// Ed25519 verification throughput: node:crypto sync, node:crypto async (callback, libuv pool),
// WebCrypto subtle.verify and @noble/ed25519 (pure JS, what the client SDK signs with).
// Usage: node packages/http-adapter/bench/ed25519-verify.mjs [secondsPerCase=1] [inFlight=64]

import { generateKeyPairSync, sign, verify, webcrypto } from "node:crypto";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";

const secondsPerCase = Number(process.argv[2] ?? 1);
const inFlight = Number(process.argv[3] ?? 64);
const budgetMs = secondsPerCase * 1000;

// A realistic canonical string: method, path+query, timestamp, body hash.
const data = Buffer.from(
  "POST\n/api/v1/tenant/wallet-credits\n1763812800\n0d6bd02579b1397e98e350115d1efe50eb1d1bd60238dc588ef981396de5b86a",
);
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
const signature = sign(null, data, privateKey);
const rawPublicKey = publicKey.export({ format: "der", type: "spki" }).subarray(-32);

/** Runs `once` repeatedly for the budget, `parallel` calls outstanding at a time; returns verifies/s. */
async function measure(once, parallel) {
  for (let i = 0; i < 200; i++) if (!(await once())) throw new Error("verification failed"); // warm-up
  let done = 0;
  const started = performance.now();
  const deadline = started + budgetMs;
  const lane = async () => {
    while (performance.now() < deadline) {
      if (!(await once())) throw new Error("verification failed");
      done++;
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return done / ((performance.now() - started) / 1000);
}

/** The event loop's responsiveness while a case runs: the worst delay of a 1 ms timer. */
function loopLagProbe() {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 1);
    last = now;
  }, 1);
  return () => {
    clearInterval(timer);
    // A case that never yields to timers (sync verification) shows up as one long final gap.
    return Math.max(worst, performance.now() - last - 1);
  };
}

const cases = [];
cases.push(["node:crypto verify (sync)", 1, () => Promise.resolve(verify(null, data, publicKey, signature))]);
cases.push([
  `node:crypto verify (async callback, ${inFlight} in flight)`,
  inFlight,
  () =>
    new Promise((resolve, reject) =>
      verify(null, data, publicKey, signature, (e, ok) => (e ? reject(e) : resolve(ok))),
    ),
]);
try {
  const key = await webcrypto.subtle.importKey("raw", rawPublicKey, { name: "Ed25519" }, false, ["verify"]);
  cases.push([
    `WebCrypto subtle.verify (${inFlight} in flight)`,
    inFlight,
    () => webcrypto.subtle.verify({ name: "Ed25519" }, key, signature, data),
  ]);
} catch (e) {
  console.log(`WebCrypto Ed25519: skipped (${e.message})`);
}
try {
  // Resolved from the client package, which depends on it; the adapter does not.
  const require = createRequire(new URL("../../client/package.json", import.meta.url));
  const ed = await import(require.resolve("@noble/ed25519"));
  const { sha512 } = await import(require.resolve("@noble/hashes/sha2.js"));
  ed.hashes.sha512 = sha512;
  cases.push([
    "@noble/ed25519 verify (sync, pure JS)",
    1,
    () => Promise.resolve(ed.verify(signature, data, rawPublicKey)),
  ]);
  cases.push([
    `@noble/ed25519 verifyAsync (${inFlight} in flight)`,
    inFlight,
    () => ed.verifyAsync(signature, data, rawPublicKey),
  ]);
} catch (e) {
  console.log(`@noble/ed25519: skipped (${e.message})`);
}

console.log(
  `Node ${process.version}, ${availableParallelism()} CPUs, UV_THREADPOOL_SIZE=${process.env.UV_THREADPOOL_SIZE ?? 4}`,
);
console.log(`${secondsPerCase}s per case\n`);
for (const [name, parallel, once] of cases) {
  const stopProbe = loopLagProbe();
  const perSecond = await measure(once, parallel);
  const lagMs = stopProbe();
  console.log(
    `${name.padEnd(52)} ${Math.round(perSecond).toString().padStart(8)} verifies/s   worst loop lag ${lagMs.toFixed(1)} ms`,
  );
}
