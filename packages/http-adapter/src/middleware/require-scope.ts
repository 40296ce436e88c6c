import type { Scope } from "@wallet/ledger-core";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app/env.js";
import { forbidden } from "../errors/http-error.js";

/** 403 unless the tenant holds every scope listed; the body never names the missing one. */
export function requireScope(...scopes: Scope[]): MiddlewareHandler<AppEnv> {
  return async function requireScope(c, next) {
    const held = c.var.auth.ctx.scopes;
    if (!scopes.every((s) => held.includes(s))) throw forbidden();
    await next();
  };
}
