/**
 * Masks shown in place of personal data: `+2547******78`, `j***@example.com`, `*****1234`.
 * A mask never reveals more than a third of the value.
 */
export function maskIdentifier(type: string, value: string): string {
  // By code point, not UTF-16 unit: a cut through a surrogate pair would leave half a character
  // in the mask (and the databases store it as U+FFFD, so the mask would change once stored).
  const text = value.trim();
  const v = [...text];
  if (type === "email" || (v.includes("@") && type !== "msisdn")) {
    const at = v.lastIndexOf("@");
    if (at > 0) return `${v[0]}***${v.slice(at).join("")}`;
  }
  if (type === "msisdn" || /^\+?[0-9 ()-]{7,}$/.test(text)) {
    const digits = text.replace(/[^0-9+]/g, "");
    if (digits.length >= 9) return `${digits.slice(0, 5)}${"*".repeat(digits.length - 7)}${digits.slice(-2)}`;
  }
  const keep = v.length >= 8 ? 4 : Math.floor(v.length / 3);
  return `${"*".repeat(Math.max(v.length - keep, 3))}${v.slice(v.length - keep).join("")}`;
}

/** The normal form the blind index is computed over, so `+254 712…` and `+254712…` collide. */
export function normalizeIdentifier(type: string, value: string): string {
  const v = value.trim();
  if (type === "email") return v.toLowerCase();
  if (type === "msisdn") return v.replace(/[^0-9+]/g, "");
  return v.replace(/\s+/g, "").toUpperCase();
}
