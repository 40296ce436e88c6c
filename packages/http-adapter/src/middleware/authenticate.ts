import type { KeyObject } from "node:crypto";
import { addSeconds, iso, type SigningKey, type Tenant } from "@wallet/ledger-core";
import type { Context, MiddlewareHandler } from "hono";
import type { ApiDeps, ApiLimits } from "../app/api-deps.js";
import type { AppEnv } from "../app/env.js";
import { canonicalRequest, isNormalTarget, sentPathAndQuery } from "../auth/canonical-request.js";
import { IpAllowlistCache } from "../auth/ip-allowlist.js";
import { decodeSignature, SignatureVerifier } from "../auth/signature-verifier.js";
import { invalidRequest, unauthorized } from "../errors/http-error.js";
import { sha256Hex } from "./read-body.js";

/**
 * How old the credentials read before the body may be when its signature is accepted: older
 * ones (a body that took longer to arrive) are read again.
 */
export const CREDENTIALS_MAX_AGE_MS = 250;

/** Unix epoch seconds: digits only (a sign, a fraction or milliseconds are refused by the skew check). */
const TIMESTAMP_FORMAT = /^\d{1,12}$/;

/** The socket address @hono/node-server exposes as `c.env.incoming`. */
export const socketRemoteAddress = (c: Context): string | undefined =>
  (c.env as AppEnv["Bindings"])?.incoming?.socket?.remoteAddress;

/**
 * Authenticates a tenant request as the spec describes (four headers, Ed25519 over the canonical
 * string, 300 s skew, replay guard, IP allowlist). Every failure is the same 401: the body never
 * says which check failed.
 *
 * Two middlewares around `readBody`: `identify` checks everything the headers alone decide (the
 * headers, the skew, the API key and key id, the tenant's allowlist) before the body is read, so a
 * caller without credentials cannot make the server receive a megabyte; `verify` then checks the
 * signature over the canonical string, which holds the body's hash, the skew and the key again on
 * the clock after the body (the credentials read again when the body was slow), and the replay guard.
 * Checks run cheapest first; the replay guard runs last so that a forged request cannot burn a
 * genuine signature.
 */
