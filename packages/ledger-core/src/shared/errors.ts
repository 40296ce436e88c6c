/**
 * Expected refusals are values with a stable code; bugs throw plain Errors.
 * The HTTP adapter owns the one exhaustive `Record<ErrorCode, status>` table.
 */
export const errorCodes = [
  "InvalidRequest",
  "NotFound",
  "Conflict",
  "FundingNotPositioned",
  "InsufficientFunds",
  "LimitExceeded",
  "MaxBalanceExceeded",
  "AuthorizationInsufficient",
  "AssertionNotBoundToTransaction",
  "UnprocessableEntity",
  "MandateFrequencyExceeded",
  "IdempotencyKeyReused",
  "IdempotencyKeyInUse",
  "WalletNotActive",
  "CustomerNotActive",
  "CurrencyMismatch",
] as const;

export type ErrorCode = (typeof errorCodes)[number];

export interface ErrorDetail {
  /** JSON path of the offending field, e.g. `identifiers[0].value`. */
  field: string;
  issue: string;
}

/** A refusal the caller can act on. Carries no personal data. */
export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }
}

/**
 * A row this transaction read changed before it wrote it: an optimistic version check lost to a
 * concurrent request (the SQL stores; the memory store runs one unit at a time). The caller sees a
 * 409 Conflict, but nothing is wrong with the request: `runIdempotent` runs the work again rather
 * than storing this answer under the Idempotency-Key.
 */
export class ConcurrentUpdateError extends DomainError {
  constructor(what: string) {
    super("Conflict", `The ${what} was changed by a concurrent request; retry`);
  }
}

export const refuse = (code: ErrorCode, message: string, details?: ErrorDetail[]): never => {
  throw new DomainError(code, message, details);
};

export const notFound = (what = "Resource"): never => refuse("NotFound", `${what} not found`);

/**
 * Domain guard for a value of a closed set that reaches a use case without the HTTP schema
 * (embedding): anything else is refused 400 before it can pick a branch (an unknown payout outcome
 * must not be taken for "failed") or be stored as a state.
 */
export function assertOneOf<T extends string>(
  field: string,
  value: unknown,
  allowed: readonly T[],
): asserts value is T {
  if (!(allowed as readonly unknown[]).includes(value)) {
    refuse("InvalidRequest", `${field} must be one of ${allowed.join(", ")}`, [
      { field, issue: `expected one of ${allowed.join(", ")}` },
    ]);
  }
}

/**
 * Domain guard for a count that reaches a use case without the HTTP schema (embedding): a whole
 * number from 1 to `max`, else 400 naming `field`.
 */
export function assertCount(
  field: string,
  value: unknown,
  max = Number.MAX_SAFE_INTEGER,
): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? "from 1" : `from 1 to ${max}`;
    refuse("InvalidRequest", `${field} must be a whole number ${range}`, [
      { field, issue: `must be a whole number ${range}` },
    ]);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/** Programmer errors: a broken invariant is a bug, never a refusal. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`Invariant violated: ${message}`);
}

/**
 * The store cannot be reached (database down, pool exhausted). Adapters throw it for connection
 * failures so the HTTP layer answers 503 instead of 500.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}
