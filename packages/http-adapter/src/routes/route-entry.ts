import type { RequestContext, Scope, Tx } from "@wallet/ledger-core";
import type * as v from "valibot";
import type { ApiDeps } from "../app/api-deps.js";

/** A strict object schema: what params and query are declared with (each key becomes a parameter). */
export type ParamsSchema = v.StrictObjectSchema<
  v.ObjectEntries,
  v.ErrorMessage<v.StrictObjectIssue> | undefined
>;

/** How a route authenticates. */
export type RouteAuth = "none" | "signature" | "bearer";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT";

/** What the OpenAPI document and the access log know about a route. */
export interface RouteDoc {
  method: HttpMethod;
  /** Path relative to the API's base, OpenAPI style: `/customers/{uid}`. */
  path: `/${string}`;
  operationId: string;
  summary: string;
  tag: string;
  /** Statuses this route can answer besides success (the document lists them with the error body). */
  errorStatuses: readonly number[];
  success: { status: 200 | 201 | 202; description: string; schema: v.GenericSchema };
}

/** The validated input of a route, typed by its schemas. */
export interface RouteCall<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  deps: ApiDeps;
}

export interface TenantCall<P, Q, B> extends RouteCall<P, Q, B> {
  ctx: RequestContext;
}

/**
 * One entry of a route registry, generics erased: what mounting and the OpenAPI document read.
 * Built with `tenantRoute`, `operatorRoute` or `plainRoute`, which keep the handler typed.
 */
export interface RouteEntry extends RouteDoc {
  auth: RouteAuth;
  scopes: readonly Scope[];
  /** Write routes need an Idempotency-Key and run through `idempotentWrite`. */
  write: boolean;
  params?: ParamsSchema;
  query?: ParamsSchema;
  body?: v.GenericSchema;
  /** The use case, in one transaction. Absent for routes that do not touch the store. */
  run?: (tx: Tx, call: ErasedCall) => Promise<unknown>;
  /** For routes answering without the store (health, the OpenAPI document). */
  respond?: (call: ErasedCall) => unknown;
  /**
   * The query string is not read at all (health: the spec gives it no error but 500 and 503, so a
   * cache-busting `?t=...` from a load balancer must not be a 400).
   */
  ignoresQuery?: true;
}

export type ErasedCall = TenantCall<unknown, unknown, unknown> | RouteCall<unknown, unknown, unknown>;

/** The output type of an optional schema (`undefined` when the route declares none). */
type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : undefined;

interface Schemas<PS, QS, BS> {
  params?: PS;
  query?: QS;
  body?: BS;
}

/** A tenant route: signed request, scopes, a use case run in a transaction (idempotent when `write`). */
export function tenantRoute<
  PS extends ParamsSchema | undefined = undefined,
  QS extends ParamsSchema | undefined = undefined,
  BS extends v.GenericSchema | undefined = undefined,
>(
  def: RouteDoc &
    Schemas<PS, QS, BS> & {
      scopes: readonly Scope[];
      /** Defaults to true for POST, PATCH and PUT: every write runs under an Idempotency-Key. */
      write?: boolean;
      run: (tx: Tx, call: TenantCall<Out<PS>, Out<QS>, Out<BS>>) => Promise<unknown>;
    },
): RouteEntry {
  return {
    ...def,
    auth: "signature",
    write: def.write ?? def.method !== "GET",
    run: def.run as RouteEntry["run"],
  } as RouteEntry;
}

/** An operator route: bearer token, no tenant context. */
export function operatorRoute<
  PS extends ParamsSchema | undefined = undefined,
  QS extends ParamsSchema | undefined = undefined,
  BS extends v.GenericSchema | undefined = undefined,
>(
  def: RouteDoc &
    Schemas<PS, QS, BS> & {
      run: (tx: Tx, call: RouteCall<Out<PS>, Out<QS>, Out<BS>>) => Promise<unknown>;
    },
): RouteEntry {
  return {
    ...def,
    auth: "bearer",
    scopes: [],
    write: false,
    run: def.run as RouteEntry["run"],
  } as RouteEntry;
}

/** A route that does not touch the store; `auth` says whether it still needs a signed request. */
export function plainRoute(
  def: RouteDoc & {
    auth: "none" | "signature";
    respond: (call: RouteCall<unknown, unknown, unknown>) => unknown;
    ignoresQuery?: true;
  },
): RouteEntry {
  return { ...def, scopes: [], write: false };
}