export function authenticate(
  deps: ApiDeps,
  limits: ApiLimits,
  verifier = new SignatureVerifier(),
  allowlists = new IpAllowlistCache(),
): { identify: MiddlewareHandler<AppEnv>; verify: MiddlewareHandler<AppEnv> } {
  const clientIp = deps.clientIp ?? socketRemoteAddress;
  const identified = new WeakMap<Context, Identified>();

  /**
   * In whole seconds, as the timestamp is: a timestamp 300 s behind the current second is as
   * acceptable as one 300 s ahead (in milliseconds, the first would be 300.x s off).
   */
  const withinSkew = (nowMs: number, timestamp: string) =>
    Math.abs(Math.floor(nowMs / 1000) - Number(timestamp)) <= limits.timestampSkewSecondsMax;

  async function identify(c: Context<AppEnv>, next: () => Promise<void>) {
    // The signature covers the target as sent; one a URL parser would rewrite is refused, so the
    // signed bytes are always the path routed (spec: PATH+QUERY exactly as sent, no decoding).
    const target = sentPathAndQuery(c.env?.incoming?.url, c.req.url);
    if (!isNormalTarget(target)) {
      throw invalidRequest(
        "The request target must be percent-encoded and hold no dot segments (sign exactly what is sent)",
      );
    }
    const apiKey = c.req.header("X-Api-Key");
    const kid = c.req.header("X-Key-Id");
    const timestamp = c.req.header("X-Timestamp");
    const signatureText = c.req.header("X-Signature");
    if (!apiKey || !kid || !timestamp || !signatureText) throw unauthorized();
    if (!TIMESTAMP_FORMAT.test(timestamp)) throw unauthorized();
    const nowMs = deps.core.clock.now().getTime();
    if (!withinSkew(nowMs, timestamp)) throw unauthorized();
    const signature = decodeSignature(signatureText);
    if (signature === null) throw unauthorized();

    const apiKeySha256 = sha256Hex(apiKey);
    const { tenant, signingKey } = await usableCredentials(c, apiKeySha256, kid, nowMs);
    const key = verifier.keyFor(tenant.id, kid, signingKey.publicKeyPem);
    if (key === null) throw unauthorized();
    identified.set(c, {
      target,
      timestamp,
      signatureText,
      signature,
      apiKeySha256,
      tenant,
      signingKey,
      readAtMs: nowMs,
      kid,
      key,
    });
    await next();
  }

  /** The tenant and signing key of an API key and kid, if usable now and from this address; else 401. */
  async function usableCredentials(c: Context<AppEnv>, apiKeySha256: string, kid: string, nowMs: number) {
    const found = await deps.uow.autocommit((tx) => tx.tenants.findCredentials(apiKeySha256, kid));
    if (found === null || !isUsable(found.tenant, found.signingKey, nowMs)) throw unauthorized();
    if (!allowlists.get(found.tenant.ipAllowlist).allows(clientIp(c))) throw unauthorized();
    return found as { tenant: Tenant; signingKey: SigningKey };
  }

  async function verify(c: Context<AppEnv>, next: () => Promise<void>) {
    const id = identified.get(c);
    if (id === undefined) throw unauthorized();
    const canonical = canonicalRequest(c.req.method, id.target, id.timestamp, c.var.bodySha256);
    if (!(await verifier.verify(id.key, Buffer.from(canonical, "utf8"), id.signature))) throw unauthorized();

    // The time again, after the body: a body that arrived slowly must not carry a timestamp, or
    // a key, past its validity into the replay guard, whose memory of it may have been purged.
    const nowMs = deps.core.clock.now().getTime();
    if (!withinSkew(nowMs, id.timestamp)) throw unauthorized();
    // The credentials again when they were read a while ago: a key revoked, a tenant suspended or
    // its scopes narrowed while a slow body arrived applies to that request too. Read at most
    // CREDENTIALS_MAX_AGE_MS before the signature is accepted, without a second read for the
    // body that came with its headers.
    let { tenant } = id;
    if (nowMs - id.readAtMs > CREDENTIALS_MAX_AGE_MS) {
      const fresh = await usableCredentials(c, id.apiKeySha256, id.kid, nowMs);
      if (fresh.signingKey.publicKeyPem !== id.signingKey.publicKeyPem) throw unauthorized();
      tenant = fresh.tenant;
    } else if (!isUsable(id.tenant, id.signingKey, nowMs)) throw unauthorized();
    const now = new Date(nowMs);
    // Remembered at least until the timestamp leaves the skew window (a signature dated 300 s
    // ahead is still acceptable to the last millisecond of the second 600 s from now), and for
    // the window.
    const acceptableUntilMs = (Number(id.timestamp) + limits.timestampSkewSecondsMax + 1) * 1000 - 1;
    const rememberUntil = new Date(
      Math.max(acceptableUntilMs + 1, addSeconds(now, limits.replayWindowSeconds).getTime()),
    );
    const firstSeen = await deps.uow.autocommit((tx) =>
      tx.replayGuard.remember(id.signatureText, iso(now), iso(rememberUntil)),
    );
    if (!firstSeen) throw unauthorized();

    const { kid } = id;
    c.set("auth", {
      ctx: { tenant, kid, requestId: c.var.requestId, scopes: tenant.scopes },
      apiKeySha256: id.apiKeySha256,
    });
    await next();
  }

  return { identify, verify };
}

/** What `identify` learnt from the headers, for `verify` once the body is read. */
interface Identified {
  target: string;
  timestamp: string;
  signatureText: string;
  signature: Buffer;
  apiKeySha256: string;
  tenant: Tenant;
  signingKey: SigningKey;
  /** When `tenant` and `signingKey` were read (epoch ms on the core's clock). */
  readAtMs: number;
  kid: string;
  key: KeyObject;
}

/** Tenant active; signing key of that tenant, active and not past its expiry. */
function isUsable(tenant: Tenant, key: SigningKey | null, nowMs: number): boolean {
  if (tenant.status !== "active" || key === null || key.tenantId !== tenant.id) return false;
  if (key.status !== "active") return false;
  return key.expiresAt === null || Date.parse(key.expiresAt) > nowMs;
}
