import * as v from "valibot";

/**
 * RFC 3339 profile of ISO-8601: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Stored times are
 * `toISOString()` strings (UTC, milliseconds) and the stores compare them as text, so a bound is
 * rewritten into that exact form before it reaches the core (DESIGN.md section 3: time filters
 * compare against createdAt exactly as returned).
 */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

export const TIMESTAMP_MESSAGE = "must be an ISO-8601 timestamp such as 2026-11-22T10:00:00.000Z";

/** Instants whose `toISOString()` has a four-digit year, so that text order is time order. */
const INSTANT_MS_MIN = new Date("0000-01-01T00:00:00.000Z").getTime();
const INSTANT_MS_MAX = new Date("9999-12-31T23:59:59.999Z").getTime();

const daysInMonth = (year: number, month: number) => {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
};

/**
 * The instant named by `text` in milliseconds, rounded toward the inside of the bound: a lower
 * bound with sub-millisecond digits rounds up (no stored time between it and the next millisecond
 * exists), an upper bound rounds down. null when `text` is not a real calendar time.
 */
export function boundInstantMs(text: string, bound: "lower" | "upper"): number | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? "";
  const sign = m[8] === "-" ? -1 : 1;
  const offsetHours = Number(m[9] ?? 0);
  const offsetMinutes = Number(m[10] ?? 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;

  const d = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, "0")));
  const beyondMs = /[1-9]/.test(fraction.slice(3));
  const ms =
    d.getTime() -
    sign * (offsetHours * 60 + offsetMinutes) * 60_000 +
    (beyondMs && bound === "lower" ? 1 : 0);
  return ms < INSTANT_MS_MIN || ms > INSTANT_MS_MAX ? null : ms;
}

const timeBound = (bound: "lower" | "upper", description: string) =>
  v.pipe(
    v.string(),
    v.check((s) => boundInstantMs(s, bound) !== null, TIMESTAMP_MESSAGE),
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
