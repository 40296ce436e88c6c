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

export interface AuditRepository {
  append(entry: AuditEntry): Promise<void>;
  list(tenantId?: string): Promise<AuditEntry[]>;
}
