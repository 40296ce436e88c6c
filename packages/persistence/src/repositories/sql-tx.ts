import type { Tx } from "@wallet/ledger-core";
import { sqlAssertionRepository } from "./assertion-repository.js";
import { sqlAuditRepository } from "./audit-repository.js";
import {
  sqlAgreementRepository,
  sqlCustomerRepository,
  sqlIdentifierRepository,
  sqlKycVersionRepository,
} from "./customer-repository.js";
import { sqlDeliveryRepository } from "./delivery-repository.js";
import { sqlIdempotencyRepository } from "./idempotency-repository.js";
import { sqlLedgerRepository } from "./ledger-repository.js";
import { sqlMandateRepository } from "./mandate-repository.js";
import { sqlOperationRepository } from "./operation-repository.js";
import { sqlOutboxRepository } from "./outbox-repository.js";
import { sqlQuoteRepository, sqlRailPaymentRepository, sqlSuspenseRepository } from "./rail-repository.js";
import type { SqlContext } from "./sql-context.js";
import { sqlReplayGuardRepository, sqlTenantRepository } from "./tenant-repository.js";
import { sqlWalletRepository } from "./wallet-repository.js";

/** Every repository bound to one open transaction. */
export function createSqlTx(ctx: SqlContext): Tx {
  return {
    tenants: sqlTenantRepository(ctx),
    replayGuard: sqlReplayGuardRepository(ctx),
    customers: sqlCustomerRepository(ctx),
    identifiers: sqlIdentifierRepository(ctx),
    agreements: sqlAgreementRepository(ctx),
    kycVersions: sqlKycVersionRepository(ctx),
    wallets: sqlWalletRepository(ctx),
    ledger: sqlLedgerRepository(ctx),
    operations: sqlOperationRepository(ctx),
    outbox: sqlOutboxRepository(ctx),
    deliveries: sqlDeliveryRepository(ctx),
    idempotency: sqlIdempotencyRepository(ctx),
    audit: sqlAuditRepository(ctx),
    assertions: sqlAssertionRepository(ctx),
    mandates: sqlMandateRepository(ctx),
    quotes: sqlQuoteRepository(ctx),
    railPayments: sqlRailPaymentRepository(ctx),
    suspense: sqlSuspenseRepository(ctx),
  };
}
