import fc from "fast-check";
import type { RouteEntry } from "../../../src/index.js";
import type { FuzzWorld } from "./fuzz-world.js";
import { arbitraryOf, hostileString, hostileValue } from "./schema-arbitrary.js";

/** One fuzzed request, exactly as sent and signed. */
export interface FuzzRequest {
  method: string;
  /** Path and query after the API base, as they go on the wire. */
  pathAndQuery: string;
  /** Raw body text, or undefined for none. */
  body: string | undefined;
  /** null: no Idempotency-Key header. */
  idempotencyKey: string | null;
}

// biome-ignore lint/suspicious/noExplicitAny: JSON values are edited structurally
type Json = any;

/** Every path (list of keys) inside a JSON value, the value itself included. */
function pathsOf(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(prefix);
  if (prefix.length < 6 && value !== null && typeof value === "object") {
    for (const [k, child] of Object.entries(value))
      pathsOf(child, [...prefix, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

export interface Mutation {
  kind: "set" | "delete" | "add" | "wrap";
  pick: number;
  value: unknown;
  key: string;
}

/**
 * Applies mutations to a copy: a field of the wrong type or range, a missing field, an unknown one.
 * Inserted values are copied too: some are constants fast-check hands out again and again (`{}`,
 * `[]`), and a later mutation writing into one of them would change every request after it (the
 * runs would stop being reproducible from their seed) until two of them contained each other.
 */
export function mutate(value: Json, mutations: Mutation[]): Json {
  let root = structuredClone(value);
  for (const m of mutations) {
    const paths = pathsOf(root);
    const path = paths[m.pick % paths.length] ?? [];
    if (path.length === 0) {
      root = m.kind === "wrap" ? [root] : m.kind === "set" ? structuredClone(m.value) : root;
      continue;
    }
    let parent = root;
    for (const k of path.slice(0, -1)) parent = parent[k];
    const last = path[path.length - 1] as string | number;
    if (parent === null || typeof parent !== "object") continue;
    if (m.kind === "set") parent[last] = structuredClone(m.value);
    else if (m.kind === "delete") delete parent[last];
    else if (m.kind === "wrap") parent[last] = [parent[last]];
    else if (!Array.isArray(parent)) parent[m.key || "extra"] = structuredClone(m.value);
  }
  return root;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("set", "set", "set", "delete", "add", "wrap"),
  pick: fc.nat(),
  value: hostileValue,
  key: fc.oneof(
    fc.constantFrom("__proto__", "constructor", "amountMinor", "extra", ""),
    fc.string({ maxLength: 10 }),
  ),
});

/** Bodies no schema derives: broken JSON, the wrong top-level type, duplicate keys, a BOM, too big. */
const rawBodyArb = (valid: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    "",
    "{",
    "}",
    "[]",
    "null",
    "1",
    '"text"',
    "{}",
    "\ufeff{}",
    '{"__proto__":{"admin":true}}',
    '{"amountMinor":1e400}',
    '{"amountMinor":-0}',
    '{"a":"\\ud800"}',
    valid.replace(/^\{/, '{"walletUid":"dup",'),
    valid.replace(/^\{/, '{"amountMinor":1,"amountMinor":2,'),
    valid.slice(0, Math.max(1, Math.floor(valid.length / 2))),
    `${valid}garbage`,
    `${"[".repeat(5_000)}1${"]".repeat(5_000)}`,
    `{"a":${'{"a":'.repeat(5_000)}1${"}".repeat(5_001)}`,
    `{"metadata":${"[".repeat(10_000)}${"]".repeat(10_000)}}`,
    `{"pad":"${"x".repeat(1_100_000)}"}`,
  );

/** Percent-encodes, replacing lone surrogates first (encodeURIComponent throws on them; so does every client). */
const enc = (s: string) =>
  encodeURIComponent(
    s.replace(/[\ud800-\udfff]/g, (c, i: number, all: string) => {
      const code = c.charCodeAt(0);
      const pair = code < 0xdc00 ? all.charCodeAt(i + 1) : all.charCodeAt(i - 1);
      const paired = code < 0xdc00 ? pair >= 0xdc00 && pair <= 0xdfff : pair >= 0xd800 && pair < 0xdc00;
      return paired ? c : "\ufffd";
    }),
  );

/** How a path parameter goes on the wire: encoded, raw, with slashes encoded, or a traversal. */
const paramEncoding = fc.constantFrom(
  (s: string) => enc(s),
  (s: string) => enc(s),
  (s: string) => s,
  (s: string) => `${enc(s)}%2F..%2F${enc(s)}`,
  (s: string) => `${enc(s)}%2f`,
  (s: string) => `..%2F${enc(s)}`,
  (s: string) => `${enc(s)}/`,
  (s: string) => `%${s}`,
);

function queryArb(entry: RouteEntry, world: FuzzWorld): fc.Arbitrary<string> {
  if (entry.query === undefined) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant("") },
      { weight: 1, arbitrary: fc.constantFrom("?x=1", "?page=1", "?=", "?&&") },
    );
  }
  const valid = arbitraryOf(entry.query, world.hints) as fc.Arbitrary<Record<string, unknown>>;
  return fc
    .tuple(
      valid,
      fc.array(
        fc.record({
          kind: fc.constantFrom("duplicate", "unknown", "hostile", "badEncoding"),
          pick: fc.nat(),
          value: hostileString,
        }),
        { maxLength: 2 },
      ),
    )
    .map(([values, mutations]) => {
      const pairs: [string, string][] = [];
      for (const [k, v] of Object.entries(values)) {
        for (const one of Array.isArray(v) ? v : [v]) pairs.push([k, String(one)]);
      }
      const raw: string[] = [];
      for (const m of mutations) {
        const target = pairs[m.pick % Math.max(1, pairs.length)];
        if (m.kind === "duplicate" && target) pairs.push([target[0], target[1]]);
        if (m.kind === "unknown") pairs.push([`x${m.pick % 7}`, m.value]);
        if (m.kind === "hostile" && target) target[1] = m.value;
        if (m.kind === "badEncoding") raw.push(`${target?.[0] ?? "page"}=%zz%E0%A4%A`);
      }
      const encoded = [...pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`), ...raw];
      return encoded.length === 0 ? "" : `?${encoded.join("&")}`;
    });
}

function bodyArb(entry: RouteEntry, world: FuzzWorld): fc.Arbitrary<string | undefined> {
  if (entry.body === undefined) {
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom("{}", "x") },
    );
  }
  const valid = arbitraryOf(entry.body, world.hints);
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((v) => JSON.stringify(v)) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(valid, fc.array(mutationArb, { minLength: 1, maxLength: 3 }))
        .map(([v, ms]) => JSON.stringify(mutate(v, ms)) ?? "null"),
    },
    { weight: 1, arbitrary: valid.chain((v) => rawBodyArb(JSON.stringify(v))) },
  );
}

let keys = 0;

/** A request for one route of the registry: derived from its schemas, then mutated. */
export function requestArbitrary(entry: RouteEntry, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const params = Object.keys(
    (entry.params as { entries?: Record<string, unknown> } | undefined)?.entries ?? {},
  );
  const paramArbs = params.map((p) =>
    fc
      .tuple(
        fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...world.pathValues(p, entry.path)) },
          { weight: 1, arbitrary: fc.constantFrom(...Object.values(world.ids)) },
          { weight: 2, arbitrary: hostileString },
        ),
        paramEncoding,
      )
      .map(([value, encode]) => encode(value)),
  );
  return fc
    .tuple(
      fc.tuple(...paramArbs),
      queryArb(entry, world),
      bodyArb(entry, world),
      fc.oneof(
        { weight: 12, arbitrary: fc.constant("fresh") },
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constantFrom("", " ", "k\u0001", "ü", "x".repeat(256), "fuzz-reused") },
      ),
    )
    .map(([values, query, body, key]) => {
      let i = 0;
      const path = entry.path.replace(/\{[A-Za-z0-9_]+\}/g, () => values[i++] ?? "");
      return {
        method: entry.method,
        pathAndQuery: `${path}${query}`,
        body,
        idempotencyKey: entry.write
          ? key === "fresh"
            ? `fuzz-${++keys}`
            : key
          : key === "fresh"
            ? null
            : key,
      };
    });
}
