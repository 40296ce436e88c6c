import { plainRoute, type RouteEntry } from "../routes/route-entry.js";
import { healthSchema, openApiDocumentSchema } from "./schemas.js";

/**
 * GET /health and GET /openapi.json. The document is built on first request from `registry()`, the
 * same entries the app is mounted from.
 */
export function serviceRoutes(openApiDocument: () => unknown): readonly RouteEntry[] {
  return [
    plainRoute({
      method: "GET",
      path: "/health",
      operationId: "getHealth",
      summary: "Liveness; unauthenticated",
      tag: "Service",
      auth: "none",
      ignoresQuery: true,
      success: { status: 200, description: "The service is up", schema: healthSchema },
      errorStatuses: [500, 503],
      respond: ({ deps }) => ({
        service: "wallet",
        status: "ok",
        timestamp: deps.core.clock.now().toISOString(),
      }),
    }),
    plainRoute({
      method: "GET",
      path: "/openapi.json",
      operationId: "getOpenApiDocument",
      summary: "This document (OpenAPI 3.1); any authenticated caller, no scope",
      tag: "Service",
      auth: "signature",
      // A query (a cache buster) is signed like any other, and changes nothing.
      ignoresQuery: true,
      success: { status: 200, description: "The OpenAPI document", schema: openApiDocumentSchema },
      errorStatuses: [401, 429, 500, 503],
      respond: openApiDocument,
    }),
  ];
}
