const plainObject = Object.prototype;

/**
 * A deep copy of a JSON-shaped record (strings, numbers, booleans, null, arrays, plain objects),
 * equal to `JSON.parse(JSON.stringify(v))` but without the text in between: the memory store copies
 * every value on the way in and out, so a caller mutating what it gave or got changes nothing
 * stored. As with JSON, `undefined`, function and symbol members are dropped (`null` inside
 * arrays), -0 becomes 0 and non-finite numbers null; any other object (a Date, a class instance,
 * one with `toJSON`) goes through JSON itself.
 */
export function clone<T>(v: T): T {
  if (typeof v === "object") return v === null ? v : (copyObject(v) as T);
  return typeof v === "number" ? (jsonNumber(v) as T) : v;
}

const jsonNumber = (n: number): number | null => (n === 0 ? 0 : Number.isFinite(n) ? n : null);

function copyObject(v: object): unknown {
  if (Array.isArray(v)) return copyArray(v);
  const proto = Object.getPrototypeOf(v);
  if ((proto !== plainObject && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === "function") {
    return JSON.parse(JSON.stringify(v));
  }
  const out: Record<string, unknown> = { ...v };
  for (const k in out) {
    const x = out[k];
    switch (typeof x) {
      case "object":
        if (x !== null) out[k] = copyObject(x);
        break;
      case "number":
        if (x === 0 || !Number.isFinite(x)) out[k] = jsonNumber(x);
        break;
      case "undefined":
      case "function":
      case "symbol":
        delete out[k];
        break;
    }
  }
  return out;
}

function copyArray(a: unknown[]): unknown[] {
  const n = a.length;
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    switch (typeof x) {
      case "object":
        out[i] = x === null ? null : copyObject(x);
        break;
      case "number":
        out[i] = jsonNumber(x);
        break;
      case "undefined":
      case "function":
      case "symbol":
        out[i] = null;
        break;
      default:
        out[i] = x;
    }
  }
  return out;
}
