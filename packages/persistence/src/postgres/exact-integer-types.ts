import type { CustomTypesConfig } from "pg";
import pg from "pg";
import { toExactNumber } from "../shared/exact-integer.js";

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Type parsers for one pool (not pg's global registry, which other code in the process may rely
 * on): int8 (bigint columns, count) and numeric (sum of bigint) come back as exact numbers, and a
 * value beyond 2^53-1 or with a fraction fails the read instead of being rounded.
 */
export const exactIntegerTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (text: string) => toExactNumber(text);
    return pg.types.getTypeParser(oid, format);
  }) as CustomTypesConfig["getTypeParser"],
};
