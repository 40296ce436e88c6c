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
