import type { ErrorCode } from "@wallet/ledger-core";

/**
 * The one table from a domain refusal to an HTTP status. A `Record` over every `ErrorCode`, so a
 * code added to the core fails the build here until it is given a status.
 */
export const errorStatus: Record<ErrorCode, 400 | 404 | 409 | 422> = {
  InvalidRequest: 400,
  NotFound: 404,
  Conflict: 409,
  IdempotencyKeyInUse: 409,
  FundingNotPositioned: 422,
  InsufficientFunds: 422,
  LimitExceeded: 422,
  MaxBalanceExceeded: 422,
  AuthorizationInsufficient: 422,
  AssertionNotBoundToTransaction: 422,
  UnprocessableEntity: 422,
  MandateFrequencyExceeded: 422,
  IdempotencyKeyReused: 422,
  WalletNotActive: 422,
  CustomerNotActive: 422,
  CurrencyMismatch: 422,
};

/** Refusal statuses whose response is stored under the Idempotency-Key and replayed (DESIGN.md section 3). */
export const storedRefusalStatuses: ReadonlySet<number> = new Set([404, 409, 422]);
