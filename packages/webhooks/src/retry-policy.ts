import type { DeliveryResult } from "@wallet/ledger-core";
import type { TransportResult } from "./transport.js";

/**
 * The spec's schedule: immediately, then 1 min, 5 min, 30 min, 2 h, 12 h, 12 h, 12 h after the
 * previous attempt. Entry n is the wait before attempt n + 1; its length is the attempt cap.
 */
export const defaultRetryScheduleSeconds: readonly number[] = [0, 60, 300, 1800, 7200, 43200, 43200, 43200];

/** How an answer counts: 2xx delivered; 5xx, 408, 429 and network trouble retried; the rest final. */
export function classifyAttempt(r: TransportResult): "delivered" | "retryable" | "permanent" {
  if ("error" in r) return "retryable";
  if (r.status >= 200 && r.status < 300) return "delivered";
  if (r.status >= 500 || r.status === 408 || r.status === 429) return "retryable";
  return "permanent";
}

/**
 * The result to record for attempt number `attemptNo` (1-based) that ended at `at`: a retryable
 * failure is due again `schedule[attemptNo]` seconds later, or failed once the schedule is used up.
 */
export function planAttemptResult(
  r: TransportResult,
  attemptNo: number,
  schedule: readonly number[],
  at: Date,
): DeliveryResult {
  const statusCode = "status" in r ? r.status : null;
  // A connection error keeps its code (ECONNREFUSED, ENOTFOUND, ...): the operator's log tells a
  // closed port from a name that does not resolve. Never the message, which may quote the URL.
  const error =
    "status" in r
      ? classifyAttempt(r) === "delivered"
        ? null
        : `HTTP ${r.status}`
      : r.error === "connection" && r.detail !== undefined
        ? `connection (${r.detail})`
        : r.error;
  const base = { attempted: true, statusCode, error, atIso: at.toISOString(), nextAttemptAt: null };
  const kind = classifyAttempt(r);
  if (kind === "delivered") return { ...base, outcome: "delivered" };
  const wait = schedule[attemptNo];
  if (kind === "permanent" || wait === undefined) return { ...base, outcome: "failed" };
  return {
    ...base,
    outcome: "retry",
    nextAttemptAt: new Date(at.getTime() + Math.round(wait * 1000)).toISOString(),
  };
}
