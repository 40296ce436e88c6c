/** An audit row for a sensitive read (unmasked personal data). Never holds the data itself. */
export interface AuditEntry {
  at: string;
  tenantId: string;
  kid: string | null;
  action: string;
  customerUid: string | null;
  identifierUids: string[];
  requestId: string | null;
}

/** One page of the audit log: every tenant's rows, or one tenant's. */
export interface AuditListQuery {
  tenantId?: string | undefined;
  /** At most this many rows. */
  limit: number;
  /** After skipping this many. */
  offset: number;
}

/** Operator API `GET /audit`: `limit` defaults to 100; a larger one is clamped to 1000. */
export const auditListLimitDefault = 100;
export const auditListLimitMax = 1000;

export interface AuditRepository {
  append(entry: AuditEntry): Promise<void>;
  /**
   * Newest first by insertion (the store's ordinal, not `at`): a total, stable order, so pages
   * neither repeat nor skip a row while no row is appended. The store applies the bound.
   */
  list(query: AuditListQuery): Promise<AuditEntry[]>;
}
