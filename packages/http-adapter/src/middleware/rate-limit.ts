import type { MiddlewareHandler } from "hono";
import type { ApiDeps, ApiLimits } from "../app/api-deps.js";
import type { AppEnv } from "../app/env.js";
import { tooManyRequests } from "../errors/http-error.js";
import { TokenBuckets } from "../rate-limit/token-bucket.js";

/** 429 with Retry-After once the API key's bucket (the tenant's `rateLimit`) is empty. Runs after authentication. */
export function rateLimit(deps: ApiDeps, limits: ApiLimits): MiddlewareHandler<AppEnv> {
  const buckets = new TokenBuckets(limits.rateLimitBucketsMax);
  return async function rateLimit(c, next) {
    const { ctx, apiKeySha256 } = c.var.auth;
    const { perSecond, burst } = ctx.tenant.rateLimit;
    const waitSeconds = buckets.take(apiKeySha256, perSecond, burst, deps.core.clock.now().getTime());
    if (waitSeconds > 0) throw tooManyRequests(waitSeconds);
    await next();
  };
}
