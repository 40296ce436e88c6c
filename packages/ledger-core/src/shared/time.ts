/** ISO-8601 UTC with milliseconds, the one timestamp format of the API. */
export const iso = (d: Date): string => d.toISOString();

/** Start of the UTC day holding `d`. */
export const utcDayStart = (d: Date): Date =>
  new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** Start of the ISO week (Monday, UTC) holding `d`. */
export function utcIsoWeekStart(d: Date): Date {
  const day = utcDayStart(d);
  const offset = (day.getUTCDay() + 6) % 7; // Monday = 0
  return new Date(day.getTime() - offset * 86_400_000);
}

/** Start of the UTC calendar month holding `d`. */
export const utcMonthStart = (d: Date): Date => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));

export const addSeconds = (d: Date, s: number): Date => new Date(d.getTime() + s * 1000);
