/**
 * Converts a 64-bit integer read from the database into a `number`, refusing any value a
 * `number` cannot hold exactly. Losing a cent silently is worse than failing loudly.
 */
export function toExactNumber(value: bigint | number | string): number {
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw new RangeError(`Database value ${value} is not a safe integer`);
    return value;
  }
  if (typeof value === "bigint") {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new RangeError(`Database integer ${value} exceeds 2^53-1 and cannot be read exactly`);
    }
    return Number(value);
  }
  // Postgres sends int8 and numeric as decimal text.
  if (!/^-?\d+$/.test(value)) throw new RangeError(`Database value ${value} is not an integer`);
  return toExactNumber(BigInt(value));
}
