import { sha256Hex } from "../encoding/sha256-hex.js";
import { parsePrivateKeyPem } from "../keys/ed25519-keys.js";
import { epochSeconds, signRequest } from "../signing/sign-request.js";
import { isRetryableStatus, type RetryOptions, resolveRetryPolicy, retryDelayMs } from "./retry-policy.js";
import { type TenantResources, tenantResources } from "./tenant-resources.js";
import { TimestampAllocator } from "./timestamp-allocator.js";
import { WalletApiError, type WalletApiErrorDetail, WalletNetworkError } from "./wallet-api-error.js";

/** Every tenant route lives under this prefix; `request` paths are relative to it. */
export const TENANT_API_PREFIX = "/api/v1/tenant";

export type HttpMethod = "GET" | "POST" | "PATCH";

const methods: readonly HttpMethod[] = ["GET", "POST", "PATCH"];
const writeMethods: ReadonlySet<HttpMethod> = new Set(["POST", "PATCH"]);

// Timestamps run ahead of the clock only when identical requests repeat within a second; beyond
// this lead the client waits instead, staying well inside the server's 300-second tolerance.
const TIMESTAMP_LEAD_MAX_SECONDS = 30;
/** The spec's tolerance for X-Timestamp against the service's clock. */
const TIMESTAMP_TOLERANCE_SECONDS = 300;
// A 401 names the clock when it is this far off: near the tolerance, where it is the likely cause.
const CLOCK_SKEW_HINT_SECONDS = TIMESTAMP_TOLERANCE_SECONDS - 10;

export type QueryValue = string | number | boolean;

/**
 * Query parameters, serialized in the given order (the signature covers the query verbatim).
 * An array value repeats the key (e.g. `sortBy`); null and undefined values are left out.
 */
export type Query =
  | Readonly<Record<string, QueryValue | readonly QueryValue[] | null | undefined>>
  | ReadonlyArray<readonly [string, QueryValue]>;

export interface CallOptions {
  /** Defaults to a random UUID on POST and PATCH; reuse one to repeat a write safely. */
  idempotencyKey?: string | undefined;
  /** Defaults to a random UUID; the same value is sent on every retry of this call. */
  requestId?: string | undefined;
  /** Cancels the call, including any wait between retries. */
  signal?: AbortSignal | undefined;
  /**
   * Called with this call's final answer, after the client's own `onResponse`: how a typed method
   * tells its request id and whether the service replayed a stored answer. Must not throw.
   *
   * @example
   * await client.walletCredits.create(body, { idempotencyKey, onResponse: (e) => log(e.requestId, e.idempotentReplayed) });
   */
  onResponse?: ((event: ResponseEvent) => void) | undefined;
}

export interface RequestOptions extends CallOptions {
  /** Serialized once with JSON.stringify; those exact bytes are hashed, signed and sent. */
  body?: unknown | undefined;
  query?: Query | undefined;
}

export interface WalletResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  /** The response's X-Request-Id (the one sent, when the server echoes it). */
  requestId: string;
  /** The Idempotency-Key sent, if any. */
  idempotencyKey: string | undefined;
  /** From the Idempotent-Replayed header: true when the service answered from its idempotency record. */
  idempotentReplayed: boolean | undefined;
  /** How many tries it took. */
  attempts: number;
}

export interface WalletClientOptions {
  /**
   * Origin of the service, e.g. `https://wallet.example.com` (the `/api/v1/tenant` prefix is added;
   * a base URL that ends with it is taken for the service's).
   */
  baseUrl: string;
  apiKey: string;
  kid: string;
  /** Ed25519 private key in PKCS#8 PEM form. */
  privateKeyPem: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch | undefined;
  /** Retries of GETs and of writes carrying an Idempotency-Key. */
  retry?: RetryOptions | undefined;
  /** Limit on one try (sending and reading the response). Default 30 000 ms. */
  timeoutMs?: number | undefined;
  /**
   * Called once per call with its final answer (success or error status), e.g. to log request
   * ids. Not called when no answer arrived (WalletNetworkError). Must not throw.
   */
  onResponse?: ((event: ResponseEvent) => void) | undefined;
}

/** What `onResponse` is told about one call. */
export interface ResponseEvent {
  method: HttpMethod;
  /** Path and query as sent, e.g. `/api/v1/tenant/operations?limit=5`. */
  pathAndQuery: string;
  status: number;
  requestId: string;
  idempotencyKey: string | undefined;
  idempotentReplayed: boolean | undefined;
  attempts: number;
  /** From the first try to the final answer, waits between retries included. */
  durationMs: number;
}

