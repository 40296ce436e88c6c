export interface CanonicalRequestParts {
  /** HTTP method; upper-cased here, so "post" and "POST" sign alike. */
  method: string;
  /** Path and query exactly as sent, including `/api/v1/tenant` and the query string, not re-ordered or decoded. */
  pathAndQuery: string;
  /** The X-Timestamp header value, verbatim (epoch seconds). */
  timestamp: string;
  /** Lower-case hex SHA-256 of the exact body bytes (of "" when there is no body). */
  bodySha256: string;
}

const sha256HexPattern = /^[0-9a-f]{64}$/;

/**
 * The string a request signature covers: METHOD, PATH+QUERY, X-Timestamp and the body hash joined
 * with "\n", no trailing newline (spec, Authentication).
 *
 * @example
 * canonicalRequestString({ method: "GET", pathAndQuery: "/api/v1/tenant/health", timestamp: "1763812800",
 *   bodySha256: sha256Hex("") })
 */
export function canonicalRequestString(parts: CanonicalRequestParts): string {
  const { method, pathAndQuery, timestamp, bodySha256 } = parts;
  // A newline inside a component would let one request's canonical string pass for another's.
  for (const [name, value] of Object.entries({ method, pathAndQuery, timestamp })) {
    if (typeof value !== "string" || value.length === 0 || /[\r\n]/.test(value)) {
      throw new TypeError(`canonicalRequestString: ${name} must be a non-empty single-line string`);
    }
  }
  if (!sha256HexPattern.test(bodySha256)) {
    throw new TypeError("canonicalRequestString: bodySha256 must be 64 lower-case hex characters");
  }
  return [method.toUpperCase(), pathAndQuery, timestamp, bodySha256].join("\n");
}
