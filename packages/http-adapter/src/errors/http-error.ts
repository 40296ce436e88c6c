import { DomainError, type ErrorDetail } from "@wallet/ledger-core";

/** The one error body of every route (DESIGN.md section 3). */
export interface ErrorBody {
  error: string;
  message: string;
  details?: ErrorDetail[];
}

/**
 * A failure the adapter itself decides (authentication, scope, limits, validation). Domain
 * refusals stay `DomainError`s and are mapped by `errorStatus`.
 */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 408 | 413 | 429 | 500 | 503,
    readonly body: ErrorBody,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(body.message);
  }
}

/**
 * One body for every authentication failure, whatever the cause, so a caller cannot learn which
 * check failed. Built once: every 401 is byte-identical.
 */
export const UNAUTHORIZED_BODY = JSON.stringify({ error: "Unauthorized", message: "Authentication failed" });

export const unauthorized = (): HttpError =>
  new HttpError(401, { error: "Unauthorized", message: "Authentication failed" });

/** Never names the missing scope (spec, Authentication). */
export const forbidden = (): HttpError =>
  new HttpError(403, { error: "Forbidden", message: "The API key is not allowed to call this route" });

export const invalidRequest = (message: string, details?: ErrorDetail[]): HttpError =>
  new HttpError(
    400,
    details ? { error: "InvalidRequest", message, details } : { error: "InvalidRequest", message },
  );

export const routeNotFound = (): HttpError =>
  new HttpError(404, { error: "NotFound", message: "Route not found" });

export const payloadTooLarge = (bytesMax: number): HttpError =>
  new HttpError(413, { error: "PayloadTooLarge", message: `The request body exceeds ${bytesMax} bytes` });

/**
 * The body stopped arriving: the client closed the connection, or Node's request timeout cut it
 * (and answered 408 itself). Nobody reads this answer; it is what the access log records, instead
 * of an "unhandled error" and a 500.
 */
export const requestIncomplete = (): HttpError =>
  new HttpError(408, { error: "RequestTimeout", message: "The request did not arrive in full" });

export const tooManyRequests = (retryAfterSeconds: number): HttpError =>
  new HttpError(
    429,
    { error: "TooManyRequests", message: "Rate limit exceeded; retry later" },
    { "Retry-After": String(retryAfterSeconds) },
  );

/**
 * Runs an API check in-process: what the API would answer 400 is thrown as the core's
 * `DomainError` `InvalidRequest`, with the same message and details.
 */
export function asDomainRefusal<T>(check: () => T): T {
  try {
    return check();
  } catch (e) {
    if (e instanceof HttpError) throw new DomainError("InvalidRequest", e.body.message, e.body.details);
    throw e;
  }
}
