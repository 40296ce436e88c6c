import http from "node:http";
import { percentile } from "./stats.mjs";

/** Longest a single request may take before the run counts it as failed and moves on. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Bodies of unexpected answers kept for the report: enough to diagnose, never a flood. */
const FAILURE_SAMPLES_MAX = 3;

/**
 * A closed-loop HTTP load generator: `connections` workers, each with its own keep-alive socket,
 * send one request at a time for `durationMs` (after `warmupMs` whose requests are not counted).
 * `makeRequest()` is called right before each send, so every request can be signed freshly.
 *
 * In-process and dependency-free (Node's http.Agent), so the harness needs nothing beyond the
 * workspace. Returns throughput and latency percentiles in milliseconds.
 *
 * @example
 *   const r = await runLoad({ origin: "http://127.0.0.1:8080", connections: 32, durationMs: 5000,
 *     expectStatus: 201, makeRequest: () => ({ method: "POST", path: "/x", headers: {}, body: "{}" }) });
 */
export async function runLoad({ origin, connections, durationMs, warmupMs = 0, expectStatus, makeRequest }) {
  const url = new URL(origin);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const latenciesUs = [];
  const failures = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const measureFrom = started + warmupMs;
  const endAt = measureFrom + durationMs;

  let exhausted = false;
  const worker = async () => {
    while (performance.now() < endAt) {
      const req = makeRequest();
      if (req === null) {
        exhausted = true; // the factory has no fresh request left (see uniqueGets)
        break;
      }
      const t0 = performance.now();
      const res = await send(agent, url, req).catch((e) => ({ status: 0, body: String(e?.message ?? e) }));
      const t1 = performance.now();
      if (t0 < measureFrom) continue;
      if (res.status === expectStatus) {
        ok++;
        latenciesUs.push(Math.round((t1 - t0) * 1000));
      } else {
        failed++;
        if (failures.length < FAILURE_SAMPLES_MAX) failures.push(`${res.status} ${res.body.slice(0, 300)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsedMs = performance.now() - measureFrom;
  agent.destroy();
  latenciesUs.sort((a, b) => a - b);
  if (exhausted) failures.push("stopped early: no fresh signed request left");
  return {
    ok,
    failed,
    failures,
    elapsedMs,
    perSecond: (ok / elapsedMs) * 1000,
    p50Ms: percentile(latenciesUs, 0.5) / 1000,
    p99Ms: percentile(latenciesUs, 0.99) / 1000,
  };
}

/** Sends one request and reads the whole answer; the body is kept only when it is not the expected one. */
function send(agent, url, { method, path, headers, body }) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(body, "utf8");
    const req = http.request(
      {
        agent,
        hostname: url.hostname,
        port: url.port,
        method,
        path,
        headers: payload === undefined ? headers : { ...headers, "content-length": payload.byteLength },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    req.on("error", reject);
    req.end(payload);
  });
}
