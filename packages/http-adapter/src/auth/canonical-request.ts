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

/**
 * The path and query as they went on the wire: Node's raw request target when the app runs on
 * Node (@hono/node-server re-serializes `c.req.url` through the WHATWG URL parser in some cases,
 * depending even on the Host header), else the request URL.
 */
export function sentPathAndQuery(rawTarget: string | undefined, url: string): string {
  return rawPathAndQuery(rawTarget ?? url);
}

/**
 * Whether a path and query is already in the form the WHATWG URL parser keeps (characters it would
 * percent-encode are encoded, no dot segments, no backslashes): only then are the bytes a client
 * signs the path the server routes, whatever the Host header. `'` in a query counts as encodable,
 * as it is for http(s) URLs.
 */
export function isNormalTarget(pathAndQuery: string): boolean {
  let u: URL;
  try {
    u = new URL(pathAndQuery, "http://target.invalid");
  } catch {
    return false;
  }
  const query = u.search === "" && pathAndQuery.endsWith("?") ? "?" : u.search;
  return u.pathname + query === pathAndQuery;
}
