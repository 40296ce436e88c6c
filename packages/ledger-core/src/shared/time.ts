import { refuse } from "./errors.js";

/**
 * The last seconds `iso` formatted and their `YYYY-MM-DDTHH:mm:ss.` text, replaced in turn. A
 * request formats several seconds over and over (its instant, the day and month starts of its
 * limits, the end of a replay window): with one kept they would push each other out every call.
 */
const SECONDS_KEPT = 4;
const keptSeconds: number[] = Array.from({ length: SECONDS_KEPT }, () => Number.NaN);
const keptTexts: string[] = Array.from({ length: SECONDS_KEPT }, () => "");
let nextSlot = 0;
/** `000Z` .. `999Z`. */
const isoMillis = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, "0")}Z`);
/** 10000-01-01T00:00:00.000Z: from there on, and before 1970, `iso` leaves it to `toISOString`. */
const isoFastEnd = 253_402_300_800_000;

/**
 * ISO-8601 UTC with milliseconds, the one timestamp format of the API: `d.toISOString()`, the same
 * text (and the same RangeError for an invalid date). V8 formats a date through printf, thousands
 * of instructions a call; within one second only the milliseconds change, so the rest is
 * formatted once per second (for the last few seconds seen). The text is joined, in one piece (see `shared/ids.ts`).
 */
export function iso(d: Date): string {
  const t = d.getTime();
  if (!(t >= 0 && t < isoFastEnd)) return d.toISOString();
  const ms = t % 1000;
  const second = t - ms;
  let slot = keptSeconds.indexOf(second);
  if (slot < 0) {
    slot = nextSlot;
    nextSlot = (nextSlot + 1) % SECONDS_KEPT;
    keptSeconds[slot] = second;
    keptTexts[slot] = d.toISOString().slice(0, 20);
  }
  return [keptTexts[slot], isoMillis[ms]].join("");
}

/** Start of the UTC day holding `d`. */
export const utcDayStart = (d: Date): Date => {
  // UTC days are 86,400,000 ms long exactly (no leap seconds): the same as rebuilding the date
  // from its UTC year, month and day, without the calendar arithmetic (an invalid date stays so).
  const t = d.getTime();
  return new Date(t - (((t % 86_400_000) + 86_400_000) % 86_400_000));
};

/** Start of the ISO week (Monday, UTC) holding `d`. */
export function utcIsoWeekStart(d: Date): Date {
  const day = utcDayStart(d);
  const offset = (day.getUTCDay() + 6) % 7; // Monday = 0
  return new Date(day.getTime() - offset * 86_400_000);
}

/** Start of the UTC calendar month holding `d`. */
export const utcMonthStart = (d: Date): Date => {
  // Not Date.UTC, which reads a year 0-99 as 1900-1999 (an invalid date stays invalid).
  const start = new Date(0);
  start.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return start;
};

export const addSeconds = (d: Date, s: number): Date => new Date(d.getTime() + s * 1000);

/**
 * RFC 3339 profile of ISO-8601: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`. Stored times are
 * `toISOString()` strings (UTC, milliseconds) and the stores compare them as text, so a bound is
 * rewritten into that exact form before it reaches the core (DESIGN.md section 3: time filters
 * compare against createdAt exactly as returned).
 */
export const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** Instants whose `toISOString()` has a four-digit year, so that text order is time order. */
const INSTANT_MS_MIN = new Date("0000-01-01T00:00:00.000Z").getTime();
const INSTANT_MS_MAX = new Date("9999-12-31T23:59:59.999Z").getTime();

/** Whether `ms` is an instant the stores can compare as text (see INSTANT_MS_MIN); NaN is not. */
export const isTextOrderedInstant = (ms: number): boolean => ms >= INSTANT_MS_MIN && ms <= INSTANT_MS_MAX;

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
  return isTextOrderedInstant(ms) ? ms : null;
}

/**
 * `text` as a stored instant (UTC, milliseconds), read as the API's schemas read it (RFC 3339, a
 * real calendar time in years 0000-9999, rounded toward the inside of `bound`); else 400 naming
 * `field`. For instants that reach a use case without the HTTP schema (embedding).
 */
export function storedInstant(text: unknown, field: string, bound: "lower" | "upper"): string {
  const ms = typeof text === "string" ? boundInstantMs(text, bound) : null;
  if (ms === null) {
    return refuse("InvalidRequest", `${field} must be an RFC 3339 timestamp`, [
      { field, issue: "invalid timestamp" },
    ]);
  }
  return iso(new Date(ms));
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `text` is a real calendar day `YYYY-MM-DD` of the years 0000-9999 (`1990-02-31` is not). */
export const isCalendarDate = (text: string): boolean =>
  DATE.test(text) && boundInstantMs(`${text}T00:00:00Z`, "upper") !== null;

/**
 * `text` as a calendar date (`isCalendarDate`), as the API's schema reads a date; else 400 naming
 * `field`. Dates compare as text, so no other form may be stored.
 */
export function storedDate(text: unknown, field: string): string {
  if (typeof text !== "string" || !isCalendarDate(text)) {
    return refuse("InvalidRequest", `${field} must be an ISO-8601 date (YYYY-MM-DD)`, [
      { field, issue: "invalid date" },
    ]);
  }
  return text;
}
