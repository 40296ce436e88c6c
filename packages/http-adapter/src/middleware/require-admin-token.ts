import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app/env.js";
import { unauthorized } from "../errors/http-error.js";

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/**
 * `Authorization: Bearer <token>` for the operator API. Both sides are hashed first so the
 * comparison is constant-time whatever the lengths; a failure is the same 401 as the tenant API.
 */
export function requireAdminToken(adminToken: string): MiddlewareHandler<AppEnv> {
  const expected = digest(adminToken);
  return async function requireAdminToken(c, next) {
    // The scheme is case-insensitive and may be followed by more than one space (RFC 9110).
    const match = /^bearer +(.+)$/i.exec(c.req.header("Authorization") ?? "");
    const presented = digest(match?.[1] ?? "");
    // Evaluated in full on every request: no early exit on a missing header.
    const ok = timingSafeEqual(presented, expected) && match !== null;
    if (!ok) throw unauthorized();
    await next();
  };
}
