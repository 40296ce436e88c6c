import { randomUUID } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../app/env.js";

/** What an X-Request-Id may be (DESIGN.md section 3); anything else is replaced, never refused. */
const REQUEST_ID_FORMAT = /^[A-Za-z0-9._:-]{1,128}$/;

/** A fresh request id, for a request that brought none (or none valid). */
export const newRequestId = (): string => `req_${randomUUID()}`;

/** The request id of `c`, deciding it on first use: the caller's when valid, otherwise a fresh one. */
export function ensureRequestId(c: Context<AppEnv>): string {
  const known = c.var.requestId as string | undefined;
  if (known !== undefined) return known;
  const sent = c.req.header("X-Request-Id");
  const id = sent !== undefined && REQUEST_ID_FORMAT.test(sent) ? sent : newRequestId();
  c.set("requestId", id);
  return id;
}

/** The request id the app gave each Node request it is answering (see `requestIdOfIncoming`). */
const idsOfIncoming = new WeakMap<object, string>();

/**
 * The request id of a Node `IncomingMessage` the app has started on, for an answer Node gives in
 * its place (a request timeout mid-body), so the client and the access log see the same id.
 */
export const requestIdOfIncoming = (incoming: object | undefined): string | undefined =>
  incoming === undefined ? undefined : idsOfIncoming.get(incoming);

/**
 * Echoes a valid X-Request-Id or generates one, and puts it on every response, errors and 401
 * included. Outermost middleware, so nothing answers without it. Safe to run twice (mounted apps).
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestId(c, next) {
    const id = ensureRequestId(c);
    const incoming = (c.env as AppEnv["Bindings"])?.incoming;
    if (incoming !== undefined) idsOfIncoming.set(incoming, id);
    await next();
    c.header("X-Request-Id", id);
  };
}
