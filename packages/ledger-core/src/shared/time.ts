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
