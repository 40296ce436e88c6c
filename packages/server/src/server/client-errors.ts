import type { IncomingMessage, RequestListener, Server, ServerOptions } from "node:http";
import type { Duplex } from "node:stream";
import { RequestError } from "@hono/node-server";
import { type ErrorBody, NO_STORE_HEADERS, newRequestId, requestIdOfIncoming } from "@wallet/http-adapter";

/**
 * Default for how long a request may take to arrive in full (headers and body). Node's own default
 * is 300 s, which let a client that sends less than its Content-Length hold a connection for five
 * minutes.
 */
export const REQUEST_TIMEOUT_MS = 30_000;

/** The http.Server options bounding how long a request may take to arrive. */
export function requestTimeoutOptions(requestTimeoutMs: number): ServerOptions {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(20_000, requestTimeoutMs),
    // Node checks the timeouts this often (default 30 s): a tenth of the timeout, within 1-2 s.
    connectionsCheckingInterval: Math.min(2_000, Math.max(100, Math.floor(requestTimeoutMs / 10))),
    // Node's own refusal of an HTTP/1.1 request without Host is a bare 400; `refuseMissingHost`
    // answers it with the error body instead.
    requireHostHeader: false,
  };
}

/** What Node refuses before the app sees a request, in the API's one error body. */
function answerOf(
  err: NodeJS.ErrnoException,
  requestTimeoutMs: number,
): { status: number; reason: string; body: ErrorBody } {
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return {
      status: 408,
      reason: "Request Timeout",
      body: {
        error: "RequestTimeout",
        message: `The request did not arrive in full within ${requestTimeoutMs / 1000} s`,
      },
    };
  }
  if (err.code === "HPE_HEADER_OVERFLOW") {
    return {
      status: 431,
      reason: "Request Header Fields Too Large",
      body: { error: "RequestHeaderFieldsTooLarge", message: "The request headers are too large" },
    };
  }
  return {
    status: 400,
    reason: "Bad Request",
    body: { error: "InvalidRequest", message: "The request is not valid HTTP" },
  };
}

/**
 * Answers what Node refuses before the app runs (a request that did not arrive in time, malformed
 * HTTP, oversized headers) with the one error body and an X-Request-Id, instead of Node's bare
 * status line, then closes the connection.
 */
export function answerClientErrors(server: Server, requestTimeoutMs: number): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    // A reset or a closed socket has no one to answer, and a response whose head is already sent
    // cannot be replaced (Node's own rule for its default answer).
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, reason, body } = answerOf(err, requestTimeoutMs);
    const text = JSON.stringify(body);
    // A request the app has started on (a body that stopped arriving) keeps the app's request id,
    // the one its access log line carries.
    const requestId = requestIdOfIncoming((inFlight as { req?: IncomingMessage } | undefined)?.req);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\n` +
        "Content-Type: application/json\r\n" +
        `Content-Length: ${Buffer.byteLength(text)}\r\n` +
        `X-Request-Id: ${requestId ?? newRequestId()}\r\n` +
        Object.entries(NO_STORE_HEADERS)
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join("") +
        "Connection: close\r\n\r\n" +
        text,
    );
  });
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112, section 3.2): a request without one is refused 400
 * in the one error body, where Node (with `requireHostHeader`) would send a bare 400. HTTP/1.0
 * needs none, as before.
 */
export function refuseMissingHost(listener: RequestListener): RequestListener {
  const text = JSON.stringify({
    error: "InvalidRequest",
    message: "The Host header is missing",
  } satisfies ErrorBody);
  return (req, res) => {
    if (req.httpVersion !== "1.1" || req.headers.host !== undefined) return listener(req, res);
    res.writeHead(400, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(text),
      "X-Request-Id": newRequestId(),
      ...NO_STORE_HEADERS,
      Connection: "close",
    });
    res.end(text);
  };
}

/**
 * The answer when @hono/node-server cannot turn what Node parsed into a Request (an asterisk or
 * absolute target it refuses, a bad Host): 400 in the one error body with a request id, instead of
 * an empty 400. Anything else reaching here escaped the app's own error handling: 500.
 */
export function requestErrorResponse(e: unknown): Response {
  const invalid = e instanceof RequestError;
  const body: ErrorBody = invalid
    ? { error: "InvalidRequest", message: "The request target or Host header is not valid" }
    : { error: "InternalError", message: "Internal error" };
  return new Response(JSON.stringify(body), {
    status: invalid ? 400 : 500,
    headers: { "Content-Type": "application/json", "X-Request-Id": newRequestId(), ...NO_STORE_HEADERS },
  });
}
