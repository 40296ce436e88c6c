/**
 * Token buckets keyed by a string (the API key's hash), in memory. A bucket holds up to `burst`
 * tokens and refills at `perSecond`; a request takes one. The map is bounded: past `bucketsMax`
 * the least recently used bucket is dropped, which can only hand a caller a full bucket again.
 *
 * Per process by design (DESIGN.md section 7: rate-limit state is not needed for correctness).
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; updatedMs: number }>();

  constructor(private readonly bucketsMax: number) {}

  /** Takes a token: 0 when allowed, otherwise the whole seconds to wait before one is available. */
  take(key: string, perSecond: number, burst: number, nowMs: number): number {
    const capacity = Math.max(1, burst);
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: capacity, updatedMs: nowMs };
      if (this.#buckets.size >= this.bucketsMax) {
        const oldest = this.#buckets.keys().next().value;
        if (oldest !== undefined) this.#buckets.delete(oldest);
      }
    } else {
      this.#buckets.delete(key); // re-inserted below: most recently used last
      const elapsedMs = Math.max(0, nowMs - bucket.updatedMs);
      bucket.tokens = Math.min(capacity, bucket.tokens + (elapsedMs / 1000) * perSecond);
      // A clock that steps back must not move the mark back: the interval would be credited twice.
      bucket.updatedMs = Math.max(bucket.updatedMs, nowMs);
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    if (perSecond <= 0) return 60;
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
  }
}
