import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app/env.js";

/**
 * `Cache-Control: no-store` and `X-Content-Type-Options: nosniff` on every answer, errors
 * included. Tenants authenticate with `X-Api-Key`, not `Authorization`, so a shared cache in front
 * of the service would not know these answers are private (RFC 9111 section 3.5): a customer read
 * with `customers:pii` carries clear phone numbers.
 */
export function noStore(): MiddlewareHandler<AppEnv> {
  return async function noStore(c, next) {
    await next();
    for (const [name, value] of Object.entries(NO_STORE_HEADERS)) c.header(name, value);
  };
}

/** The two headers, for an answer given outside the app (the server's own 400, 408, 431, /ready). */
export const NO_STORE_HEADERS = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
} as const;
