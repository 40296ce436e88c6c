/**
 * Hands out X-Timestamp values so this client never signs the same canonical string twice.
 *
 * Ed25519 is deterministic and the timestamp has one-second resolution, so two identical requests
 * (a retry after a fast 503, or the same GET polled twice) inside one second would carry the same
 * signature, and the server refuses a signature it has already seen. Each identical request
 * therefore takes the next free second. Only entries at or after the current second can collide,
 * so older ones are dropped and the map stays as small as one second of traffic.
 */
export class TimestampAllocator {
  readonly #lastBySignedRequest = new Map<string, number>();

  /** The epoch second to sign `key` (method, path+query and body hash) with, never earlier than `nowSeconds`. */
  next(key: string, nowSeconds: number): number {
    for (const [k, seconds] of this.#lastBySignedRequest) {
      if (seconds < nowSeconds) this.#lastBySignedRequest.delete(k);
    }
    const last = this.#lastBySignedRequest.get(key);
    const seconds = last === undefined ? nowSeconds : Math.max(nowSeconds, last + 1);
    this.#lastBySignedRequest.set(key, seconds);
    return seconds;
  }
}
