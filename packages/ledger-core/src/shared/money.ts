import { invariant, refuse } from "./errors.js";

/** Largest amount accepted anywhere: 2^53 - 1 minor units. */
export const MAX_MINOR = Number.MAX_SAFE_INTEGER;

/** A positive amount of minor units, 1 .. 2^53-1. */
export const isPositiveMinor = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 1;

/** Any exact integer amount (balances may be zero; entries may be negative). */
export const isSafeMinor = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

/** Adds amounts, asserting the result stays exact. */
export function addMinor(...amounts: number[]): number {
  let total = 0;
  for (const a of amounts) {
    total += a;
    invariant(Number.isSafeInteger(total), "money overflow");
  }
  return total;
}

/**
 * `amount * bps / 10_000`, rounded half up to the minor unit, in exact integer math.
 * BigInt keeps the product exact for every safe amount.
 */
export function percentOfRoundHalfUp(amountMinor: number, rateBps: number): number {
  invariant(Number.isSafeInteger(amountMinor) && amountMinor >= 0, "amount must be a non-negative integer");
  invariant(Number.isSafeInteger(rateBps) && rateBps >= 0, "rate must be non-negative integer basis points");
  const product = BigInt(amountMinor) * BigInt(rateBps);
  const result = (product + 5_000n) / 10_000n;
  invariant(result <= BigInt(Number.MAX_SAFE_INTEGER), "money overflow");
  return Number(result);
}

/** Domain guard for amounts that reach a use case without the HTTP schema (embedding). */
export function assertPositiveAmount(amountMinor: number, field = "amountMinor"): void {
  if (!isPositiveMinor(amountMinor)) {
    refuse("InvalidRequest", "amountMinor must be an integer between 1 and 2^53-1", [
      { field, issue: "invalid amount" },
    ]);
  }
}

/** An ISO-4217 alphabetic code, as the API writes currencies. */
export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** 400 unless `currency` is an ISO-4217 code: where no wallet's currency is there to compare with. */
export function assertCurrencyCode(currency: unknown, field = "currency"): asserts currency is string {
  if (typeof currency !== "string" || !CURRENCY_CODE.test(currency)) {
    refuse("InvalidRequest", `${field} must be an ISO-4217 code`, [
      { field, issue: "must be an ISO-4217 code" },
    ]);
  }
}
