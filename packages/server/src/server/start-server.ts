import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createApp, forwardedClientIp } from "@wallet/http-adapter";
import type { Clock, CoreDeps, WebhookConfig } from "@wallet/ledger-core";
import type { Store } from "@wallet/persistence";
import {
  createWebhookDispatcher,
  newWebhookSecret,
  rotateWebhookSecret,
  signsFromOf,
  type WebhookLogger,
} from "@wallet/webhooks";
import type { WalletConfig } from "../config/schema.js";
import type { AesGcmVaultOptions } from "../crypto/aes-gcm-vault.js";
import { withReferencePage } from "../reference/reference-page.js";
import { firstLine, StartupError } from "../startup-error.js";
import {
  answerClientErrors,
  REQUEST_TIMEOUT_MS,
  refuseMissingHost,
  requestErrorResponse,
  requestTimeoutOptions,
} from "./client-errors.js";
import { builtInJobs, defaultJobIntervalMs, type JobContext, runJob } from "./jobs.js";
import { type Logger, silentLogger } from "./logger.js";
import { openLedger, systemClock } from "./open-ledger.js";
import { withReadiness } from "./readiness.js";
import { type ScheduledJob, type Scheduler, startScheduler } from "./scheduler.js";

export interface StartServerOptions {
  config: WalletConfig;
  /** `sqlite:<path>` or `postgres://...` (relative sqlite paths resolve against the process cwd). */
  databaseUrl: string;
  /** PII key ring (see `resolvePiiKeys`). */
  piiKeys: AesGcmVaultOptions;
  /** Where the PII keys came from, for the start's error line (default "WALLET_PII_KEY"). */
  piiKeySource?: string | undefined;
  /** 0 picks a free port. Default 8080. */
  port?: number | undefined;
  /**
   * How long a request may take to arrive in full, headers and body (default 30 000); past it the
   * answer is 408 `RequestTimeout` and the connection closes.
   */
  requestTimeoutMs?: number | undefined;
  /** Default 127.0.0.1: exposing the service is a decision, not a default. */
  host?: string | undefined;
  /** Bearer token of the operator API; null or absent disables it. */
  adminToken?: string | null | undefined;
  logger?: Logger | undefined;
  /** Default: the system clock. */
  clock?: Clock | undefined;
  /** How long `close()` lets in-flight requests finish before cutting connections. Default 10 s. */
  shutdownGraceMs?: number | undefined;
  /** Bound on reaching the database at start. Default 15 s. */
  connectTimeoutMs?: number | undefined;
  /**
   * Run the periodic jobs (activate/expire mandates, expire top-ups, sandbox payout outcomes)
   * and the webhook dispatcher in this process. Default true. False (`serve --no-scheduler`)
   * leaves every job to `POST /admin/jobs/{job}/run` or `RunningServer.runJob`.
   */
  scheduler?: boolean | undefined;
  /** Serve the interactive API reference at GET /docs (see reference-page.ts). Default true. */
  referencePage?: boolean | undefined;
  /** Pause between two runs of each periodic job. Default 5 s. */
  jobIntervalMs?: number | undefined;
  /** Pause between two webhook delivery rounds. Default 1 s. */
  webhookIntervalMs?: number | undefined;
  /** Extra periodic jobs (see `ScheduledJob`), run beside the built-in ones when the scheduler runs. */
  jobs?: ((context: { store: Store; core: CoreDeps; config: WalletConfig }) => ScheduledJob[]) | undefined;
}

