import type { PageSortField } from "../shared/list-window.js";
import type { Operation, OperationState, OperationType, TimelineEvent } from "./model.js";

export interface Page {
  page: number;
  limit: number;
  /** Applied in order; the adapter appends id for a total order. */
  sort: { field: PageSortField; direction: "ASC" | "DESC" }[];
}

export interface Paged<T> {
  data: T[];
  total: number;
}

export interface OperationFilter {
  tenantId: string;
  customerUid?: string | undefined;
  /** Matches source or destination. */
  walletUid?: string | undefined;
  type?: OperationType | undefined;
  state?: OperationState | undefined;
  /** Inclusive ISO bounds on createdAt. */
  from?: string | undefined;
  to?: string | undefined;
  /** Only operations that moved funds or are in a `statementStates` state (statements). */
  movedOrFinal?: boolean | undefined;
}

export interface OperationRepository {
  insert(op: Operation): Promise<void>;
  /** Updates the mutable fields (state, provider, completedAt, fundsMovedAt, fees, updatedAt). */
  update(op: Operation): Promise<void>;
  get(tenantId: string, uid: string): Promise<Operation | null>;
  /**
   * The operation of this type holding this clientReference, if any. Backed by a UNIQUE
   * (tenant_id, type, client_reference) index: `insert` of a duplicate throws
   * `DomainError("Conflict")`, so a race between two requests creates one operation.
   */
  findByClientReference(
    tenantId: string,
    type: OperationType,
    clientReference: string,
  ): Promise<Operation | null>;
  appendTimeline(e: TimelineEvent): Promise<void>;
  /**
   * `insert`, then `appendTimeline` of each event (its first ones, at least one, numbered from 0):
   * Postgres runs it as one statement (one round trip), SQLite as those calls. Refuses a
   * duplicate like `insert`.
   */
  insertWithTimeline(op: Operation, timeline: readonly TimelineEvent[]): Promise<void>;
  timeline(operationUid: string): Promise<TimelineEvent[]>;
  /** Number of timeline events of the operation: the sequenceNo of the next one. */
  timelineLength(operationUid: string): Promise<number>;
  list(filter: OperationFilter, page: Page): Promise<Paged<Operation>>;
  /**
   * Sum of amountMinor of accepted movements touching the wallet since `sinceIso`, by direction
   * (for the daily and monthly limits): operations that moved funds at or after `sinceIso`
   * (`fundsMovedAt`, not `createdAt`: a top-up paid the day after its intent counts that day) and
   * did not fail. Intents that moved nothing yet do not count.
   */
  sumForWallet(
    walletUid: string,
    sinceIso: string,
    direction: "inbound" | "outbound" | "both",
  ): Promise<number>;
  /**
   * `findByClientReference(reference...)`, then, when no operation holds it, `sumForWallet(walletUid,
   * sinceIso, direction)`: null when the clientReference is taken (and nothing is summed), else the
   * sum. Postgres runs it as one statement (one round trip, one snapshot), SQLite and memory as those
   * two calls. For a movement that reads both under its wallet's lock (a credit).
   */
  sumForWalletUnlessReferenced(
    reference: { tenantId: string; type: OperationType; clientReference: string },
    walletUid: string,
    sinceIso: string,
    direction: "inbound" | "outbound" | "both",
  ): Promise<number | null>;
  /** Non-failed operations run under the mandate with createdAt >= sinceIso (frequency checks). */
  countMandateDebits(mandateUid: string, sinceIso: string): Promise<number>;
  /** Top-ups quoting this intentReference, newest first (any tenant: payments name no tenant). */
  findTopupsByIntentReference(intentReference: string): Promise<Operation[]>;
  /** Top-ups still pending_provider whose expiresAt <= asOfIso, oldest first, at most `limit`. */
  listExpiredTopups(asOfIso: string, limit: number): Promise<Operation[]>;
  /**
   * Payouts still `processing`, across tenants, by uid (so oldest first), after `afterUid` when
   * given, at most `limit`: read through an index of the payouts in flight only, whatever the
   * history holds.
   */
  listProcessingPayouts(limit: number, afterUid?: string | undefined): Promise<Operation[]>;
  /**
   * The rail codes that top-up intents still waiting for their payment (pending_provider) name,
   * across tenants, each once: a rail the config may not drop, since a payment reported on a rail
   * it lacks is 404.
   */
  railCodesAwaitingPayment(): Promise<string[]>;
  /** Unscoped lookup for the operator API (rail results). */
  getAny(uid: string): Promise<Operation | null>;
}
