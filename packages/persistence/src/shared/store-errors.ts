import { DomainError, StoreUnavailableError } from "@wallet/ledger-core";

/**
 * Unique indexes whose violation is a business conflict (409), not a bug. Anything else that
 * breaks a constraint is a programming error and stays a plain error.
 */
export const conflictIndexes = {
  operationClientReference: {
    name: "operations_client_reference_unique",
    sqliteColumns: "operations.tenant_id, operations.type, operations.client_reference",
    message: "clientReference is already used by another operation of this type",
  },
  verifiedBlindIndex: {
    name: "identifiers_verified_blind_index_unique",
    sqliteColumns: "identifiers.tenant_id, identifiers.blind_index",
    message: "A verified identifier with this value already exists in the account",
  },
} as const;
export type ConflictIndex = (typeof conflictIndexes)[keyof typeof conflictIndexes];

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

const asDriverError = (e: unknown): DriverError =>
  typeof e === "object" && e !== null ? (e as DriverError) : {};

/** True when `e` is a unique violation of `index`, on either engine. */
export function isUniqueViolationOf(e: unknown, index: ConflictIndex): boolean {
  const { code, constraint, message } = asDriverError(e);
  if (code === "23505") return constraint === index.name;
  if (code === "SQLITE_CONSTRAINT_UNIQUE" && typeof message === "string") {
    return message.endsWith(index.sqliteColumns) || message.includes(`index '${index.name}'`);
  }
  return false;
}

export const conflictError = (index: ConflictIndex): DomainError =>
  new DomainError("Conflict", index.message);

// Postgres SQLSTATEs meaning "the database cannot serve you now": admin/crash shutdown, cannot
// connect now, too many connections, out of resources, timeouts, and transient lock failures;
// at connect time, a database dropped or renamed (3D000, 57P04) or credentials refused (class 28:
// a password rotated under the running server).
const unavailableSqlStates = new Set([
  "57P01",
  "57P02",
  "57P03",
  "57P04",
  "3D000",
  "28000",
  "28P01",
  "53000",
  "53100",
  "53200",
  "53300",
  "57014",
  "55P03",
  "40P01",
  "40001",
]);
const unavailableNodeCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
// pg and pg-pool report some failures only in the message.
const unavailableMessages = [
  "Connection terminated",
  // 55000 at connect time (`ALTER DATABASE ... ALLOW_CONNECTIONS false`); the code alone also
  // names statement errors.
  "is not currently accepting connections",
  "timeout exceeded when trying to connect",
  "Client has encountered a connection error",
  "Cannot use a pool after calling end",
  "Client was closed and is not queryable",
  "The database connection is not open",
  // No answer within the client's read timeout: the network went silent (the connection is then
  // destroyed, see createPostgresStore).
  "Query read timeout",
  // A prepared statement met a table migrated under it: the client prepares it again next time.
  "cached plan must not change result type",
];

/** True for failures of reaching the store rather than of the statement. */
export function isUnavailable(e: unknown): boolean {
  const { code, message } = asDriverError(e);
  if (typeof code === "string") {
    if (unavailableNodeCodes.has(code) || unavailableSqlStates.has(code) || code.startsWith("08"))
      return true;
    // SQLite: another process holds the write lock past busy_timeout, or the file cannot be used.
    if (/^SQLITE_(BUSY|LOCKED|CANTOPEN|IOERR|READONLY_DBMOVED)/.test(code)) return true;
  }
  return typeof message === "string" && unavailableMessages.some((m) => message.includes(m));
}

/**
 * Translates a driver failure into the domain's vocabulary: connection trouble becomes
 * `StoreUnavailableError` (503), a race on a business unique index becomes `Conflict` (409).
 * Domain errors and everything else pass through untouched.
 */
export function mapStoreError(e: unknown): unknown {
  if (e instanceof DomainError || e instanceof StoreUnavailableError) return e;
  for (const index of Object.values(conflictIndexes)) {
    if (isUniqueViolationOf(e, index)) return conflictError(index);
  }
  if (isUnavailable(e)) {
    const reason = e instanceof Error ? e.message : String(e);
    return new StoreUnavailableError(`The store is unavailable: ${reason}`, { cause: e });
  }
  // Postgres text cannot hold U+0000 (22021): a value an embedder passed past the core's text
  // checks, in a lookup or a write. The request's fault, never the store's.
  if (asDriverError(e).code === "22021") {
    return new DomainError("InvalidRequest", "Text must not contain the character U+0000");
  }
  return e;
}
