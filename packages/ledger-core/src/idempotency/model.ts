/** The outcome stored for a key and replayed byte-for-byte on a retry. */
export interface StoredResponse {
  status: number;
  body: string;
}

export interface IdempotencyRecord {
  tenantId: string;
  key: string;
  /** The claim's keyed digest of the request (`IdempotencyClaim.requestHash`): same key + other request = IdempotencyKeyReused. */
  requestHash: string;
  state: "in_progress" | "completed";
  response: StoredResponse | null;
  /** While in_progress: until when the claim holds; a crashed claim is taken over after it. */
  lockedUntil: string;
  createdAt: string;
}

export type ClaimResult = { kind: "claimed" } | { kind: "existing"; record: IdempotencyRecord };

export interface IdempotencyRepository {
  /**
   * Claims the key atomically (unique index on tenant_id + key). If a record exists and is
   * in_progress with an expired lock, the claim takes it over; otherwise returns it.
   */
  claim(record: IdempotencyRecord): Promise<ClaimResult>;
  /**
   * Stores the response of the claim made at `claimedAt` (its `createdAt`, which names it): true,
   * or false when that claim is no longer the key's (its lock expired and another request took
   * the key over), and nothing is written.
   */
  complete(tenantId: string, key: string, claimedAt: string, response: StoredResponse): Promise<boolean>;
  /** Drops the claim made at `claimedAt` while in_progress (5xx, 400...); another claim stays. */
  release(tenantId: string, key: string, claimedAt: string): Promise<void>;
}
