import { boundInstantMs } from "@wallet/ledger-core";
import * as v from "valibot";

export const TIMESTAMP_MESSAGE = "must be an ISO-8601 timestamp such as 2026-11-22T10:00:00.000Z";

/** A positive offset whose `+` was sent raw: form decoding of the query read it as a space. */
const RAW_PLUS_OFFSET = / \d{2}:\d{2}$/;

const timeBound = (bound: "lower" | "upper", description: string) =>
  v.pipe(
    v.string(),
    v.check(
      (s) => boundInstantMs(s, bound) !== null,
      (issue) =>
        RAW_PLUS_OFFSET.test(String(issue.input))
          ? `${TIMESTAMP_MESSAGE}; a + in the query reads as a space, so send a positive offset as %2B (2026-11-22T13:00:00.000%2B03:00)`
          : TIMESTAMP_MESSAGE,
    ),
    v.transform((s) => new Date(boundInstantMs(s, bound)!).toISOString()),
    v.description(description),
  );

/** `from`: inclusive lower bound on createdAt. */
export const fromBoundSchema = timeBound(
  "lower",
  "Inclusive lower bound on createdAt (ISO-8601 / RFC 3339, Z or ±HH:MM offset).",
);

/** `to`: inclusive upper bound on createdAt. */
export const toBoundSchema = timeBound(
  "upper",
  "Inclusive upper bound on createdAt (ISO-8601 / RFC 3339, Z or ±HH:MM offset).",
);
