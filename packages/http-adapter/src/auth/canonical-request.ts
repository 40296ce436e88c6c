/**
 * The string a tenant signs (spec, Authentication): METHOD, PATH+QUERY, X-Timestamp and the body's
 * SHA-256 hex, joined by single newlines, no trailing newline.
 *
 * @example
 *   canonicalRequest("GET", "/api/v1/tenant/operations?limit=5", "1763812800", EMPTY_BODY_SHA256)
 */
export const canonicalRequest = (
  method: string,
  pathAndQuery: string,
  timestamp: string,
  bodySha256: string,
): string => `${method.toUpperCase()}\n${pathAndQuery}\n${timestamp}\n${bodySha256}`;

/**
 * Path and query exactly as received: sliced out of the URL string, never parsed, decoded or
 * re-ordered, so the server signs over the same bytes the client did.
 */
export function rawPathAndQuery(url: string): string {
  const schemeEnd = url.indexOf("://");
  const pathStart = url.indexOf("/", schemeEnd === -1 ? 0 : schemeEnd + 3);
  if (pathStart === -1) return "/";
  const hash = url.indexOf("#", pathStart);
  return hash === -1 ? url.slice(pathStart) : url.slice(pathStart, hash);
}
