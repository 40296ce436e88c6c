#!/usr/bin/env node
// Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self time by function and by package, so
// a profile taken under `pnpm bench` can be read without a browser.
//   BENCH_SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" BENCH_ONLY=http pnpm bench
//   node bench/profile-summary.mjs /tmp/prof/CPU.*.cpuprofile [topN]
import { readFileSync } from "node:fs";

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write("usage: node bench/profile-summary.mjs <file.cpuprofile> [topN]\n");
  process.exit(64);
}
const top = Number(topArg ?? 40);
const profile = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0));
}
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Which package or area a script belongs to, from its URL. */
function area(url) {
  if (!url) return "(native/gc/idle)";
  const pkg = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ws = /packages\/([^/]+)\//.exec(url);
  if (ws) return `@wallet/${ws[1]}`;
  if (url.startsWith("node:")) return "node:internal";
  return url;
}

const fnTotals = new Map();
const areaTotals = new Map();
for (const [id, us] of selfUs) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const name = cf.functionName || "(anonymous)";
  const where = cf.url
    ? `${cf.url.replace(/^.*\/(packages|node_modules)\//, "$1/")}:${cf.lineNumber + 1}`
    : "";
  const key = `${name} ${where}`;
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + us);
  const a = area(cf.url);
  areaTotals.set(a, (areaTotals.get(a) ?? 0) + us);
}
// Inclusive time: each sample counts once for every distinct function on its stack.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n) => {
  const cf = n.callFrame;
  const where = cf.url
    ? `${cf.url.replace(/^.*\/(packages|node_modules)\//, "$1/")}:${cf.lineNumber + 1}`
    : "";
  return `${cf.functionName || "(anonymous)"} ${where}`;
};
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = keyOf(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
}
const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
process.stdout.write(`total sampled: ${(total / 1e6).toFixed(2)} s\n\nby area:\n`);
for (const [a, us] of [...areaTotals].sort((x, y) => y[1] - x[1]).slice(0, 20))
  process.stdout.write(`${pct(us)}  ${a}\n`);
process.stdout.write(`\nby function (self):\n`);
for (const [k, us] of [...fnTotals].sort((x, y) => y[1] - x[1]).slice(0, top))
  process.stdout.write(`${pct(us)}  ${k}\n`);
if (process.env.INCLUSIVE) {
  const match = new RegExp(process.env.INCLUSIVE);
  process.stdout.write(`\nby function (inclusive, matching ${match}):\n`);
  for (const [k, us] of [...inclusive]
    .filter(([k]) => match.test(k))
    .sort((x, y) => y[1] - x[1])
    .slice(0, top))
    process.stdout.write(`${pct(us)}  ${k}\n`);
}
