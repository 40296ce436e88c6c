import { DomainError, StoreUnavailableError } from "@wallet/ledger-core";
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { RequestLogger } from "../app/api-deps.js";
import type { AppEnv } from "../app/env.js";
import { ensureRequestId } from "../middleware/request-id.js";
import { errorStatus } from "./error-status.js";
import { type ErrorBody, HttpError, UNAUTHORIZED_BODY } from "./http-error.js";

/** A V8 stack frame line: indentation, then `at `. */
const STACK_FRAME = /^\s+at /;

/** Serializes an error body; the 401 body is the one constant so every cause is byte-identical. */
export const serializeErrorBody = (status: number, body: ErrorBody): string =>
  status === 401 ? UNAUTHORIZED_BODY : JSON.stringify(body);

/** The body a domain refusal is answered (and stored under an Idempotency-Key) with. */
export const domainErrorBody = (e: DomainError): ErrorBody =>
  e.details && e.details.length > 0
    ? { error: e.code, message: e.message, details: e.details }
    : { error: e.code, message: e.message };

export function errorResponse(
  c: Context<AppEnv>,
  status: number,
  body: ErrorBody,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(serializeErrorBody(status, body), {
    status,
    headers: { "Content-Type": "application/json", "X-Request-Id": ensureRequestId(c), ...headers },
  });
}

/** Maps anything thrown to the one error body. The app's only `onError`. */
export function errorHandler(logger: RequestLogger | undefined): ErrorHandler<AppEnv> {
  return function onError(err, c) {
    if (err instanceof HttpError) return errorResponse(c, err.status, err.body, err.headers);
    if (err instanceof DomainError) {
      const status = errorStatus[err.code];
      // The first request with this key is still running: the client retries shortly.
      const headers: Record<string, string> =
        err.code === "IdempotencyKeyInUse" ? { "Retry-After": "1" } : {};
      return errorResponse(c, status, domainErrorBody(err), headers);
    }
    if (err instanceof StoreUnavailableError) {
      logger?.error({ requestId: c.var.requestId, err: { name: err.name } }, "store unavailable");
      return errorResponse(
        c,
        503,
        { error: "ServiceUnavailable", message: "Service temporarily unavailable" },
        {
          "Retry-After": "1",
        },
      );
    }
    if (err instanceof HTTPException && err.status < 500) {
      // Raised by Hono itself (e.g. a malformed request line): a client error without details.
      return errorResponse(c, 400, { error: "InvalidRequest", message: "Malformed request" });
    }
    // A bug or an infrastructure failure: nothing of it reaches the client.
    logger?.error({ requestId: c.var.requestId, err: errorLogFields(err) }, "unhandled error");
    return errorResponse(c, 500, { error: "InternalError", message: "Internal error" });
  };
}

/**
 * What the logs keep of an unexpected error: its name, code and stack frames. A driver's message
 * may hold SQL or the values of a row (personal data), so it is kept only when the message is the
 * ledger's own (a `DomainError`, or a `StoreUnavailableError` saying what the connection did).
 */
export function errorLogFields(err: unknown): {
  name: string;
  code: unknown;
  message?: string;
  frames: string[];
} {
  if (!(err instanceof Error)) return { name: typeof err, code: null, frames: [] };
  const ours = err instanceof DomainError || err instanceof StoreUnavailableError;
  return {
    name: err.name,
    code: (err as { code?: unknown }).code ?? null,
    ...(ours ? { message: err.message } : {}),
    // Frames only: a stack starts with the message, which may run over several lines (a driver's
    // message can quote a value), so only the `at ...` lines are kept.
    frames:
      err.stack
        ?.split("\n")
        .filter((line) => STACK_FRAME.test(line))
        .slice(0, 10)
        .map((f) => f.trim()) ?? [],
  };
}

/** Unknown routes and wrong methods: 404 with the error body. */
export function notFoundHandler(): NotFoundHandler<AppEnv> {
  return function notFound(c) {
    return errorResponse(c, 404, { error: "NotFound", message: "Route not found" });
  };
}
