import { refuse } from "./errors.js";

/** Free-form objects (metadata, evidence, a retry policy): capped so they stay cheap to store, hash and return. */
export const FREE_FORM_BYTES_MAX = 16 * 1024;
export const FREE_FORM_DEPTH_MAX = 8;

const isPlainObject = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Why `value`, below the top level, is not JSON, or null. Stops at the first problem; never recurses past `max`. */
function jsonValueProblem(value: unknown, level: number): string | null {
  switch (typeof value) {
    case "string":
    case "boolean":
      return null;
    case "number":
      return Number.isFinite(value) ? null : "must hold JSON values only (a number is not finite)";
    case "object": {
      if (value === null) return null;
      if (level > FREE_FORM_DEPTH_MAX) return `must nest at most ${FREE_FORM_DEPTH_MAX} levels`;
      if (!Array.isArray(value) && !isPlainObject(value)) return "must hold JSON values only";
      for (const child of Array.isArray(value) ? value : Object.values(value)) {
        const problem = jsonValueProblem(child, level + 1);
        if (problem) return problem;
      }
      return null;
    }
    default:
      return "must hold JSON values only";
  }
}

/** UTF-8 length of a string, from its UTF-16 code units (a surrogate pair is 4 bytes). */
function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Why `value` is not a free-form object the ledger keeps, or null: a JSON object (not an array) of
 * JSON values only (no `undefined`, function, bigint, non-finite number, Date or class instance),
 * at most `FREE_FORM_DEPTH_MAX` levels deep (the object itself is level 1; a cycle is too deep)
 * and `FREE_FORM_BYTES_MAX` bytes serialized. The HTTP schemas and the use cases apply this one rule.
 */
export function freeFormProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !isPlainObject(value)) {
    return "must be a JSON object";
  }
  const problem = jsonValueProblem(value, 1);
  if (problem) return problem;
  if (utf8Length(JSON.stringify(value)) > FREE_FORM_BYTES_MAX) {
    return `must serialize to at most ${FREE_FORM_BYTES_MAX} bytes`;
  }
  return null;
}

/** Domain guard for free-form objects that reach a use case without the HTTP schema (embedding). */
export function assertFreeForm(field: string, value: unknown): void {
  const problem = freeFormProblem(value);
  if (problem) refuse("InvalidRequest", `${field} ${problem}`, [{ field, issue: problem }]);
}
