import type { MiddlewareHandler } from "hono";
import type { RequestLogger } from "../app/api-deps.js";
import type { AppEnv, TenantAuth } from "../app/env.js";

/**
 * One line per request: request id, tenant, method, route pattern, status and latency. Never the
 * raw path (it carries ids), bodies, headers, keys, signatures or personal data.
 */
export function accessLog(logger: RequestLogger | undefined): MiddlewareHandler<AppEnv> {
  return async function accessLog(c, next) {
    if (logger === undefined) return next();
    const startedMs = performance.now();
    await next();
    const auth = c.var.auth as TenantAuth | undefined;
    logger.info(
      {
        requestId: c.var.requestId,
        tenantId: auth?.ctx.tenant.id ?? null,
        method: c.req.method,
        route: (c.var.routePattern as string | undefined) ?? "unmatched",
        status: c.res.status,
        latencyMs: Math.round((performance.now() - startedMs) * 1000) / 1000,
      },
      "request",
    );
  };
}
