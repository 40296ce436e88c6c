import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tenantRouteGroups } from "../src/index.js";
import { operatorRouteList } from "../src/operator-api.js";
import { freeFormObjectSchema, jsonObjectSchema } from "../src/validation/common-schemas.js";
import { freeFormFields, jsonTextProblem } from "../src/validation/json-text.js";

const twice = (field: string) => ({ field, issue: "appears twice in its object" });
const notInteger = (field: string) => ({
  field,
  issue: "must be an integer written without a fraction or exponent",
});

describe("jsonTextProblem: what JSON.parse does not show", () => {
  it("finds a key twice in one object, at any depth, however it is escaped", () => {
    expect(jsonTextProblem('{"amountMinor":1,"amountMinor":250}')).toEqual(twice("amountMinor"));
    expect(jsonTextProblem('{"a":{"b":[1,{"c":1,"d":2,"\\u0063":3}]}}')).toEqual(twice("a.b[1].c"));
    expect(jsonTextProblem('{"metadata":{"x":1,"x":2}}')).toEqual(twice("metadata.x"));
    // The same key in sibling objects, or as a value, is no repeat.
    expect(jsonTextProblem('{"a":{"k":1},"b":{"k":1},"c":["a","a"],"d":"a"}')).toBeNull();
    expect(jsonTextProblem('{"k\\"":1,"k":2,"x":"\\\\","y":"}{,"}')).toBeNull();
  });

  it("finds an amount written with a fraction or an exponent, outside free-form objects", () => {
    for (const literal of ["100.0", "1e2", "1E2", "1.0000000000000001", "-0.0", "2e+5"]) {
      expect(jsonTextProblem(`{"walletUid":"w","amountMinor":${literal}}`), literal).toEqual(
        notInteger("amountMinor"),
      );
    }
    expect(jsonTextProblem('{"limits":[{"maxBalanceMinor":5},{"maxBalanceMinor":5.5}]}')).toEqual(
      notInteger("limits[1].maxBalanceMinor"),
    );
    expect(jsonTextProblem('{"amountMinor":100,"rate":1.5,"expiresInSeconds":60}')).toBeNull();
    // The client's own data is not the API's: any number there.
    expect(
      jsonTextProblem('{"amountMinor":1,"metadata":{"priceMinor":1.5,"n":[{"xMinor":2e3}]}}'),
    ).toBeNull();
    expect(jsonTextProblem('{"kyc":{"evidence":{"scoreMinor":0.5}}}')).toBeNull();
  });

  it("knows every free-form field of every route's body, and no other", () => {
    const found = new Set<string>();
    const walk = (schema: unknown, key: string | null): void => {
      if (schema === null || typeof schema !== "object") return;
      if (schema === freeFormObjectSchema || schema === jsonObjectSchema) {
        if (key !== null) found.add(key);
        return;
      }
      const s = schema as {
        entries?: object;
        wrapped?: unknown;
        pipe?: unknown[];
        item?: unknown;
        options?: unknown[];
      };
      for (const [k, child] of Object.entries(s.entries ?? {})) walk(child, k);
      walk(s.wrapped, key);
      walk(s.pipe?.[0], key);
      walk(s.item, key);
      for (const option of s.options ?? []) walk(option, key);
    };
    for (const entry of [...Object.values(tenantRouteGroups()).flat(), ...operatorRouteList])
      walk(entry.body, null);
    expect([...found].sort()).toEqual([...freeFormFields].sort());
  });

  it("agrees with JSON.parse on any JSON: a repeat exactly when the parsed value lost a key (property)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), jsonTextWithRepeats), (text) => {
        const problem = jsonTextProblem(text);
        fc.pre(problem?.issue !== notInteger("").issue);
        const lost = keysWritten(text) !== keysKept(JSON.parse(text));
        expect(problem !== null, text).toBe(lost);
      }),
      { numRuns: 3_000 },
    );
  });
});

/** JSON texts whose objects may repeat a key (written plainly or escaped), with spaces around. */
const jsonTextWithRepeats = fc.letrec<{ value: string; object: string; array: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("1", "-2", "1.5", '"s"', '"a\\\\"', "null", "true", '","', '"}"'),
    tie("object"),
    tie("array"),
  ),
  object: fc
    .array(fc.tuple(fc.constantFrom("a", "b", "\\u0061", "amountMinor", 'q\\"'), tie("value")), {
      maxLength: 4,
    })
    .map((entries) => `{ ${entries.map(([k, v]) => `"${k}" : ${v}`).join(" , ")} }`),
  array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
})).object;

/** How many keys the text writes (every string followed by a colon is one). */
function keysWritten(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '"') continue;
    let j = i + 1;
    for (; j < text.length && text[j] !== '"'; j++) if (text[j] === "\\") j++;
    let k = j + 1;
    while (text[k] === " " || text[k] === "\n" || text[k] === "\t" || text[k] === "\r") k++;
    if (text[k] === ":") n++;
    i = j;
  }
  return n;
}

/** How many keys the parsed value holds. */
function keysKept(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((s: number, v) => s + keysKept(v), 0);
  if (value !== null && typeof value === "object")
    return Object.values(value).reduce((s: number, v) => s + 1 + keysKept(v), 0);
  return 0;
}
