import { Hono } from "hono";
import { every } from "hono/combine";
import type { ApiDeps } from "./app/api-deps.js";
import { resolveLimits } from "./app/api-deps.js";
import { applyCommon } from "./app/common.js";
import type { AppEnv } from "./app/env.js";
import { notFoundHandler } from "./errors/error-response.js";
import { readBody, refuseDeclaredOversize } from "./middleware/read-body.js";
import { requireAdminToken } from "./middleware/require-admin-token.js";
import { operatorCustomerRoutes } from "./operator/customer-routes.js";
import { operatorMandateRoutes } from "./operator/mandate-routes.js";
import { railRoutes } from "./operator/rail-routes.js";
import { operatorRoutes } from "./operator/routes.js";
import { operatorTenantRoutes } from "./operator/tenant-routes.js";
import { operatorWebhookRoutes } from "./operator/webhook-routes.js";
import { mountRoutes } from "./routes/mount-routes.js";
import type { RouteEntry } from "./routes/route-entry.js";

export const OPERATOR_API_BASE = "/api/v1/admin";

/** Every operator route: one list per concept, appended here. */
export const operatorRouteList: readonly RouteEntry[] = [
  ...operatorRoutes,
  ...operatorCustomerRoutes,
  ...railRoutes,
  ...operatorMandateRoutes,
  ...operatorTenantRoutes,
  ...operatorWebhookRoutes,
];

/**
 * The operator API, to mount at `/api/v1/admin`, behind `Authorization: Bearer <adminToken>`
 * (checked before the body is read).
 * With `adminToken: null` it is disabled: no route is registered, so every path answers 404
 * NotFound, exactly like a path that never existed (nothing reveals that an operator API is there).
 */
export function createOperatorApi(deps: ApiDeps): Hono<AppEnv> {
  const app = applyCommon(new Hono<AppEnv>(), deps);
  if (deps.adminToken === null) return app;
  const bytesMax = resolveLimits(deps).bodyBytesMax;
  const guards = [refuseDeclaredOversize(bytesMax), requireAdminToken(deps.adminToken), readBody(bytesMax)];
  mountRoutes(app, operatorRouteList, { deps, prefix: OPERATOR_API_BASE, guards: () => guards });
  // An unknown route or method is 404 to the operator only, as on the tenant API.
  const unknownRoute = notFoundHandler();
  for (const path of ["/", "/*"]) app.all(path, every(...guards), (c) => unknownRoute(c));
  return app;
}