export interface RunningServer {
  /** `http://host:port`: the origin tenants use as their base URL. */
  url: string;
  port: number;
  store: Store;
  core: CoreDeps;
  /**
   * Runs a job now (as `POST /admin/jobs/{job}/run` does), as of `asOf` (default: the clock).
   * Returns how many items it processed, or null for an unknown job. Jobs: see `jobNames`.
   */
  runJob(job: string, asOf?: Date): Promise<number | null>;
  /**
   * Stops accepting, lets in-flight requests finish (bounded), stops the scheduler and the
   * webhook dispatcher (waiting for their runs in flight), then closes the store. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * The standalone server: open the store, migrate, seed the config, wire the ports and listen.
 * Used by `wallet serve`, the end-to-end tests and the benchmark.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const logger = options.logger ?? silentLogger();
  const clock = options.clock ?? systemClock;
  const host = options.host ?? "127.0.0.1";
  const { store, core, seeded, sealedDatesOfBirth } = await openLedger({
    config: options.config,
    databaseUrl: options.databaseUrl,
    piiKeys: options.piiKeys,
    ...(options.piiKeySource === undefined ? {} : { piiKeySource: options.piiKeySource }),
    clock,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  });
  logger.info({ dialect: store.dialect, ...seeded }, "store ready");
  if (sealedDatesOfBirth > 0) {
    logger.info({ sealedDatesOfBirth }, "sealed the dates of birth an earlier version stored in clear");
  }
  if (seeded.signingKeysDiffering.length > 0) {
    logger.warn(
      { signingKeys: seeded.signingKeysDiffering },
      "config: these signing keys' publicKeyPem is not the database's; the database's is kept (a kid names one key: add the new key under a new kid)",
    );
  }
  let server: Server;
  let jobContext: JobContext;
  // Set once close() starts: GET /ready answers 503 from then on.
  let closing: Promise<void> | undefined;
  try {
    const dispatcher = createWebhookDispatcher({
      uow: store.uow,
      clock,
      settings: options.config.webhooks,
      leaseMs: options.config.webhooks.leaseMs,
      logger: webhookLogger(logger),
    });
    jobContext = { uow: store.uow, core, config: options.config, dispatcher };
    const context = jobContext;
    const app = createApp({
      uow: store.uow,
      core,
      adminToken: options.adminToken ?? null,
      sandbox: options.config.sandbox,
      logger,
      // The adapter runs the store-only jobs itself and hands the others here.
      runJob: (job, asOfIso) => runJob(context, job, asOfIso === null ? clock.now() : new Date(asOfIso)),
      rotateWebhookSecret: rotateWebhookSecretNow,
      // Behind a load balancer, the tenants' IP allowlists see the client, not the balancer.
      ...(options.config.trustedProxies.length > 0
        ? { clientIp: forwardedClientIp(options.config.trustedProxies) }
        : {}),
    });
    const served = options.referencePage === false ? app.fetch : withReferencePage(app.fetch);
    const fetch = withReadiness(served, () => store.ping(), { draining: () => closing !== undefined });
    server = await listen(fetch, options.port ?? 8080, host, options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS);
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  const dispatcher = jobContext.dispatcher;
  const scheduled = options.scheduler ?? true;
  let scheduler: Scheduler;
  try {
    const jobs = scheduled
      ? [
          ...builtInJobs(jobContext, options.jobIntervalMs ?? defaultJobIntervalMs),
          ...(options.jobs?.({ store, core, config: options.config }) ?? []),
        ]
      : [];
    scheduler = startScheduler(jobs, { clock, logger });
    if (scheduled) dispatcher.start(options.webhookIntervalMs ?? 1_000);
  } catch (e) {
    await stopHttp(server, 0);
    await dispatcher.stop();
    await store.close().catch(() => {});
    throw e;
  }
  logger.info({ scheduler: scheduled }, scheduled ? "scheduler started" : "scheduler disabled");

  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  const graceMs = options.shutdownGraceMs ?? 10_000;
  const close = () => {
    closing ??= (async () => {
      logger.info({ graceMs }, "shutting down");
      await stopHttp(server, graceMs);
      // Jobs and deliveries in flight finish before the store they write to closes.
      await scheduler.stop();
      await dispatcher.stop();
      await store.close();
      logger.info({}, "stopped");
    })();
    return closing;
  };
  const runNow = (job: string, asOf?: Date) => runJob(jobContext, job, asOf ?? clock.now());
  return { url, port, store, core, runJob: runNow, close };
}

/**
 * `POST /admin/tenants/{tenantId}/webhook/secrets`: a fresh random secret dated `now`, which signs
 * once the previous one's overlap ends (or at once: `immediate`, or a tenant's first secret).
 * A new secret must be newer than every existing one; two rotations within one millisecond would
 * be refused for that alone, so the second is dated 1 ms after the first (never more than a
 * second ahead: a secret dated further in the future is a clock problem the refusal reports).
 */
function rotateWebhookSecretNow(webhook: WebhookConfig, now: Date, options: { immediate: boolean }) {
  const newest = Math.max(...webhook.secrets.map((s) => Date.parse(s.createdAt)).filter(Number.isFinite));
  const at = newest >= now.getTime() && newest < now.getTime() + 1_000 ? new Date(newest + 1) : now;
  const secret = newWebhookSecret(at, options);
  const rotated = rotateWebhookSecret(webhook, secret);
  return { webhook: rotated, secret, signsFrom: signsFromOf(rotated, secret.kid) ?? at };
}

/** The dispatcher's log calls as pino lines. Its fields never hold a secret, a URL or a body. */
function webhookLogger(logger: Logger): WebhookLogger {
  return {
    info: (message, fields) => logger.info({ component: "webhooks", ...fields }, message),
    warn: (message, fields) => logger.warn({ component: "webhooks", ...fields }, message),
    error: (message, fields) => logger.error({ component: "webhooks", ...fields }, message),
  };
}

function listen(
  fetch: Parameters<typeof getRequestListener>[0],
  port: number,
  hostname: string,
  requestTimeoutMs: number,
) {
  return new Promise<Server>((resolve, reject) => {
    // @hono/node-server's listener on a server of our own: `serve` takes no errorHandler.
    const server = createServer(
      requestTimeoutOptions(requestTimeoutMs),
      refuseMissingHost(getRequestListener(fetch, { hostname, errorHandler: requestErrorResponse })),
    );
    answerClientErrors(server, requestTimeoutMs);
    const onError = (e: Error) =>
      reject(new StartupError(`cannot listen on ${hostname}:${port}: ${firstLine(e)}`));
    server.once("error", onError);
    server.once("listening", () => {
      server.off("error", onError);
      resolve(server);
    });
    server.listen(port, hostname);
  });
}

/** Stop accepting, let requests in flight finish, and cut whatever is left after `graceMs`. */
export function stopHttp(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    // A keep-alive connection whose request finishes after close() would otherwise stay open
    // until its keep-alive timeout; sweep idle ones until the server has closed.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    timer.unref();
    sweep.unref();
    server.close(() => {
      clearTimeout(timer);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
