import { type ErrorDetail, isStorableText } from "@wallet/ledger-core";
import * as v from "valibot";
import { invalidRequest } from "../errors/http-error.js";
import { jsonPath } from "./json-path.js";
import { jsonTextProblem } from "./json-text.js";

/** Past this many issues the rest are dropped: a hostile body must not produce a huge answer. */
const DETAILS_MAX = 20;

/** Where an input comes from; named in the message of the 400. */
export type InputSource = "body" | "query" | "path";

/**
 * Validates `value` against `schema`, returning the typed output or throwing 400 InvalidRequest with
 * one detail per issue, each naming the JSON path (`identifiers[0].value`). Messages never echo the
 * value received (it may be personal data).
 */
export function validateInput<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  source: InputSource,
): v.InferOutput<S> {
  const unstorable = findUnstorableText(value);
  if (unstorable !== null) {
    throw invalidRequest(`The request ${source} is invalid`, [
      {
        field: jsonPath(unstorable.map((key) => ({ key }))) || source,
        issue: "must be text without NUL characters or unpaired surrogates",
      },
    ]);
  }
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  const details = result.issues.slice(0, DETAILS_MAX).map((issue) => toDetail(issue, source));
  throw invalidRequest(`The request ${source} is invalid`, details);
}

function toDetail(issue: v.GenericIssue, source: InputSource): ErrorDetail {
  const path = issue.path ?? [];
  const field = jsonPath(path) || source;
  const last = path.at(-1);
  // A strict object reports both an unknown key (expected never) and a missing one on the key.
  if (issue.type === "strict_object" && last?.origin === "key") {
    return { field, issue: issue.expected === "never" ? "unknown field" : "required" };
  }
  if (issue.kind === "schema" && issue.input === undefined && path.length > 0)
    return { field, issue: "required" };
  // Schema issues carry a structural expectation; validation actions carry the message given in
  // the schema (every action in this package names one), so neither holds the received value.
  if (issue.kind === "schema") return { field, issue: `expected ${issue.expected ?? "a valid value"}` };
  return { field, issue: issue.message };
}

/**
 * The path of the first string (value or object key) no store can keep as sent, or null.
 * Iterative, with parent links instead of path copies: a hostile body may nest thousands deep.
 */
export function findUnstorableText(value: unknown): (string | number)[] | null {
  type Node = { value: unknown; key: string | number | null; parent: Node | null };
  const pathOf = (n: Node | null, last?: string): (string | number)[] => {
    const path: (string | number)[] = last === undefined ? [] : [last];
    for (let at = n; at !== null && at.key !== null; at = at.parent) path.unshift(at.key);
    return path;
  };
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const v = node.value;
    if (typeof v === "string") {
      if (!isStorableText(v)) return pathOf(node);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: node });
    } else if (v !== null && typeof v === "object") {
      for (const [k, child] of Object.entries(v)) {
        if (!isStorableText(k)) return pathOf(node, k);
        stack.push({ value: child, key: k, parent: node });
      }
    }
  }
  return null;
}

/**
 * A request body: a JSON object (valibot's strictObject would take `[]` for an all-optional
 * object), then `validateInput` against `schema`.
 */
export function validateBody<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  if (Array.isArray(value)) throw invalidRequest("The request body must be a JSON object");
  return validateInput(schema, value, "body");
}

/**
 * Parses the body bytes as JSON: 400 for invalid UTF-8 or JSON. An empty body is `undefined`, which
 * a route with a body schema then refuses.
 */
export function parseJsonBody(bytes: Uint8Array): unknown {
  if (bytes.byteLength === 0) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest("The request body is not valid UTF-8");
  }
  return parseJsonText(text);
}

/**
 * Parses JSON text as the API reads a body: 400 for text that is not JSON, and for what
 * `JSON.parse` would accept silently (a key twice in one object, an amount written with a
 * fraction or an exponent: `jsonTextProblem`).
 */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest("The request body is not valid JSON");
  }
  const problem = jsonTextProblem(text);
  if (problem !== null) throw invalidRequest("The request body is invalid", [problem]);
  return value;
}
