/**
 * JSON values are kept as text holding `JSON.stringify` output in both dialects: byte-stable (no
 * key reordering as with Postgres `jsonb`) and read back to an equal value.
 */
export const toJson = (value: unknown): string => JSON.stringify(value);

export const toJsonOrNull = (value: unknown): string | null =>
  value === null ? null : JSON.stringify(value);

export const fromJson = <T>(text: string): T => JSON.parse(text) as T;

export const fromJsonOrNull = <T>(text: string | null): T | null =>
  text === null ? null : (JSON.parse(text) as T);
