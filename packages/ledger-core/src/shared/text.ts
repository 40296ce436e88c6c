import { refuse } from "./errors.js";

/**
 * The API's "at most N characters" counts Unicode code points, as JSON Schema's `maxLength` does in
 * the OpenAPI document: an emoji is one character, not the two UTF-16 units of `String#length`.
 */
export function codePointCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const unit = s.charCodeAt(i);
    // A high surrogate followed by a low one is one code point; a lone surrogate counts as one.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** Whether `s` holds `min..max` code points; decides from `length` alone when that is enough. */
export function hasCodePointsBetween(s: string, min: number, max: number): boolean {
  // A string of n UTF-16 units holds between ceil(n / 2) and n code points.
  if (s.length <= max && Math.ceil(s.length / 2) >= min) return true;
  if (s.length < min) return false;
  const n = codePointCount(s);
  return n >= min && n <= max;
}

/** A UTF-16 surrogate without its pair: not Unicode text, and each engine stores it differently. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether every store keeps `s` as given: no U+0000 (Postgres text cannot hold it) and no lone
 * surrogate (SQLite would store a replacement character).
 */
export const isStorableText = (s: string): boolean => !s.includes("\u0000") && !LONE_SURROGATE.test(s);

/** Objects kept as JSON text (which escapes anything): their strings are not checked one by one. */
const JSON_KEPT_FIELDS = new Set(["metadata", "evidence", "retryPolicy", "formula"]);

/**
 * Domain guard for the strings of a request that reaches a use case without the HTTP schema, or
 * with text the schema lets through: every string it holds, at any depth, must be storable
 * (`isStorableText`), else 400 naming its path (`identifiers[0].value`). Otherwise Postgres would
 * refuse a NUL with a driver error, and the three stores would each keep a lone surrogate
 * differently (two different assertion references could become the same one on Postgres only).
 * Free-form objects are exempt: they are stored as JSON text.
 */
export function assertStorableStrings(value: unknown, path = "", depth = 0): void {
  if (typeof value === "string") {
    if (!isStorableText(value)) {
      const field = path === "" ? "body" : path;
      refuse("InvalidRequest", `${field} must be Unicode text without U+0000`, [
        { field, issue: "not storable text (U+0000 or a lone surrogate)" },
      ]);
    }
    return;
  }
  if (typeof value !== "object" || value === null) return;
  // Requests are a few levels deep; a cycle would otherwise recurse until the stack runs out.
  if (depth > 16)
    refuse("InvalidRequest", `${path} nests too deep`, [{ field: path, issue: "nests too deep" }]);
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) assertStorableStrings(item, `${path}[${i}]`, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!JSON_KEPT_FIELDS.has(key))
      assertStorableStrings(item, path === "" ? key : `${path}.${key}`, depth + 1);
  }
}
