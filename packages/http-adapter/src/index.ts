export type { ApiDeps, ApiLimits, RequestLogger } from "./app/api-deps.js";
export { defaultApiLimits } from "./app/api-deps.js";
export { createApp } from "./app/create-app.js";
export type { AppEnv, AppVariables, NodeBindings, TenantAuth } from "./app/env.js";
export { canonicalRequest, rawPathAndQuery } from "./auth/canonical-request.js";
export { forwardedClientIp } from "./auth/forwarded-client-ip.js";
export { IpAllowlist } from "./auth/ip-allowlist.js";
export { errorLogFields } from "./errors/error-response.js";
export { errorStatus } from "./errors/error-status.js";
export type { ErrorBody } from "./errors/http-error.js";
export { UNAUTHORIZED_BODY } from "./errors/http-error.js";
export { type ListFilterOf, listQuerySchemas, parseListQuery } from "./list-queries.js";
export { NO_STORE_HEADERS } from "./middleware/no-store.js";
export { newRequestId, requestIdOfIncoming } from "./middleware/request-id.js";
export { ed25519SpkiPem } from "./operator/tenant-schemas.js";
export { createOperatorApi, OPERATOR_API_BASE } from "./operator-api.js";
export {
  parseRequestBody,
  parseRequestText,
  type RequestBodyOf,
  requestBodySchemas,
} from "./request-bodies.js";
export type { RouteEntry } from "./routes/route-entry.js";
export { createTenantApi, TENANT_API_BASE, tenantOpenApiDocument, tenantRouteGroups } from "./tenant-api.js";
