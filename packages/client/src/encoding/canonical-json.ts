/**
 * RFC 8785 (JCS) canonical JSON, as the service hashes receipts: object keys sorted by UTF-16 code
 * units, no whitespace, ECMAScript number and string forms, undefined members left out. The
 * service's own copy is `canonicalJson` in @wallet/ledger-core; a test holds the two to the same
 * bytes (the SDK depends on nothing of the server's).
 *
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("JCS cannot represent a non-finite number");
    return JSON.stringify(value);
  }
  if (Array.isArray(value))
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  if (typeof value === "object") {
    const members = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`);
    return `{${members.join(",")}}`;
  }
  throw new TypeError(`JCS cannot represent a ${typeof value}`);
}
