import {
  boundInstantMs,
  CLIENT_REFERENCE_MAX,
  CURRENCY_CODE,
  codePointCount,
  FREE_FORM_BYTES_MAX,
  FREE_FORM_DEPTH_MAX,
  freeFormProblem,
  hasCodePointsBetween,
  isCalendarDate,
  RFC3339,
} from "@wallet/ledger-core";
import * as v from "valibot";
import { TIMESTAMP_MESSAGE } from "./time-bounds.js";

/** What an action counting code points carries, for the OpenAPI document's minLength/maxLength. */
export interface CodePointBounds {
  readonly min: number;
  readonly max: number;
}

/**
 * A string of `min..max` characters, counted in code points as the document's JSON Schema counts
 * them (valibot's `maxLength` counts UTF-16 units: 500 emoji would be 1,000). Every string has a
 * ceiling.
 */
export const boundedString = (min: number, max: number) =>
  v.pipe(
    v.string(),
    Object.assign(
      v.check(
        (s: string) => hasCodePointsBetween(s, min, max),
        (issue) =>
          codePointCount(issue.input) < min
            ? min === 1
              ? "must not be empty"
              : `must be at least ${min} characters`
            : `must be at most ${max} characters`,
      ),
      { codePoints: { min, max } satisfies CodePointBounds },
    ),
  );

/** Amounts of money in minor units: a safe integer 1 .. 2^53-1. Floats, strings, 0 and negatives are refused. */
export const amountMinorSchema = v.pipe(
  v.number(),
  v.safeInteger("must be an integer between 1 and 9007199254740991"),
  v.minValue(1, "must be at least 1"),
  v.description("Integer count of minor units, 1 .. 2^53-1."),
);

/** ISO-4217 alphabetic code. */
export const currencySchema = v.pipe(v.string(), v.regex(CURRENCY_CODE, "must be an ISO-4217 code"));

/**
 * An instant a request gives (acceptedAt, verifiedAt, validTo, an assertion's times...): a real
 * calendar time in the RFC 3339 profile of ISO-8601 (Z or an offset), rewritten into the API's one
 * format, UTC with milliseconds, before the core stores or compares it. `2026-02-31T10:00:00Z` is
 * 400, not March 3rd. Digits past the millisecond round toward the inside of what the instant
 * bounds: down for an end or a fact (`upper`), up for a start (`lower`: a mandate's validFrom).
 */
const instantSchema = (bound: "lower" | "upper") =>
  v.config(
    v.pipe(
      v.string(),
      // The document's `format: date-time`, narrowed by `pattern` to the profile the server reads
      // (upper-case T and Z, at most 9 fraction digits); the check is the calendar (one issue each).
      v.isoTimestamp(TIMESTAMP_MESSAGE),
      v.regex(RFC3339, TIMESTAMP_MESSAGE),
      v.check((s) => boundInstantMs(s, bound) !== null, TIMESTAMP_MESSAGE),
      v.transform((s) => new Date(boundInstantMs(s, bound)!).toISOString()),
      v.description(
        "RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds.",
      ),
    ),
    { abortPipeEarly: true },
  );

export const isoTimestampSchema = instantSchema("upper");

/** The start of a validity window: digits past the millisecond round up, never before the start. */
export const startInstantSchema = instantSchema("lower");

/**
 * An instant in an answer: UTC with milliseconds (`2026-11-22T10:00:00.000Z`), published as
 * `format: date-time` so a generated client can read it as one.
 */
export const instantViewSchema = v.pipe(v.string(), v.isoTimestamp());

/** A real calendar date, YYYY-MM-DD: `1990-02-31` is refused (valibot's isoDate checks the pattern only). */
export const isoDateSchema = v.config(
  v.pipe(
    v.string(),
    v.isoDate("must be an ISO-8601 date (YYYY-MM-DD)"),
    v.check(isCalendarDate, "must be a real calendar date"),
  ),
  { abortPipeEarly: true },
);

/** SHA-256 hex (documentHash, binding hashes). */
export const sha256HexSchema = v.pipe(
  v.string(),
  v.regex(/^[0-9a-fA-F]{64}$/, "must be 64 hexadecimal characters"),
);

/** ISO-3166-1 alpha-2. */
export const countryCodeSchema = v.pipe(
  v.string(),
  v.regex(/^[A-Z]{2}$/, "must be an ISO-3166-1 alpha-2 code"),
);

/** Resource uids in paths and bodies. */
export const uidSchema = boundedString(1, 128);

export const clientReferenceSchema = boundedString(1, CLIENT_REFERENCE_MAX);

/** Spec, Limits: railCode at most 64 characters (payouts, top-ups, quotes). */
export const railCodeSchema = boundedString(1, 64);

/**
 * Any JSON object, arrays excluded. A `custom` schema because `v.record` copies its input into a
 * new object, which would turn an array into `{"0": ...}` before any check could refuse it. The
 * OpenAPI document describes it as `{ "type": "object" }` (see `jsonSchemaOf`).
 */
export const jsonObjectSchema = v.custom<Record<string, unknown>>(
  (x) => typeof x === "object" && x !== null && !Array.isArray(x),
  "must be a JSON object",
);

/**
 * A JSON object of the tenant's own structure (metadata, evidence), at most 16 KiB serialized and
 * 8 levels deep. The checks are described, not converted, in the OpenAPI document.
 */
export const freeFormObjectSchema = v.pipe(
  jsonObjectSchema,
  // The core's one rule; a refusal is worked out again for its message (the check is a `check`
  // action so that the OpenAPI document passes over it, as the description says).
  v.check(
    (o) => freeFormProblem(o) === null,
    (issue) => freeFormProblem(issue.input) ?? "must be a JSON object",
  ),
  v.description(
    `Free-form JSON object; at most ${FREE_FORM_BYTES_MAX} bytes serialized and ${FREE_FORM_DEPTH_MAX} levels deep.`,
  ),
);

export const uidParamsSchema = v.strictObject({ uid: uidSchema });

/** The one error body, for the OpenAPI document. */
export const errorBodySchema = v.object({
  error: v.string(),
  message: v.string(),
  details: v.optional(v.array(v.object({ field: v.string(), issue: v.string() }))),
});
