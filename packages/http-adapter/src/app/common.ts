import type { Hono } from "hono";
import { errorHandler, notFoundHandler } from "../errors/error-response.js";
import { accessLog } from "../middleware/access-log.js";
import { requestId } from "../middleware/request-id.js";
import type { ApiDeps } from "./api-deps.js";
import type { AppEnv } from "./env.js";

/**
 * What every app of this package has: the request id on every response, one access-log line,
 * the one error handler and a 404 body for unknown routes and wrong methods.
 */
export function applyCommon(app: Hono<AppEnv>, deps: ApiDeps): Hono<AppEnv> {
  app.use("*", requestId(), accessLog(deps.logger));
  app.onError(errorHandler(deps.logger));
  app.notFound(notFoundHandler());
  return app;
}
