import { describe, expect, it } from "vitest";
import {
  backoffDelayMs,
  isRetryableStatus,
  parseRetryAfterMs,
  resolveRetryPolicy,
  retryDelayMs,
} from "../src/client/retry-policy.js";
import { TimestampAllocator } from "../src/client/timestamp-allocator.js";

describe("retry policy", () => {
  const policy = resolveRetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, retryAfterMaxMs: 5000 });

  it("retries 429 and 5xx only", () => {
    expect([408, 429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 404, 409, 422, 600].some(isRetryableStatus)).toBe(false);
  });

  it("doubles the backoff step per retry, caps it, and jitters within the upper half", () => {
    expect(backoffDelayMs(1, policy, () => 0)).toBe(50);
    expect(backoffDelayMs(1, policy, () => 1)).toBe(100);
    expect(backoffDelayMs(3, policy, () => 1)).toBe(400);
    expect(backoffDelayMs(10, policy, () => 1)).toBe(1000);
    expect(backoffDelayMs(10, policy, () => 0)).toBe(500);
  });

  it("reads Retry-After as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfterMs("2", now)).toBe(2000);
    expect(parseRetryAfterMs(" 0 ", now)).toBe(0);
    expect(parseRetryAfterMs("Thu, 01 Jan 2026 00:00:03 GMT", now)).toBe(3000);
    expect(parseRetryAfterMs("Wed, 31 Dec 2025 00:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
    // Not delay-seconds nor an HTTP-date: the backoff applies (Date.parse reads "1.5" as 2001).
    for (const odd of ["1.5", "0.5", "-1", "2026-01-01", "1e3"])
      expect(parseRetryAfterMs(odd, now), odd).toBeUndefined();
  });

  it("prefers the server's Retry-After, capped", () => {
    expect(retryDelayMs(1, "3", policy)).toBe(3000);
    expect(retryDelayMs(1, "60", policy)).toBe(5000);
    const fallback = retryDelayMs(1, "soon", policy);
    expect(fallback).toBeGreaterThanOrEqual(50);
    expect(fallback).toBeLessThanOrEqual(100);
  });
});

describe("TimestampAllocator", () => {
  it("gives an identical request the next free second and leaves others alone", () => {
    const timestamps = new TimestampAllocator();
    expect(timestamps.next("GET /a", 100)).toBe(100);
    expect(timestamps.next("GET /a", 100)).toBe(101);
    expect(timestamps.next("GET /a", 100)).toBe(102);
    expect(timestamps.next("GET /b", 100)).toBe(100);
    expect(timestamps.next("GET /a", 101)).toBe(103);
    expect(timestamps.next("GET /a", 200)).toBe(200);
  });
});
