import type { AssertionRepository } from "../assertions/model.js";
import type { AuditRepository } from "../audit/model.js";
import type {
  AgreementRepository,
  CustomerRepository,
  IdentifierRepository,
  KycVersionRepository,
} from "../customers/repository.js";
import type { DeliveryRepository } from "../events/delivery.js";
import type { OutboxRepository } from "../events/model.js";
import type { QuoteRepository } from "../fees/quote.js";
import type { IdempotencyRepository } from "../idempotency/model.js";
import type { LedgerRepository } from "../ledger/repository.js";
import type { MandateRepository } from "../mandates/model.js";
import type { OperationRepository } from "../operations/repository.js";
import type { RailPaymentRepository, SuspenseRepository } from "../rails/model.js";
import type { ReplayGuardRepository, TenantRepository } from "../tenants/repository.js";
import type { WalletRepository } from "../wallets/repository.js";

/** Every repository, bound to one transaction. */
export interface Tx {
  tenants: TenantRepository;
  replayGuard: ReplayGuardRepository;
  customers: CustomerRepository;
  identifiers: IdentifierRepository;
  agreements: AgreementRepository;
  kycVersions: KycVersionRepository;
  wallets: WalletRepository;
  ledger: LedgerRepository;
  operations: OperationRepository;
  outbox: OutboxRepository;
  /** Delivery state of the outbox events (webhook dispatcher, operator log). */
  deliveries: DeliveryRepository;
  idempotency: IdempotencyRepository;
  audit: AuditRepository;
  assertions: AssertionRepository;
  mandates: MandateRepository;
  quotes: QuoteRepository;
  railPayments: RailPaymentRepository;
  suspense: SuspenseRepository;
}

/**
 * The one way to touch the store. `run` executes `work` in a single database transaction: all of
 * it commits or none of it does. Use cases take a `Tx` and never open transactions themselves, so
 * an adapter may coalesce several `run` calls into one commit (group commit, each in a savepoint).
 * `work` may be called more than once (an adapter may undo a try and run it again, e.g. after a
 * lock it chose not to wait for), so it keeps every effect inside the transaction: no I/O, no
 * change to state outside it that a second try would repeat.
 *
 * @example
 *   const op = await uow.run((tx) => creditWallet(deps, ctx, tx, input));
 */
export interface UnitOfWork {
  run<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `work` that needs no transaction around it: a single statement, or statements each of
   * which stands on its own (reads that need no common snapshot, writes that need not commit
   * together, no lock held from one to the next). An adapter may run each statement by itself
   * (Postgres autocommit: one round trip instead of three) or fall back to `run`. What `work`
   * wrote is committed when it resolves; if it throws, what its earlier statements wrote may stay.
   *
   * @example
   *   const firstSeen = await uow.autocommit((tx) => tx.replayGuard.remember(sig, now, until));
   */
  autocommit<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Runs `work` that reads (a list's page and its count, a statement) on one snapshot of the
   * store: every read sees the same committed state, whatever commits meanwhile. It may still
   * append (an audit row) but changes no row another transaction may change. Optional: where
   * `run` already gives one snapshot (one connection, as on SQLite and in memory), `run` serves.
   *
   * @example
   *   const first: Page = { page: 1, limit: 20, sort: [{ field: "createdAt", direction: "DESC" }] };
   *   const listed = await (uow.snapshot ?? uow.run)((tx) => listOperations(deps, ctx, tx, query, first));
   */
  snapshot?<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
}
