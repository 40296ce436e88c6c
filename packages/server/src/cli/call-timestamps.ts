import { createHmac } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Past this lead on the clock the call waits instead (the server allows 300 s of skew). */
const leadSecondsMax = 30;
/** The server's replay window; older entries can no longer collide. */
const windowSeconds = 600;
const entriesMax = 256;

/**
 * Ed25519 signatures are deterministic, so repeating the same request within one second (a
 * replayed write, a quick re-read) would send a signature the server has already seen and get a
 * 401. Each `wallet call` is its own process, so the last timestamp used per signed request is
 * kept in a small file (0600, HMAC-keyed by the credentials), and a repeat takes the next second. Returns the timestamp and how long to
 * wait before sending.
 */
export function allocateTimestamp(
  secret: string,
  requestKey: string,
  nowSeconds: number,
): { timestamp: number; waitMs: number } {
  // Keyed hashes only: the file must not let anyone recover a request body (it may hold PII).
  const file = join(tmpdir(), `wallet-call-${keyed(secret, "file").slice(0, 16)}.json`);
  let entries: Record<string, number> = {};
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null) entries = parsed as Record<string, number>;
  } catch {
    // First call, or an unreadable file: start afresh (the worst case is one 401).
  }
  const key = keyed(secret, requestKey);
  const last = typeof entries[key] === "number" ? entries[key] : 0;
  const timestamp = Math.max(nowSeconds, last + 1);
  const kept = Object.entries(entries)
    .filter(([, t]) => typeof t === "number" && t > nowSeconds - windowSeconds)
    .slice(-(entriesMax - 1));
  const next = Object.fromEntries([...kept.filter(([k]) => k !== key), [key, timestamp]]);
  try {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(next), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // Not being able to remember only risks a 401 on an immediate repeat.
  }
  return { timestamp, waitMs: Math.max(0, (timestamp - nowSeconds - leadSecondsMax) * 1000) };
}

const keyed = (secret: string, data: string) =>
  createHmac("sha256", secret).update(data, "utf8").digest("hex");
