import type { CoreDeps, UnitOfWork, WebhookConfig, WebhookSecret } from "@wallet/ledger-core";
import type { Context } from "hono";

/**
 * Where the adapter writes its one line per request and its internal errors. pino-compatible:
 * `createApp({ ..., logger: pino() })` works as is.
 */
export interface RequestLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Everything the HTTP adapter needs from the composition root. */
export interface ApiDeps {
  /** The store: every use case runs in one `uow.run` transaction. */
  uow: UnitOfWork;
  /** Ports handed to the use cases (clock, ids, hasher, vault, catalog). `core.clock` also drives auth time checks. */
  core: CoreDeps;
  /**
   * Bearer token of the operator API. `null` disables it: every `/api/v1/admin/*` route answers 404,
   * as if the API did not exist.
   */
  adminToken: string | null;
  /** Sandbox mode (operator settings); reported by the operator API, never changes tenant behaviour here. */
  sandbox: boolean;
  /** Access log and internal errors; silent when absent. */
  logger?: RequestLogger | undefined;
  /**
   * The client address the IP allowlist is checked against. Default: the Node socket's
   * `remoteAddress` (`c.env.incoming.socket.remoteAddress`, as set by @hono/node-server). Behind a
   * trusted proxy, pass a function reading the proxy's header instead.
   */
  clientIp?: ((c: Context) => string | undefined) | undefined;
  /** Limits; defaults in `defaultApiLimits`. */
  limits?: Partial<ApiLimits> | undefined;
  /**
   * Runs an operator job this adapter cannot run itself (deliver-webhooks: the dispatcher is wired
   * by the server), for `POST /admin/jobs/{job}/run`. `asOfIso` is null when the caller gave none
   * (run as of now). Resolves to how many items were processed, or null for a job it does not know
   * (404). Absent: only the adapter's own jobs run.
   */
  runJob?: ((job: string, asOfIso: string | null) => Promise<number | null>) | undefined;
  /**
   * Webhook secret rotation for `POST /admin/tenants/{tenantId}/webhook/secrets`: creates a random
   * secret dated `now` and applies the rotation rule to the tenant's webhook config (pure, no
   * I/O). The server passes `@wallet/webhooks`' `newWebhookSecret` + `rotateWebhookSecret`, which
   * the adapter must not import; the route stores the result in its own transaction. Absent: that
   * route answers 503 ServiceUnavailable.
   */
  rotateWebhookSecret?:
    | ((
        webhook: WebhookConfig,
        now: Date,
        options: { immediate: boolean },
      ) => { webhook: WebhookConfig; secret: WebhookSecret; signsFrom: Date })
    | undefined;
}

export interface ApiLimits {
  /** Largest request body accepted (413 above). */
  bodyBytesMax: number;
  /** Allowed distance between X-Timestamp and the server clock, either side. */
  timestampSkewSecondsMax: number;
  /** How long a seen signature is remembered by the replay guard. */
  replayWindowSeconds: number;
  /** Rate-limit buckets kept in memory (one per API key); the least recently used is dropped past it. */
  rateLimitBucketsMax: number;
}

export const defaultApiLimits: ApiLimits = {
  bodyBytesMax: 1024 * 1024,
  timestampSkewSecondsMax: 300,
  replayWindowSeconds: 600,
  rateLimitBucketsMax: 10_000,
};

export const resolveLimits = (deps: ApiDeps): ApiLimits => ({ ...defaultApiLimits, ...deps.limits });
