import { assertCount } from "./errors.js";
import { storedInstant } from "./time.js";

/**
 * A due job's instant and batch size as the core reads them when they come from an embedder's
 * untyped input: `limit` a whole number from 1 to `limitMax` and `asOf` an RFC 3339 timestamp,
 * returned in the stored form the jobs compare as text; else 400 naming the field, before
 * anything is read.
 */
export function jobBatchAsOf(asOfIso: unknown, limit: unknown, limitMax?: number): string {
  assertCount("limit", limit, limitMax);
  return storedInstant(asOfIso, "asOf", "upper");
}
