/**
 * How personal data is masked and compared. Both go by the identifier's class and its type,
 * trimmed and without case (`MSISDN` is `msisdn`), never by what the value looks like: a
 * nine-digit passport number is masked as a document, not as a phone number.
 */
export type IdentifierKind = "email" | "phone" | "document" | "other";

/** Contact types holding a phone number. */
const phoneTypes = new Set(["msisdn", "phone", "mobile"]);

/** The type as compared: trimmed, lower case. */
export const canonicalIdentifierType = (type: string): string => type.trim().toLowerCase();

export function identifierKind(identifierClass: string, type: string): IdentifierKind {
  if (identifierClass === "identity_document") return "document";
  const t = canonicalIdentifierType(type);
  if (t === "email") return "email";
  return phoneTypes.has(t) ? "phone" : "other";
}

/**
 * The mask shown in place of a value (DESIGN.md: `+2547******78`, `j***@example.com`,
 * `*****1234`):
 * - an email keeps its first character and its domain;
 * - a phone number in international form (`+` and 8 or more digits) keeps `+`, four digits and
 *   the last two; in any other form, its last two digits only;
 * - a document, or any other value, keeps its last four characters when it has eight or more,
 *   else a third of them; at least three stars.
 */
export function maskIdentifier(identifierClass: string, type: string, value: string): string {
  // By code point, not UTF-16 unit: a cut through a surrogate pair would leave half a character
  // in the mask (and the databases store it as U+FFFD, so the mask would change once stored).
  const text = value.trim();
  const v = [...text];
  const kind = identifierKind(identifierClass, type);
  if (kind === "email") {
    const at = v.lastIndexOf("@");
    if (at > 0) return `${v[0]}***${v.slice(at).join("")}`;
  }
  if (kind === "phone") {
    const digits = text.replace(/[^0-9+]/g, "");
    if (digits.startsWith("+") && digits.length >= 9) {
      return `${digits.slice(0, 5)}${"*".repeat(digits.length - 7)}${digits.slice(-2)}`;
    }
    if (digits.length >= 7) return `${"*".repeat(digits.length - 2)}${digits.slice(-2)}`;
  }
  const keep = v.length >= 8 ? 4 : Math.floor(v.length / 3);
  return `${"*".repeat(Math.max(v.length - keep, 3))}${v.slice(v.length - keep).join("")}`;
}

/**
 * The normal form the blind index is computed over, so `+254 712…` and `+254712…`, or
 * `Jane@Example.com` and `jane@example.com`, collide. It goes by the type alone (without case),
 * as it always has, so identifiers stored earlier keep matching: `email` without case, `msisdn`
 * by its digits and `+` as given (a national and an international form of one number do not
 * collide: send E.164), anything else without whitespace or case.
 */
export function normalizeIdentifier(type: string, value: string): string {
  const v = value.trim();
  const t = canonicalIdentifierType(type);
  if (t === "email") return v.toLowerCase();
  if (t === "msisdn") {
    const digits = v.replace(/[^0-9+]/g, "");
    // A "number" without a digit is compared as text, not as the empty string every other one
    // would also be.
    if (/[0-9]/.test(digits)) return digits;
  }
  return v.replace(/\s+/g, "").toUpperCase();
}
