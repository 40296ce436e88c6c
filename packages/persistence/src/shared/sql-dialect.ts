/** The two engines the store runs on. */
export const sqlDialects = ["sqlite", "postgres"] as const;
export type SqlDialect = (typeof sqlDialects)[number];
