import { Hono } from "hono";
import { errorHandler, notFoundHandler } from "../errors/error-response.js";
import { noStore } from "../middleware/no-store.js";
import { requestId } from "../middleware/request-id.js";
import { createOperatorApi, OPERATOR_API_BASE } from "../operator-api.js";
import { createTenantApi, TENANT_API_BASE } from "../tenant-api.js";
import type { ApiDeps } from "./api-deps.js";
import type { AppEnv } from "./env.js";

/**
 * The whole HTTP surface: the tenant API at `/api/v1/tenant` and the operator API at
 * `/api/v1/admin`. Paths outside both answer 404 with the error body and a request id.
 *
 * @example
 *   serve({ fetch: createApp(deps).fetch, port: 8080 }); // @hono/node-server
 */
export function createApp(deps: ApiDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", requestId());
  app.use("*", noStore());
  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler());
  app.route(TENANT_API_BASE, createTenantApi(deps));
  app.route(OPERATOR_API_BASE, createOperatorApi(deps));
  return app;
}
