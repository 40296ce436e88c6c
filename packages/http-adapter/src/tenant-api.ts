import { Hono } from "hono";
import { every } from "hono/combine";
import { agreementRoutes } from "./agreements/routes.js";
import type { ApiDeps } from "./app/api-deps.js";
import { resolveLimits } from "./app/api-deps.js";
import { applyCommon } from "./app/common.js";
import type { AppEnv } from "./app/env.js";
import { creditRoutes } from "./credits/routes.js";
import { customerRoutes } from "./customers/routes.js";
import { debitRoutes } from "./debits/routes.js";
import { notFoundHandler } from "./errors/error-response.js";
import { feeRoutes } from "./fees/routes.js";
import { identifierRoutes } from "./identifiers/routes.js";
import { kycVersionRoutes } from "./kyc-versions/routes.js";
import { mandateRoutes } from "./mandates/routes.js";
import { authenticate } from "./middleware/authenticate.js";
import { rateLimit } from "./middleware/rate-limit.js";
import { readBody, refuseDeclaredOversize } from "./middleware/read-body.js";
import { requireScope } from "./middleware/require-scope.js";
import { buildOpenApiDocument } from "./openapi/openapi-document.js";
import { operationRoutes } from "./operations/routes.js";
import { payoutRoutes } from "./payouts/routes.js";
import { mountRoutes } from "./routes/mount-routes.js";
import type { RouteEntry } from "./routes/route-entry.js";
import { serviceRoutes } from "./service/routes.js";
import { topupRoutes } from "./topups/routes.js";
import { walletRoutes } from "./wallets/routes.js";

export const TENANT_API_BASE = "/api/v1/tenant";

/** The tenant route registry, grouped by concept: it drives both the Hono routes and the OpenAPI document. */
export function tenantRouteGroups(): Readonly<Record<string, readonly RouteEntry[]>> {
  let document: unknown;
  const groups: Record<string, readonly RouteEntry[]> = {
    service: serviceRoutes(() => {
      document ??= tenantOpenApiDocument(Object.values(groups).flat());
      return document;
    }),
    customers: customerRoutes,
    identifiers: identifierRoutes,
    agreements: agreementRoutes,
    kycVersions: kycVersionRoutes,
    walletCredits: creditRoutes,
    wallets: walletRoutes,
    operations: operationRoutes,
    mandates: mandateRoutes,
    walletDebits: debitRoutes,
    fees: feeRoutes,
    payouts: payoutRoutes,
    topups: topupRoutes,
  };
  return groups;
}

/** The OpenAPI 3.1 document of the tenant API. */
export const tenantOpenApiDocument = (
  entries: readonly RouteEntry[] = Object.values(tenantRouteGroups()).flat(),
) => buildOpenApiDocument(entries, { title: "Tenant Wallet API", version: "v1", serverUrl: TENANT_API_BASE });

/**
 * The tenant API (spec), to mount at `/api/v1/tenant`. Every route but /health refuses a declared
 * length over the limit (413), checks the credentials its headers name (401) before it reads the
 * body (413 over the limit), verifies the signature over it (401), rate-limits (429) and checks
 * scopes (403); then the handler validates input (400) and runs the use case (404, then 409 / 422).
 */
export function createTenantApi(deps: ApiDeps): Hono<AppEnv> {
  const limits = resolveLimits(deps);
  const app = applyCommon(new Hono<AppEnv>(), deps);
  const { identify, verify } = authenticate(deps, limits);
  // One list for the routes and the unknown ones, so neither can skip a check the other makes.
  const authenticated = [
    refuseDeclaredOversize(limits.bodyBytesMax),
    identify,
    readBody(limits.bodyBytesMax),
    verify,
    rateLimit(deps, limits),
  ];
  for (const entries of Object.values(tenantRouteGroups())) {
    const group = new Hono<AppEnv>();
    mountRoutes(group, entries, {
      deps,
      prefix: TENANT_API_BASE,
      guards: (entry) =>
        entry.auth === "none"
          ? []
          : [...authenticated, ...(entry.scopes.length > 0 ? [requireScope(...entry.scopes)] : [])],
    });
    app.route("/", group);
  }
  // Every tenant request but GET /health authenticates (spec), an unknown route or method too: a
  // caller who cannot call the API learns nothing of its routes (401), one who can gets the 404,
  // within its rate limit like any other request.
  const unknownRoute = notFoundHandler();
  for (const path of ["/", "/*"]) {
    app.all(path, every(...authenticated), (c) => unknownRoute(c));
  }
  return app;
}
