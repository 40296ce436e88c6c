import type { Compilable, CompiledQuery, Kysely, QueryResult } from "kysely";
import type { Database } from "../schema/database.js";
import type { SqlDialect } from "./sql-dialect.js";

/** What running a template needs: an open transaction (or database) and its engine. */
export interface TemplateTarget {
  trx: Kysely<Database>;
  dialect: SqlDialect;
}

/**
 * A statement built and compiled by Kysely once per engine, then run many times with new values.
 * Building and compiling a query costs more CPU than SQLite takes to run a keyed read or insert,
 * so the hot statements skip it: the builder runs once with a placeholder per argument, the
 * placeholders are located in the compiled parameters, and later calls only swap values in.
 *
 * Arguments are one object whose values are scalars, or arrays and plain objects of them (rows to
 * insert, keys of an IN list). A query is compiled per shape of its arguments (array lengths,
 * numbers of keys), so an IN list of two keys and one of three each get their own, up to
 * `SHAPES_MAX` shapes (both engines together); beyond that, a new shape is built and compiled
 * at each call.
 *
 * Only for statements whose SQL text otherwise depends on nothing but that shape: no argument
 * may decide an optional clause, nor be a null compared with `=` (Kysely would keep `= null`,
 * a template with a value there would not); null is fine where it is stored (inserted, set).
 * The compiled form is shared by every store of an engine: the stores install no Kysely plugin,
 * so the SQL text and the result rows depend on the engine alone.
 */
export interface QueryTemplate<P, O> {
  /** Runs the statement; the raw result (rows, affected rows). */
  execute(target: TemplateTarget, args: P): Promise<QueryResult<O>>;
  rows(target: TemplateTarget, args: P): Promise<O[]>;
  first(target: TemplateTarget, args: P): Promise<O | undefined>;
  /** Rows inserted, updated or deleted. */
  affected(target: TemplateTarget, args: P): Promise<number>;
}

/** Compiled shapes kept per template. */
export const SHAPES_MAX = 16;

/**
 * The Postgres SQL texts of the kept shapes, each with a statement name: the store's clients run
 * them as named prepared statements (`postgres/prepared-templates.ts`), parsed and planned once per
 * connection. Bounded: templates are module constants and each keeps at most `SHAPES_MAX` shapes.
 */
const preparedNames = new Map<string, string>();

/** The prepared-statement name of a template's Postgres SQL; undefined for any other SQL. */
export function preparedStatementName(sql: string): string | undefined {
  return preparedNames.get(sql);
}

type Path = readonly (string | number)[];

/** Where a compiled parameter comes from: an argument at a path, or a constant of the query. */
type Slot = { readonly path: Path } | { readonly constant: unknown };

interface Compiled {
  readonly query: CompiledQuery<unknown>;
  readonly slots: readonly Slot[];
}

/** Stands for an argument while the query is built; its own class, so it can only come from `p`. */
class Placeholder {
  constructor(readonly path: Path) {}
}

export function queryTemplate<P extends object, O>(
  build: (db: Kysely<Database>, p: P) => Compilable<O>,
): QueryTemplate<P, O> {
  const byShape = new Map<string, Compiled>();

  const compile = (trx: Kysely<Database>, args: P): Compiled => {
    const leaves: Path[] = [];
    const placeholders = placeholdersOf(args, [], leaves) as P;
    const query = build(trx, placeholders).compile() as CompiledQuery<unknown>;
    const slots = query.parameters.map(
      (v): Slot => (v instanceof Placeholder ? { path: v.path } : { constant: v }),
    );
    const bound = new Set(slots.flatMap((s) => ("path" in s ? [s.path.join(".")] : [])));
    const unbound = leaves.map((path) => path.join(".")).filter((path) => !bound.has(path));
    if (unbound.length > 0) {
      // Not a parameter: the argument went into the SQL text, or was left out, so the text is
      // not fixed.
      throw new Error(`Query template argument(s) not bound as parameters: ${unbound.join(", ")}`);
    }
    return { query, slots };
  };

  const execute = (target: TemplateTarget, args: P): Promise<QueryResult<O>> => {
    const shape = `${target.dialect}${shapeOf(args)}`;
    let compiled = byShape.get(shape);
    if (!compiled) {
      compiled = compile(target.trx, args);
      if (byShape.size < SHAPES_MAX) {
        byShape.set(shape, compiled);
        const { sql } = compiled.query;
        if (target.dialect === "postgres" && !preparedNames.has(sql)) {
          preparedNames.set(sql, `wallet_q${preparedNames.size}`);
        }
      }
    }
    const parameters = compiled.slots.map((s) => ("path" in s ? valueAt(args, s.path) : s.constant));
    return target.trx.executeQuery<O>({ ...compiled.query, parameters } as CompiledQuery<O>);
  };

  return {
    execute,
    rows: async (target, args) => (await execute(target, args)).rows,
    first: async (target, args) => (await execute(target, args)).rows[0],
    affected: async (target, args) => Number((await execute(target, args)).numAffectedRows ?? 0n),
  };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** `value` with every scalar replaced by a placeholder for its path (collected in `leaves`). */
function placeholdersOf(value: unknown, path: Path, leaves: Path[]): unknown {
  if (Array.isArray(value)) return value.map((v, i) => placeholdersOf(v, [...path, i], leaves));
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, placeholdersOf(v, [...path, k], leaves)]),
    );
  }
  leaves.push(path);
  return new Placeholder(path);
}

/** What decides the compiled SQL besides the engine: array lengths and key counts, in order. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) {
    let out = `[${value.length}`;
    for (const v of value) out += shapeOf(v);
    return out;
  }
  if (isPlainObject(value)) {
    let out = "";
    let keys = 0;
    for (const k in value) {
      keys++;
      out += shapeOf(value[k]);
    }
    return `{${keys}${out}`;
  }
  if (value === undefined) {
    // Kysely leaves an undefined column out of the SQL: it cannot stand for a template argument.
    throw new Error("Query template argument is undefined");
  }
  return "";
}

function valueAt(args: object, path: Path): unknown {
  let v: unknown = args;
  for (const step of path) v = (v as Record<string | number, unknown>)[step];
  return v;
}
