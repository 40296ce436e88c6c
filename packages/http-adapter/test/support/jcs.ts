import { createHash } from "node:crypto";

/**
 * RFC 8785 (JCS), written for the tests independently of the core's `canonicalJson`, so a receipt
 * hash is checked against a second implementation rather than against itself.
 *
 * - objects: members sorted by the UTF-16 code units of their names (section 3.2.3);
 * - strings: only `"`, `\`, and U+0000..U+001F are escaped, with the short forms \b \t \n \f \r
 *   and lower-case `\u00xx` for the other controls; everything else is emitted as is (3.2.2.2);
 * - numbers: the ECMAScript Number-to-String form (3.2.2.3); NaN and Infinity are not JSON.
 */
export function jcs(value: unknown): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError("not representable in JSON");
    return Object.is(value, -0) ? "0" : String(value);
  }
  if (typeof value === "string") return jcsString(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(",")}]`;
  if (typeof value === "object") {
    const names = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
    names.sort(compareUtf16);
    return `{${names.map((k) => `${jcsString(k)}:${jcs((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  throw new TypeError(`not representable in JSON: ${typeof value}`);
}

function compareUtf16(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a.charCodeAt(i) - b.charCodeAt(i);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

const SHORT_ESCAPES: Record<number, string> = {
  8: "\\b",
  9: "\\t",
  10: "\\n",
  12: "\\f",
  13: "\\r",
  34: '\\"',
  92: "\\\\",
};

function jcsString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = SHORT_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += s[i];
  }
  return `${out}"`;
}

/** SHA-256 hex of the canonical form of `value` without its `receiptHash` (DESIGN.md section 3). */
export function receiptHashOf(receipt: Record<string, unknown>): string {
  const { receiptHash: _hash, ...rest } = receipt;
  return createHash("sha256").update(jcs(rest), "utf8").digest("hex");
}