/** A typed method per tenant route (see `TenantResources`), plus `request` for anything else. */
export interface WalletClient extends TenantResources {
  /**
   * Signs and sends one request to the tenant API; throws WalletApiError on a non-2xx answer.
   *
   * @example
   * const { body } = await client.request<Page<Operation>>("GET", "/operations", { query: { walletUid, limit: 5 } });
   */
  request<T = unknown>(
    method: HttpMethod,
    path: string,
    options?: RequestOptions,
  ): Promise<WalletResponse<T>>;
}

// Mirrors the service's accepted formats (docs: Idempotency-Key 1-255 printable ASCII; X-Request-Id
// 1-128 of [A-Za-z0-9._:-]) so a bad value fails here instead of as a 400 after signing. A space is
// printable, but not at either end: HTTP strips it there, so the service would see another key.
const idempotencyKeyPattern = /^(?=[\x20-\x7e]{1,255}$)[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

const encoder = new TextEncoder();

// One allocator for every client in this process: two clients signing with the same key (a retry
// from a fresh client, two workers in one process) must not send the same signature either.
const timestamps = new TimestampAllocator();

function normalizeBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError("createWalletClient: baseUrl must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new TypeError("createWalletClient: baseUrl must use http or https");
  }
  if (url.search || url.hash)
    throw new TypeError("createWalletClient: baseUrl must not carry a query or fragment");
  // A base URL naming the API itself (`.../api/v1/tenant`) is taken for the service's: the prefix
  // is added to every path, and would otherwise be there twice (every call a 404).
  const path = url.pathname.replace(/\/+$/, "");
  const base = path.endsWith(TENANT_API_PREFIX) ? path.slice(0, -TENANT_API_PREFIX.length) : path;
  return `${url.origin}${base}`;
}

function queryString(query: Query | undefined): string {
  if (query === undefined) return "";
  const pairs: Array<readonly [string, QueryValue]> = [];
  if (Array.isArray(query)) {
    pairs.push(...(query as ReadonlyArray<readonly [string, QueryValue]>));
  } else {
    for (const [key, value] of Object.entries(query)) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value as readonly QueryValue[]) pairs.push([key, item]);
      else pairs.push([key, value as QueryValue]);
    }
  }
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join("&");
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

interface RawAnswer {
  response: Response;
  text: string;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text === "") return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorBodyOf(text: string): Record<string, unknown> | undefined {
  const parsed = parseJson(text);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}

/**
 * 429 and 5xx may succeed later; so may a 409 IdempotencyKeyInUse: a retry of a timed-out write
 * can arrive while the first try is still running, and the stored answer follows once it is done.
 */
function isRetryableAnswer(answer: RawAnswer, keyed: boolean): boolean {
  const { status } = answer.response;
  if (isRetryableStatus(status)) return true;
  return keyed && status === 409 && errorBodyOf(answer.text)?.error === "IdempotencyKeyInUse";
}

/**
 * What a 401 can say about this machine's clock: the service's 401 never names the check that
 * failed, but its Date header tells a clock off by about the timestamp tolerance (300 s).
 */
function clockSkewHint(response: Response, nowMs: number): string {
  const date = response.headers.get("Date");
  const serverMs = date === null ? Number.NaN : Date.parse(date);
  if (Number.isNaN(serverMs)) return "";
  const skewSeconds = Math.round((nowMs - serverMs) / 1000);
  if (Math.abs(skewSeconds) < CLOCK_SKEW_HINT_SECONDS) return "";
  const direction = skewSeconds > 0 ? "ahead of" : "behind";
  return ` (this machine's clock is ${Math.abs(skewSeconds)} s ${direction} the service's Date header; X-Timestamp must be within ${TIMESTAMP_TOLERANCE_SECONDS} s of the service's clock)`;
}

function apiError(answer: RawAnswer, requestId: string, idempotencyKey: string | undefined): WalletApiError {
  const { status } = answer.response;
  // A browser's fetch hides a redirect it was told not to follow (type "opaqueredirect", status 0).
  if (answer.response.type === "opaqueredirect" || (status >= 300 && status <= 399)) {
    const location = answer.response.headers.get("Location");
    return new WalletApiError({
      status,
      code: "Redirect",
      message: `The service answered with a redirect${location ? ` to ${location}` : ""}, which the client does not follow (it would send the API key and a signature there): point baseUrl at the service itself`,
      requestId,
      idempotencyKey,
    });
  }
  const body = errorBodyOf(answer.text);
  const details = Array.isArray(body?.details) ? (body.details as WalletApiErrorDetail[]) : undefined;
  const message = typeof body?.message === "string" ? body.message : `HTTP ${status} without an error body`;
  return new WalletApiError({
    status,
    code: typeof body?.error === "string" ? body.error : "HttpError",
    message: status === 401 ? message + clockSkewHint(answer.response, Date.now()) : message,
    details,
    requestId,
    idempotencyKey,
  });
}

