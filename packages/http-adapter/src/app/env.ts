import type { RequestContext } from "@wallet/ledger-core";

/** What @hono/node-server puts in `c.env`; only the socket address is read. */
export interface NodeBindings {
  /** Node's IncomingMessage: `url` is the request target exactly as sent. */
  incoming?: { url?: string; socket?: { remoteAddress?: string } };
}

/** An authenticated tenant request: the core's context plus what the adapter keeps for itself. */
export interface TenantAuth {
  ctx: RequestContext;
  /** SHA-256 hex of the API key: the rate-limit bucket key (the key itself is never kept). */
  apiKeySha256: string;
}

/** Context variables set by the middleware chain, in the order they are set. */
export interface AppVariables {
  /** X-Request-Id of this request: echoed or generated, sent back on every response. */
  requestId: string;
  /** Route pattern for the access log (never the raw path, which may carry ids). */
  routePattern: string;
  /** The body bytes, read once by `readBody` (empty for a request without body). */
  rawBody: Uint8Array;
  /** Lower-case hex SHA-256 of `rawBody`. */
  bodySha256: string;
  /** Set by `authenticate` on tenant routes. */
  auth: TenantAuth;
  /** The JSON body parsed once from `rawBody` (undefined when the body is empty). */
  json: unknown;
}

export interface AppEnv {
  /**
   * Hono's `Env` wants an object here. At run time `c.env` is undefined when the app is called
   * through `app.request`/`fetch` without bindings, so every reader goes through `?.`.
   */
  Bindings: NodeBindings;
  Variables: AppVariables;
}
