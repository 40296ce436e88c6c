export interface RetryOptions {
  /** Total tries including the first; default 3, at most 10. */
  attempts?: number | undefined;
  /** First backoff step; doubles per retry. Default 200 ms. */
  baseDelayMs?: number | undefined;
  /** Ceiling of one backoff step. Default 5 000 ms. */
  maxDelayMs?: number | undefined;
  /** Ceiling applied to a server's Retry-After. Default 20 000 ms. */
  retryAfterMaxMs?: number | undefined;
}

export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  retryAfterMaxMs: number;
}

const ATTEMPTS_MAX = 10;

function nonNegative(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0)
    throw new TypeError(`retry.${name} must be a non-negative number`);
  return value;
}

export function resolveRetryPolicy(options: RetryOptions = {}): RetryPolicy {
  const attempts = options.attempts ?? 3;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > ATTEMPTS_MAX) {
    throw new TypeError(`retry.attempts must be an integer from 1 to ${ATTEMPTS_MAX}`);
  }
  return {
    attempts,
    baseDelayMs: nonNegative(options.baseDelayMs, 200, "baseDelayMs"),
    maxDelayMs: nonNegative(options.maxDelayMs, 5_000, "maxDelayMs"),
    retryAfterMaxMs: nonNegative(options.retryAfterMaxMs, 20_000, "retryAfterMaxMs"),
  };
}

/**
 * 408 (the request did not reach the service in full, so it never ran), 429 and every 5xx may
 * succeed later; other statuses are answers and will not change.
 */
export const isRetryableStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status <= 599);

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random, so clients that
 * failed together spread out without any of them retrying immediately.
 */
export function backoffDelayMs(
  retryNumber: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retryNumber - 1));
  return step / 2 + random() * (step / 2);
}

/** Retry-After as delay-seconds or an HTTP-date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfterMs(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Otherwise only an HTTP-date (RFC 9110: "Sun, 06 Nov 1994 08:49:37 GMT"). Date.parse alone
  // would read "1.5" as a day in 2001 and retry at once; anything else falls back to the backoff.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/** The wait before the next try: the server's Retry-After when given (capped), else backoff. */
export function retryDelayMs(retryNumber: number, retryAfter: string | null, policy: RetryPolicy): number {
  const serverMs = parseRetryAfterMs(retryAfter);
  if (serverMs !== undefined) return Math.min(serverMs, policy.retryAfterMaxMs);
  return backoffDelayMs(retryNumber, policy);
}