/**
 * A client for the tenant API: signs every request, adds Idempotency-Key and X-Request-Id, retries
 * what is safe to retry and turns error answers into WalletApiError.
 *
 * @example
 * const client = createWalletClient({ baseUrl: "http://127.0.0.1:8080", apiKey, kid: "k1", privateKeyPem });
 * const op = await client.walletCredits.create({ walletUid, amountMinor: 5000, currency: "KES", clientReference: "cr-1" });
 */
export function createWalletClient(options: WalletClientOptions): WalletClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const { apiKey, kid } = options;
  if (!apiKey || !kid) throw new TypeError("createWalletClient: apiKey and kid are required");
  // Parsed once, so a bad key fails at construction instead of on the first call.
  const seed = parsePrivateKeyPem(options.privateKeyPem);
  const policy = resolveRetryPolicy(options.retry);
  // Names this signer in the shared timestamp allocator without keeping the API key there.
  const signerId = sha256Hex(`${apiKey}\n${kid}`);
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new TypeError("createWalletClient: timeoutMs must be positive");
  // Wrapped so a browser's fetch is never called with a foreign `this`.
  const fetchImpl: typeof fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));

  async function attempt(url: URL, init: RequestInit, signal: AbortSignal | undefined): Promise<RawAnswer> {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new Error(`No answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      // Never followed: a redirect would carry the API key and a fresh, unseen signature to
      // whichever host the Location names. The service never redirects; a 3xx is an error.
      const response = await fetchImpl(url, { ...init, redirect: "manual", signal: controller.signal });
      // Read inside the timeout: a server that stalls mid-body is as dead as one that never answers.
      const text = await response.text();
      return { response, text };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  async function request<T = unknown>(
    method: HttpMethod,
    path: string,
    requestOptions: RequestOptions = {},
  ): Promise<WalletResponse<T>> {
    if (!methods.includes(method)) throw new TypeError(`Unsupported method ${String(method)}`);
    if (typeof path !== "string" || !path.startsWith("/")) {
      throw new TypeError('request: path must be API-relative and start with "/", e.g. "/customers"');
    }
    const { signal } = requestOptions;
    const query = queryString(requestOptions.query);
    const separator = path.includes("?") ? "&" : "?";
    // The API's own links (`links.self`, `links.receipt`, a statement item's `receipt`) already
    // start with the prefix: followed as they are.
    const apiPath = path.startsWith(`${TENANT_API_PREFIX}/`) ? path : `${TENANT_API_PREFIX}${path}`;
    const url = new URL(`${baseUrl}${apiPath}${query ? separator + query : ""}`);
    // Sign what fetch will put on the wire: the URL's own serialization, after any normalization
    // (percent-encoding, dot segments) it applies to the path we built.
    const pathAndQuery = `${url.pathname}${url.search}`;

    let body: Uint8Array | undefined;
    if (requestOptions.body !== undefined) {
      const json = JSON.stringify(requestOptions.body);
      if (json === undefined) throw new TypeError("request: body is not JSON-serializable");
      body = encoder.encode(json);
    }

    const idempotencyKey =
      requestOptions.idempotencyKey ?? (writeMethods.has(method) ? crypto.randomUUID() : undefined);
    if (idempotencyKey !== undefined && !idempotencyKeyPattern.test(idempotencyKey)) {
      throw new TypeError(
        "request: idempotencyKey must be 1-255 printable ASCII characters, with no space at either end",
      );
    }
    const requestId = requestOptions.requestId ?? crypto.randomUUID();
    if (!requestIdPattern.test(requestId)) {
      throw new TypeError("request: requestId must be 1-128 characters of [A-Za-z0-9._:-]");
    }
    // A GET changes nothing and a keyed write is deduplicated by the service: both are safe to repeat.
    const retryable = method === "GET" || idempotencyKey !== undefined;
    const attemptsMax = retryable ? policy.attempts : 1;
    const signedRequestKey = `${signerId}\n${method}\n${pathAndQuery}\n${sha256Hex(body ?? "")}`;
    const startedMs = Date.now();
    const report = (status: number, answeredRequestId: string, replayed: boolean | undefined, n: number) => {
      const event: ResponseEvent = {
        method,
        pathAndQuery,
        status,
        requestId: answeredRequestId,
        idempotencyKey,
        idempotentReplayed: replayed,
        attempts: n,
        durationMs: Date.now() - startedMs,
      };
      options.onResponse?.(event);
      requestOptions.onResponse?.(event);
    };

    const baseHeaders: Record<string, string> = { Accept: "application/json", "X-Request-Id": requestId };
    if (body !== undefined) baseHeaders["Content-Type"] = "application/json";
    if (idempotencyKey !== undefined) baseHeaders["Idempotency-Key"] = idempotencyKey;

    // Tries handed to fetch: once there is one, a write the caller aborts may have run.
    let attemptsSent = 0;
    let unauthorizedRetried = false;
    try {
      for (let attemptNo = 1; ; attemptNo++) {
        signal?.throwIfAborted();
        const nowSeconds = epochSeconds();
        const timestamp = timestamps.next(signedRequestKey, nowSeconds);
        const leadSeconds = timestamp - nowSeconds - TIMESTAMP_LEAD_MAX_SECONDS;
        if (leadSeconds > 0) await sleep(leadSeconds * 1000, signal);
        // Re-signed on every try: the server refuses a signature it has already seen.
        const authHeaders = signRequest({
          method,
          pathAndQuery,
          body: body ?? "",
          apiKey,
          kid,
          privateKey: seed,
          timestamp,
        });
        const init: RequestInit = { method, headers: { ...baseHeaders, ...authHeaders } };
        if (body !== undefined) init.body = body;

        let answer: RawAnswer;
        try {
          attemptsSent++;
          answer = await attempt(url, init, signal);
        } catch (cause) {
          if (signal?.aborted) throw signal.reason;
          if (attemptNo >= attemptsMax) {
            throw new WalletNetworkError(`${method} ${path} failed: no answer from the service`, {
              requestId,
              idempotencyKey,
              attempts: attemptNo,
              cause,
            });
          }
          await sleep(retryDelayMs(attemptNo, null, policy), signal);
          continue;
        }

        const { response } = answer;
        const answeredRequestId = response.headers.get("X-Request-Id") ?? requestId;
        if (response.ok) {
          // Every route answers a 2xx with a JSON body: one that is not (or none) came through
          // something that garbled or cut it, so the outcome is as unknown as a lost answer's.
          const parsed = answer.text === "" ? { ok: false as const } : parseJson(answer.text);
          if (!parsed.ok && attemptNo < attemptsMax) {
            await sleep(retryDelayMs(attemptNo, null, policy), signal);
            continue;
          }
          const replayedHeader = response.headers.get("Idempotent-Replayed");
          const replayed = replayedHeader === null ? undefined : replayedHeader.toLowerCase() === "true";
          report(response.status, answeredRequestId, replayed, attemptNo);
          if (!parsed.ok) {
            throw new WalletApiError({
              status: response.status,
              code: "InvalidResponse",
              message: `The service answered with ${answer.text === "" ? "no body" : "a body that is not JSON"}`,
              requestId: answeredRequestId,
              idempotencyKey,
            });
          }
          return {
            status: response.status,
            headers: response.headers,
            body: parsed.value as T,
            requestId: answeredRequestId,
            idempotencyKey,
            idempotentReplayed: replayed,
            attempts: attemptNo,
          };
        }
        // A 401 is tried once more, at once, with the next second's signature: another process
        // signing with this key may have sent the same request in the same second (Ed25519 is
        // deterministic, and the replay guard refuses a signature it has seen). A keyed write's,
        // up to its attempts: a hop that re-sends requests (a proxy retrying upstream) may hand
        // back the replay guard's 401 to a copy of a try that ran, which its key then answers.
        const unauthorizedRetryable = !unauthorizedRetried || idempotencyKey !== undefined;
        if (response.status === 401 && unauthorizedRetryable && attemptNo < attemptsMax) {
          unauthorizedRetried = true;
          continue;
        }
        if (isRetryableAnswer(answer, idempotencyKey !== undefined) && attemptNo < attemptsMax) {
          await sleep(retryDelayMs(attemptNo, response.headers.get("Retry-After"), policy), signal);
          continue;
        }
        report(response.status, answeredRequestId, undefined, attemptNo);
        throw apiError(answer, answeredRequestId, idempotencyKey);
      }
    } catch (e) {
      // The caller aborted a write after a try of it went out: it may have run. Say so, with the
      // key to repeat it by, rather than the bare reason (a GET, or a write never sent, is simply
      // cancelled).
      if (signal?.aborted && e === signal.reason && attemptsSent > 0 && writeMethods.has(method)) {
        throw new WalletNetworkError(
          `${method} ${path} was aborted after it was sent: its outcome is unknown; repeat it with its idempotencyKey`,
          { requestId, idempotencyKey, attempts: attemptsSent, cause: e },
        );
      }
      throw e;
    }
  }

  return { request, ...tenantResources(request) };
}
