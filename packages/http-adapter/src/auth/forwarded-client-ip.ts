import type { Context } from "hono";
import { socketRemoteAddress } from "../middleware/authenticate.js";
import { IpAllowlist } from "./ip-allowlist.js";

/**
 * The client's address behind trusted proxies (load balancers), for the tenants' IP allowlists:
 * the socket's peer when it is not a trusted proxy; otherwise X-Forwarded-For read from the right,
 * skipping trusted proxies, the first address that is not one. Entries left of it are whatever the
 * client wrote and are never read, so a client cannot put an allowed address there. With every
 * entry trusted (or none given), the leftmost entry, else the peer.
 *
 * @example
 *   createApp({ ...deps, clientIp: forwardedClientIp(["10.0.0.0/8"]) });
 */
export function forwardedClientIp(trustedProxies: readonly string[]): (c: Context) => string | undefined {
  const trusted = new IpAllowlist(trustedProxies);
  const isTrusted = (address: string) => trustedProxies.length > 0 && trusted.allows(address);
  return (c) => {
    const peer = socketRemoteAddress(c);
    if (peer === undefined || !isTrusted(peer)) return peer;
    const forwarded = (c.req.header("X-Forwarded-For") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    for (let i = forwarded.length - 1; i >= 0; i--) {
      const address = forwarded[i]!;
      if (!isTrusted(address)) return address;
    }
    return forwarded[0] ?? peer;
  };
}
