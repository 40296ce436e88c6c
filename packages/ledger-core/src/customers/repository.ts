import type {
  Agreement,
  AgreementStatus,
  Customer,
  CustomerStatus,
  Identifier,
  KycVersion,
} from "./model.js";

export interface CustomerRepository {
  insert(c: Customer): Promise<void>;
  get(tenantId: string, uid: string): Promise<Customer | null>;
  /** Unscoped lookup for the operator API. */
  getAny(uid: string): Promise<Customer | null>;
  /**
   * `get`, and the customer's row stays locked until the transaction ends (Postgres; SQLite and the
   * memory store run one writer at a time already). Whatever reads a customer's identifiers,
   * agreements or KYC versions to decide a change takes it first, so such changes to one customer
   * apply one after another.
   */
  getForUpdate(tenantId: string, uid: string): Promise<Customer | null>;
  setStatus(tenantId: string, uid: string, status: CustomerStatus): Promise<void>;
  /**
   * Up to `limit` customers, across tenants, by uid after `afterUid` when given, whose date of
   * birth is not sealed: it does not start with `sealedMark` (how every value the vault seals
   * starts, `v1.`). Written before dates were sealed, in whatever form its writer gave. For the
   * server's start, which seals them.
   */
  clearDatesOfBirth(
    limit: number,
    sealedMark: string,
    afterUid?: string | undefined,
  ): Promise<{ uid: string; dateOfBirth: string }[]>;
  /**
   * Stores each `sealed` as its customer's date of birth where it is still `clear` (a row sealed
   * meanwhile by another process is left as it is), in one statement.
   */
  sealDatesOfBirth(rows: readonly { uid: string; clear: string; sealed: string }[]): Promise<void>;
  /**
   * One sealed date of birth (starting with `sealedMark`), across tenants, that starts with none
   * of `prefixes`, or null when every one does: as `IdentifierRepository.sealedOutsidePrefixes`.
   */
  sealedDateOfBirthOutsidePrefixes(sealedMark: string, prefixes: readonly string[]): Promise<string | null>;
}

export interface IdentifierRepository {
  /**
   * Backed by a partial UNIQUE (tenant_id, blind_index) index over verified identifiers: inserting
   * or updating into a verified duplicate throws `DomainError("Conflict")`.
   */
  insert(i: Identifier): Promise<void>;
  update(i: Identifier): Promise<void>;
  get(tenantId: string, uid: string): Promise<Identifier | null>;
  listByCustomer(tenantId: string, customerUid: string): Promise<Identifier[]>;
  /**
   * A verified identifier of the tenant with this blind index, excluding `exceptUid`.
   * Verified duplicates within a tenant are a 409; other tenants are never searched.
   */
  findVerifiedByBlindIndex(
    tenantId: string,
    blindIndex: string,
    exceptUid?: string,
  ): Promise<Identifier | null>;
  /**
   * Sets the identifier `expired` if it is still verified with this `validTo`, which the caller
   * read and found past: a retired identifier gives its value up to another (a recycled phone
   * number), and the unique index over verified values frees it. Does nothing when it changed
   * meanwhile (the insert or update that follows then meets the index).
   */
  expireRetired(tenantId: string, uid: string, validTo: string): Promise<void>;
  /**
   * The first and the last identifier stored (by uid, so by creation), across tenants; none when
   * there is none. For the server's start: the PII keys it was given must open what the database
   * holds, and the last of them must be the key its blind indexes were made with.
   */
  firstAndLast(): Promise<Identifier[]>;
  /**
   * One sealed value, across tenants, that starts with none of `prefixes`, or null when every one
   * does. For the server's start: a value sealed with a key that is not in its ring (a rotation's
   * middle key dropped) could never be read.
   */
  sealedOutsidePrefixes(prefixes: readonly string[]): Promise<string | null>;
}

export interface AgreementRepository {
  insert(a: Agreement): Promise<void>;
  get(tenantId: string, uid: string): Promise<Agreement | null>;
  setStatus(tenantId: string, uid: string, status: AgreementStatus): Promise<void>;
  listByCustomer(tenantId: string, customerUid: string): Promise<Agreement[]>;
}

export interface KycVersionRepository {
  insert(v: KycVersion): Promise<void>;
  update(v: KycVersion): Promise<void>;
  get(tenantId: string, uid: string): Promise<KycVersion | null>;
  /** Unscoped lookup for the operator. */
  getAny(uid: string): Promise<KycVersion | null>;
  listByCustomer(tenantId: string, customerUid: string): Promise<KycVersion[]>;
  /**
   * The KYC level codes that approved or pending versions name, across tenants, each once: the
   * levels the catalog must still hold (a wallet's level is its customer's approved version's).
   * For the server's start; it reads every version.
   */
  tierCodesInUse(): Promise<string[]>;
}
