import type { ErrorDetail } from "@wallet/ledger-core";
import { jsonPath } from "./json-path.js";

/**
 * The body fields whose content is the client's own (free-form objects): their keys are not the
 * API's fields. A test checks the list against every route's body schema.
 */
export const freeFormFields: ReadonlySet<string> = new Set([
  "metadata",
  "evidence",
  "formula",
  "retryPolicy",
]);

/** A container being read: an object (its keys so far, the current one) or an array (its index). */
interface Frame {
  keys: Set<string> | null;
  key: string | null;
  index: number;
  /** Inside a free-form object. */
  freeForm: boolean;
}

const NUMBER_CHAR = /[0-9eE.+-]/;
const NOT_INTEGER_LITERAL = /[.eE]/;

/**
 * What `JSON.parse` cannot tell from the value it returns, read from the text of a body it has
 * already accepted (so the text is valid JSON):
 * - a key twice in one object (`JSON.parse` keeps the last; the signed bytes say both);
 * - an amount (a key ending in `Minor`, outside free-form objects) written with a fraction or an
 *   exponent: `100.0`, `1e2` and `1.0000000000000001` all parse to an integer, but the client did
 *   not send one, and the assertion's binding recomputes the amount "as sent".
 * Returns the first problem as a detail (its JSON path and the issue), or null.
 */
export function jsonTextProblem(text: string): ErrorDetail | null {
  const stack: Frame[] = [];
  const field = () => jsonPath(stack.map((f) => ({ key: f.keys === null ? f.index : f.key })));
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: find its closing quote, stepping over escapes.
      let j = i + 1;
      let plain = true;
      for (; j < n; j++) {
        const d = text.charCodeAt(j);
        if (d === 0x5c) {
          plain = false;
          j++;
        } else if (d === 0x22) break;
      }
      const top = stack.at(-1);
      if (expectKey && top?.keys) {
        const key = plain ? text.slice(i + 1, j) : (JSON.parse(text.slice(i, j + 1)) as string);
        top.key = key;
        if (top.keys.has(key)) return { field: field(), issue: "appears twice in its object" };
        top.keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      const parent = stack.at(-1);
      const freeForm =
        parent !== undefined &&
        (parent.freeForm || (parent.keys !== null && parent.key !== null && freeFormFields.has(parent.key)));
      stack.push({ keys: c === 0x7b ? new Set() : null, key: null, index: 0, freeForm });
      expectKey = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) {
      const top = stack.at(-1);
      if (top?.keys) expectKey = true;
      else if (top) top.index++;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && NUMBER_CHAR.test(text[j] as string)) j++;
      const top = stack.at(-1);
      if (
        top?.keys &&
        !top.freeForm &&
        top.key?.endsWith("Minor") &&
        NOT_INTEGER_LITERAL.test(text.slice(i, j))
      ) {
        return { field: field(), issue: "must be an integer written without a fraction or exponent" };
      }
      i = j - 1;
    }
  }
  return null;
}
