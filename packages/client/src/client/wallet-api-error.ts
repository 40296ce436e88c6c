/**
 * The error codes the service sends in the body's `error` field (DESIGN.md section 3 and
 * docs/decisions.md). A test checks this list against the server's status table.
 */
export const walletErrorCodes = [
  "InvalidRequest",
  "Unauthorized",
  "Forbidden",
  "NotFound",
  "Conflict",
  "IdempotencyKeyInUse",
  "PayloadTooLarge",
  "RequestTimeout",
  "RequestHeaderFieldsTooLarge",
  "FundingNotPositioned",
  "InsufficientFunds",
  "LimitExceeded",
  "MaxBalanceExceeded",
  "AuthorizationInsufficient",
  "AssertionNotBoundToTransaction",
  "UnprocessableEntity",
  "MandateFrequencyExceeded",
  "IdempotencyKeyReused",
  "WalletNotActive",
  "CustomerNotActive",
  "CurrencyMismatch",
  "TooManyRequests",
  "InternalError",
  "ServiceUnavailable",
] as const;

/**
 * A known code, or any other string: codes may be added under v1, and the SDK reports what a
 * non-JSON answer was (`HttpError`, `InvalidResponse`) and that it refused to follow a redirect
 * (`Redirect`).
 */
export type WalletErrorCode = (typeof walletErrorCodes)[number] | (string & {});

/** One entry of the error body's `details` (JSON path of the field and what is wrong with it). */
export interface WalletApiErrorDetail {
  field: string;
  issue: string;
}

export interface WalletApiErrorInit {
  status: number;
  code: WalletErrorCode;
  message: string;
  details?: WalletApiErrorDetail[] | undefined;
  requestId: string;
  idempotencyKey?: string | undefined;
}

/**
 * The service answered with a non-2xx status (or a 2xx the SDK cannot read). `code` is the body's
 * `error` field (e.g. `FundingNotPositioned`); `requestId` is the response's X-Request-Id, the
 * value to quote when asking the operator about a failure.
 */
export class WalletApiError extends Error {
  override readonly name = "WalletApiError";
  readonly status: number;
  readonly code: WalletErrorCode;
  readonly details: WalletApiErrorDetail[] | undefined;
  readonly requestId: string;
  /**
   * The Idempotency-Key the call sent (every write sends one). After a 5xx, a 409
   * `IdempotencyKeyInUse` or an `InvalidResponse` the write's outcome is unknown: repeat it with
   * this key, and the service answers what the first try did, or runs it once.
   */
  readonly idempotencyKey: string | undefined;

  constructor(init: WalletApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.idempotencyKey = init.idempotencyKey;
  }
}

/**
 * No usable answer arrived (connection refused or reset, DNS failure, per-attempt timeout) after
 * `attempts` tries, or the caller aborted a write after a try of it was sent (`cause` is then the
 * signal's reason). For a write the outcome is unknown: repeat it with the same `idempotencyKey`.
 */
export class WalletNetworkError extends Error {
  override readonly name = "WalletNetworkError";
  readonly requestId: string;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;

  constructor(
    message: string,
    init: { requestId: string; idempotencyKey: string | undefined; attempts: number; cause: unknown },
  ) {
    super(message, { cause: init.cause });
    this.requestId = init.requestId;
    this.idempotencyKey = init.idempotencyKey;
    this.attempts = init.attempts;
  }
}
