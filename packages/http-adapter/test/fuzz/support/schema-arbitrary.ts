import fc from "fast-check";

/**
 * fast-check arbitraries derived from the routes' own valibot schemas, so the fuzz follows
 * whatever the registry declares (a new route or field is fuzzed without touching this file).
 * Reads valibot's public schema objects: `type`, `pipe` (min_length, max_length, regex,
 * iso_timestamp, iso_date, safe_integer, min_value, max_value), `entries`, `item`, `wrapped`,
 * `options`, `literal`. Unknown schema types fall back to any JSON value.
 */
// biome-ignore lint/suspicious/noExplicitAny: valibot schema objects are walked structurally
type Schema = any;

/** Values worth trying for a named field (real uids of the seeded world, the rail, the currency). */
export type FieldHints = (name: string) => fc.Arbitrary<unknown> | undefined;

const requirement = (s: Schema, type: string): unknown =>
  (s.pipe as Schema[] | undefined)?.find((a) => a?.type === type)?.requirement;

const isoBetween = fc
  .date({
    min: new Date("2025-01-01T00:00:00.000Z"),
    max: new Date("2028-12-31T23:59:59.999Z"),
    noInvalidDate: true,
  })
  .map((d) => d.toISOString());

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  const min = (requirement(s, "min_length") as number | undefined) ?? 0;
  const max = Math.min((requirement(s, "max_length") as number | undefined) ?? 64, 64);
  const regex = requirement(s, "regex") as RegExp | undefined;
  if (requirement(s, "iso_timestamp") !== undefined) return isoBetween;
  if (requirement(s, "iso_date") !== undefined) return isoBetween.map((t) => t.slice(0, 10));
  if (regex !== undefined) {
    return fc
      .stringMatching(regex)
      .filter((x) => x.length >= min && x.length <= Math.max(max, min))
      .map((x) => x);
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max), unit: "grapheme-ascii" });
}

function numberArbitrary(s: Schema): fc.Arbitrary<number> {
  const min = (requirement(s, "min_value") as number | undefined) ?? -1_000_000;
  const max = (requirement(s, "max_value") as number | undefined) ?? Number.MAX_SAFE_INTEGER;
  const safe = s.pipe?.some((a: Schema) => a?.type === "safe_integer" || a?.type === "integer");
  if (safe) {
    return fc.oneof(
      fc.integer({ min: Math.max(min, -1_000_000), max: Math.min(max, 5_000_000) }),
      fc.constantFrom(...[min, max].filter((x) => Number.isSafeInteger(x))),
    );
  }
  return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** An arbitrary of values the schema is meant to accept (checks like `v.check` may still refuse some). */
export function arbitraryOf(
  schema: Schema,
  hints: FieldHints = () => undefined,
  depth = 0,
): fc.Arbitrary<unknown> {
  if (depth > 12) return fc.constant(null);
  const next = (s: Schema) => arbitraryOf(s, hints, depth + 1);
  switch (schema?.type) {
    case "string":
      return stringArbitrary(schema);
    case "number":
      return numberArbitrary(schema);
    case "boolean":
      return fc.boolean();
    case "picklist":
      return fc.constantFrom(...(schema.options as unknown[]));
    case "literal":
      return fc.constant(schema.literal);
    case "optional":
    case "exact_optional":
    case "undefinedable":
      return next(schema.wrapped);
    case "nullable":
    case "nullish":
      return fc.option(next(schema.wrapped), { nil: null, freq: 4 });
    case "array":
      return fc.array(next(schema.item), {
        minLength: Math.min((requirement(schema, "min_length") as number | undefined) ?? 0, 3),
        maxLength: Math.min((requirement(schema, "max_length") as number | undefined) ?? 3, 3),
      });
    case "union":
    case "variant":
      return fc.oneof(...(schema.options as Schema[]).map(next));
    case "object":
    case "strict_object":
    case "loose_object": {
      const entries = Object.entries(schema.entries as Record<string, Schema>);
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      const required: string[] = [];
      for (const [key, entry] of entries) {
        const hint = hints(key);
        shape[key] = hint
          ? fc.oneof({ weight: 3, arbitrary: hint }, { weight: 1, arbitrary: next(entry) })
          : next(entry);
        if (!["optional", "exact_optional", "undefinedable", "nullish"].includes(entry?.type))
          required.push(key);
      }
      return fc.record(shape, { requiredKeys: required });
    }
    case "custom":
      // The free-form objects (metadata, evidence).
      return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Strings a careless parser or a database chokes on. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "a\u0000b",
    "\ud800",
    "\udfff\ud800",
    "\u202eevil",
    "💸💸💸",
    "Ω≈ç√∫",
    "'; drop table operations; --",
    "%00",
    "../../etc/passwd",
    "a%2Fb",
    "<script>alert(1)</script>",
    "$" + "{7*7}",
    "\r\nX-Injected: 1",
    "null",
    "NaN",
    "-0",
    "1e309",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.nat({ max: 5 }).map((n) => "x".repeat(10 ** n)),
);

/** Values of the wrong type or out of every range. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    0.5,
    -0.000001,
    2 ** 53,
    2 ** 53 + 2,
    -(2 ** 53),
    1e308,
    Number.MAX_VALUE,
    [],
    {},
    [[[[[]]]]],
    { $gt: 0 },
  ),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
  fc.nat({ max: 3 }).map((n) => deepNesting(10 ** n)),
);

/** `[[[...]]]` `levels` deep: parsers and validators must not blow the stack. */
export function deepNesting(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}
