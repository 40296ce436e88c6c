import { againOnConcurrentUpdate } from "@wallet/ledger-core";
import type { Hono, MiddlewareHandler } from "hono";
import * as v from "valibot";
import type { ApiDeps } from "../app/api-deps.js";
import type { AppEnv } from "../app/env.js";
import { assertJsonContentType } from "../validation/content-type.js";
import { parseJsonBody, validateBody, validateInput } from "../validation/validate.js";
import { idempotentWrite, readIdempotencyKey } from "./idempotent-write.js";
import type { ErasedCall, RouteEntry } from "./route-entry.js";

const NO_PARAMETERS = v.strictObject({});
/**
 * The body of a route that declares none: requests are strict (DESIGN.md section 3), so nothing but
 * an empty body or `{}` is taken; a field sent anyway is 400 `unknown field`, never dropped in silence.
 */
const NO_BODY = v.optional(v.strictObject({}));

/** `/customers/{uid}` -> `/customers/:uid`. */
export const toHonoPath = (path: string): string => path.replace(/\{([A-Za-z0-9_]+)\}/g, ":$1");

/** Names the route for the access log before anything can fail. */
function tagRoute(pattern: string): MiddlewareHandler<AppEnv> {
  return async function tagRoute(c, next) {
    c.set("routePattern", pattern);
    await next();
  };
}

/**
 * Registers every entry of a registry on `app`: `guards(entry)` (body limit, authentication,
 * rate limit, scopes) run first, then the handler validates path, query and body in that order
 * (400) and runs the use case. The same entries produce the OpenAPI document, so the two cannot
 * drift.
 */
export function mountRoutes(
  app: Hono<AppEnv>,
  entries: readonly RouteEntry[],
  opts: { deps: ApiDeps; prefix: string; guards: (entry: RouteEntry) => MiddlewareHandler<AppEnv>[] },
): void {
  for (const entry of entries) {
    app.on(
      entry.method,
      toHonoPath(entry.path),
      tagRoute(`${opts.prefix}${entry.path}`),
      ...opts.guards(entry),
      routeHandler(entry, opts.deps),
    );
  }
}

function routeHandler(entry: RouteEntry, deps: ApiDeps): MiddlewareHandler<AppEnv> {
  return async function handle(c) {
    const params = validateInput(entry.params ?? NO_PARAMETERS, c.req.param(), "path");
    const query = entry.ignoresQuery
      ? {}
      : validateInput(entry.query ?? NO_PARAMETERS, queryValues(c.req.queries()), "query");
    const idempotencyKey = entry.write ? readIdempotencyKey(c) : null;
    let body: unknown;
    // A POST, PATCH or PUT is checked against NO_BODY when it declares no body schema, so one rule
    // holds for every write, tenant or operator. A GET's body is never read (read-body.ts).
    if (entry.body !== undefined || entry.method !== "GET") {
      assertJsonContentType(c.req.header("Content-Type"), c.var.rawBody.byteLength);
      c.set("json", parseJsonBody(c.var.rawBody));
      const validated = validateBody(entry.body ?? NO_BODY, c.var.json);
      body = entry.body === undefined ? undefined : validated;
    }
    const auth = entry.auth === "signature" ? c.var.auth : undefined;
    const call: ErasedCall = auth
      ? { params, query, body, deps, ctx: auth.ctx }
      : { params, query, body, deps };
    const status = entry.success.status;

    if (entry.run !== undefined) {
      const run = entry.run;
      if (idempotencyKey !== null) {
        // Idempotency keys are scoped to a tenant: only signed routes can be writes.
        if (auth === undefined) throw new Error(`write route ${entry.operationId} has no tenant`);
        return idempotentWrite(c, deps, { tenantId: auth.ctx.tenant.id, key: idempotencyKey }, status, (tx) =>
          run(tx, call),
        );
      }
      // A read sees one snapshot (a page and its total agree); anything else is a unit of work,
      // run again when it loses an optimistic update to a concurrent request (an operator's
      // suspension racing the activation job), as an idempotent write is.
      const unit = entry.method === "GET" && deps.uow.snapshot ? deps.uow.snapshot : deps.uow.run;
      const view = await againOnConcurrentUpdate(() => unit.call(deps.uow, (tx) => run(tx, call)));
      return c.json(view as object, status);
    }
    if (entry.respond === undefined)
      throw new Error(`route ${entry.operationId} has neither run nor respond`);
    return c.json((await entry.respond(call)) as object, status);
  };
}

/**
 * Query parameters as given: a key sent once is a string, a key sent more than once an array, so a
 * repeatable parameter (sortBy) keeps every value and a duplicated single-valued one is a 400
 * instead of a silent pick of one of them.
 */
export function queryValues(all: Record<string, string[]>): Record<string, string | string[]> {
  // No prototype: `?__proto__=1` is a key like any other (an unknown one, so 400), not a setter
  // that drops it or, sent twice, makes an array the object's prototype.
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, values] of Object.entries(all)) out[key] = values.length === 1 ? values[0]! : values;
  return out;
}
