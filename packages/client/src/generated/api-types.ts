// Generated from the tenant API's OpenAPI document (`tenantOpenApiDocument()` of
// @wallet/http-adapter) by `pnpm gen:client`. Do not edit: a test regenerates it and fails on
// any difference. Response objects list what the service guarantees; v1 may add fields.

/** The API version the types were generated from. */
export const apiVersion = "v1";

/** The one error body of every failure. */
export interface ErrorBody {
  error: string;
  message: string;
  details?: {
    field: string;
    issue: string;
  }[];
}

/** Liveness; unauthenticated */
export interface GetHealthResponse {
  service: "wallet";
  status: "ok";
  timestamp: string;
}

/** This document (OpenAPI 3.1); any authenticated caller, no scope */
export interface GetOpenApiDocumentResponse {
  openapi: string;
  info: Record<string, unknown>;
  paths: Record<string, unknown>;
}

/** Body of POST /customers. */
export interface OnboardCustomerRequest {
  customerType: "person" | "organization";
  displayName: string;
  dateOfBirth?: string | undefined;
  regionCode?: string | undefined;
  preferredLocale?: string | undefined;
  identifiers: {
    class: "contact" | "identity_document";
    type: string;
    value: string;
    verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
    /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
    verifiedAt?: string | undefined;
    issuingCountry?: string | undefined;
    isPrimary: boolean;
  }[];
  kyc: {
    tierCode: string;
    verificationSource: string;
    sourceReference: string;
    /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
    evidence: Record<string, unknown>;
    riskRating: "low" | "medium" | "high" | "prohibited";
    reviewType: "onboarding";
  };
  agreements: {
    agreementType: "wallet_opening" | "privacy" | "fee_schedule" | "mandate" | "other";
    documentType: string;
    documentVersion: string;
    documentUri: string;
    documentHash: string;
    /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
    acceptedAt: string;
    acceptedChannel: string;
    /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
    evidence: Record<string, unknown>;
  }[];
  rulesProfileKey?: string | undefined;
  clientReference?: string | undefined;
  /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
  metadata?: Record<string, unknown> | undefined;
}

/** Onboard a customer and open the main wallet */
export interface OnboardCustomerResponse {
  uid: string;
  status: "pending" | "active" | "restricted" | "suspended" | "deceased" | "closed";
  customerType: "person" | "organization";
  displayName: string;
  walletUid: string;
  kycTierCode: string;
  rulesProfileKey: string;
  identifiers: {
    uid: string;
    class: "contact" | "identity_document";
    type: string;
    maskedValue: string;
    isPrimary: boolean;
    verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
  }[];
  clientReference: string | null;
  createdAt: string;
}

/** Customer summary; contact values in clear text with scope customers:pii */
export interface GetCustomerResponse {
  uid: string;
  status: "pending" | "active" | "restricted" | "suspended" | "deceased" | "closed";
  customerType: "person" | "organization";
  displayName: string;
  kyc: {
    tierCode: string;
    tierName: string;
    riskRating: ("low" | "medium" | "high" | "prohibited") | null;
    approvedAt: string | null;
    limits: {
      currency: string;
      maxBalanceMinor: number;
      maxSingleTxnMinor: number | null;
      aggregateDailyLimitMinor: number;
      monthlyOutLimitMinor: number | null;
    };
  } | null;
  wallets: {
    walletUid: string;
    purpose: "main" | "incentive" | "commission" | "savings" | "other";
    status: "pending" | "active" | "debit_blocked" | "credit_blocked" | "frozen" | "dormant" | "closed";
    currency: string;
    rulesProfileKey: string;
    balance: {
      currency: string;
      currentMinor: number;
      heldMinor: number;
      availableMinor: number;
      asOf: string;
    } | null;
  }[];
  identifiers: {
    uid: string;
    class: "contact" | "identity_document";
    type: string;
    maskedValue: string;
    isPrimary: boolean;
    verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
    /** Clear text only with scope customers:pii and class contact; every unmasked read is audited. */
    value: string | null;
  }[];
  agreements: {
    agreementType: "wallet_opening" | "privacy" | "fee_schedule" | "mandate" | "other";
    documentVersion: string;
    acceptedAt: string;
  }[];
  mandatesCount: number;
  clientReference: string | null;
  createdAt: string;
}

/** A customer's identifiers, values masked */
export interface ListIdentifiersResponse {
  data: {
    uid: string;
    class: "contact" | "identity_document";
    type: string;
    maskedValue: string;
    isPrimary: boolean;
    verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
    issuingCountry: string | null;
    verifiedAt: string | null;
    validFrom: string;
    validTo: string | null;
    /** True for a verified contact identifier inside its validity window. */
    payoutEligible: boolean;
  }[];
}

/** Body of POST /customers/{uid}/identifiers. */
export interface AddIdentifierRequest {
  class: "contact" | "identity_document";
  type: string;
  value: string;
  verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
  /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
  verifiedAt?: string | undefined;
  issuingCountry?: string | undefined;
  isPrimary?: boolean | undefined;
}

/** Attach an identifier to a customer; isPrimary true demotes the previous primary of its class */
export interface AddIdentifierResponse {
  uid: string;
  class: "contact" | "identity_document";
  type: string;
  maskedValue: string;
  isPrimary: boolean;
  verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
  issuingCountry: string | null;
  verifiedAt: string | null;
  validFrom: string;
  validTo: string | null;
  /** True for a verified contact identifier inside its validity window. */
  payoutEligible: boolean;
}

/** Body of PATCH /customers/{uid}/identifiers/{iid}. */
export interface UpdateIdentifierRequest {
  verificationStatus: "unverified" | "pending" | "verified" | "rejected" | "expired" | "revoked";
  /** Required key; an ISO-8601 timestamp, or null unless verificationStatus is verified. */
  verifiedAt: string | null;
  /** Retires the identifier at that instant. */
  validTo?: string | undefined;
}

/** Update an identifier's verification; validTo retires it */
export type UpdateIdentifierResponse = AddIdentifierResponse;

/** A customer's document acceptances */
export interface ListAgreementsResponse {
  data: {
    uid: string;
    agreementType: "wallet_opening" | "privacy" | "fee_schedule" | "mandate" | "other";
    documentType: string;
    documentVersion: string;
    documentUri: string;
    documentHash: string;
    status: "accepted" | "revoked" | "expired" | "superseded";
    acceptedAt: string;
    acceptedChannel: string;
    /** SHA-256 hex of the canonical (RFC 8785) evidence JSON. */
    evidenceHash: string;
  }[];
}

/** Body of POST /customers/{uid}/agreements. */
export interface AddAgreementRequest {
  agreementType: "wallet_opening" | "privacy" | "fee_schedule" | "mandate" | "other";
  documentType: string;
  documentVersion: string;
  documentUri: string;
  documentHash: string;
  /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
  acceptedAt: string;
  acceptedChannel: string;
  /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
  evidence: Record<string, unknown>;
}

/** Record a document acceptance; acceptedChannel portal is refused (422) */
export interface AddAgreementResponse {
  uid: string;
  agreementType: "wallet_opening" | "privacy" | "fee_schedule" | "mandate" | "other";
  documentType: string;
  documentVersion: string;
  documentUri: string;
  documentHash: string;
  status: "accepted" | "revoked" | "expired" | "superseded";
  acceptedAt: string;
  acceptedChannel: string;
  /** SHA-256 hex of the canonical (RFC 8785) evidence JSON. */
  evidenceHash: string;
}

/** Body of POST /customers/{uid}/kyc-versions. */
export interface SubmitKycVersionRequest {
  tierCode: string;
  verificationSource: string;
  sourceReference: string;
  /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
  evidence: Record<string, unknown>;
  riskRating: "low" | "medium" | "high" | "prohibited";
  reviewType: "upgrade" | "downgrade" | "periodic_review" | "event_driven_review";
}

/** Append a KYC version: approved at once for an upgrade or downgrade to tier_1 (risk not prohibited), else pending until the compliance review */
export interface SubmitKycVersionResponse {
  uid: string;
  customerUid: string;
  tierCode: string;
  reviewType: "onboarding" | "upgrade" | "downgrade" | "periodic_review" | "event_driven_review";
  state: "pending" | "approved" | "rejected" | "expired" | "superseded";
  verificationSource: string;
  sourceReference: string | null;
  riskRating: ("low" | "medium" | "high" | "prohibited") | null;
  /** SHA-256 hex of the canonical (RFC 8785) evidence JSON. */
  evidenceHash: string;
  /** Set when the version is approved. */
  effectiveFrom: string | null;
  createdAt: string;
}

/** Body of POST /wallet-credits. */
export interface CreditWalletRequest {
  walletUid: string;
  /** Integer count of minor units, 1 .. 2^53-1. */
  amountMinor: number;
  currency: string;
  clientReference: string;
  /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
  metadata?: Record<string, unknown> | undefined;
}

/** Credit a wallet from the tenant's prefunded balance */
export interface CreditWalletResponse {
  uid: string;
  type:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer";
  state:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed";
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  currency: string;
  clientReference: string | null;
  createdAt: string;
  completedAt: string | null;
  links: {
    self: string;
    receipt: string;
  };
  intentReference?: string;
  expiresAt?: string;
  railCode?: string;
  payerInstructions?: string | null;
}

/** Current, held and available balance of a wallet */
export interface GetWalletBalanceResponse {
  walletUid: string;
  currency: string;
  currentMinor: number;
  heldMinor: number;
  /** The only figure a debit is authorized against. */
  availableMinor: number;
  status: "pending" | "active" | "debit_blocked" | "credit_blocked" | "frozen" | "dormant" | "closed";
  asOf: string;
}

/** Query of GET /wallets/{uid}/transactions. */
export interface ListWalletTransactionsQuery {
  type?:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer"
    | undefined;
  state?:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed"
    | undefined;
  /** Inclusive lower bound on createdAt (ISO-8601 / RFC 3339, Z or ±HH:MM offset). */
  from?: string | undefined;
  /** Inclusive upper bound on createdAt (ISO-8601 / RFC 3339, Z or ±HH:MM offset). */
  to?: string | undefined;
  /** true also lists in-flight operations that have moved no funds yet. */
  includePending?: boolean | undefined;
  page?: number | string | undefined;
  limit?: number | string | undefined;
  /** Repeatable `field:ASC|DESC`; fields createdAt and id; default createdAt:DESC,id:DESC. */
  sortBy?: string | string[] | undefined;
}

/** The wallet's statement: operations that moved funds or reached a final state */
export interface ListWalletTransactionsResponse {
  data: {
    operationUid: string;
    amountMinor: number;
    feeMinor: number;
    taxMinor: number;
    /** Relative to the wallet in the path. */
    direction: "inbound" | "outbound";
    state:
      | "created"
      | "awaiting_authorization"
      | "authorized"
      | "held"
      | "processing"
      | "pending_provider"
      | "confirmed"
      | "failed"
      | "reversed"
      | "completed";
    clientReference: string | null;
    counterpartyHint: string | null;
    createdAt: string;
    completedAt: string | null;
    /** API-relative path of the receipt. */
    receipt: string;
    /** An addition to the spec's item: the part of feeMinor + taxMinor that went back to the wallet: a failed payout's refundable charges, all of them for a reversed operation, 0 otherwise. */
    chargesRefundedMinor: number;
  }[];
  meta: {
    total: number;
    page: number;
    limit: number;
    totalPages: number;
  };
}

/** Query of GET /operations. */
export interface ListOperationsQuery {
  customerUid?: string | undefined;
  /** Matches the source or the destination wallet. */
  walletUid?: string | undefined;
  type?:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer"
    | undefined;
  state?:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed"
    | undefined;
  /** Inclusive lower bound on createdAt (ISO-8601 / RFC 3339, Z or ±HH:MM offset). */
  from?: string | undefined;
  /** Inclusive upper bound on createdAt (ISO-8601 / RFC 3339, Z or ±HH:MM offset). */
  to?: string | undefined;
  page?: number | string | undefined;
  limit?: number | string | undefined;
  /** Repeatable `field:ASC|DESC`; fields createdAt and id; default createdAt:DESC,id:DESC. */
  sortBy?: string | string[] | undefined;
}

/** The tenant's operations in any state, newest first by default */
export interface ListOperationsResponse {
  data: {
    uid: string;
    type:
      | "wallet_credit"
      | "wallet_debit"
      | "payout_b2c"
      | "topup_c2b"
      | "hold"
      | "safeguarding_fund"
      | "client_funding_deposit"
      | "settlement_sweep"
      | "wallet_closure"
      | "closed_balance_refund"
      | "ledger_adjustment"
      | "wallet_transfer";
    state:
      | "created"
      | "awaiting_authorization"
      | "authorized"
      | "held"
      | "processing"
      | "pending_provider"
      | "confirmed"
      | "failed"
      | "reversed"
      | "completed";
    amountMinor: number;
    feeMinor: number;
    taxMinor: number;
    currency: string;
    clientReference: string | null;
    createdAt: string;
    completedAt: string | null;
    links: {
      self: string;
      receipt: string;
    };
    intentReference?: string;
    expiresAt?: string;
    railCode?: string;
    payerInstructions?: string | null;
  }[];
  meta: {
    total: number;
    page: number;
    limit: number;
    totalPages: number;
  };
}

/** An operation with its state timeline */
export interface GetOperationResponse {
  uid: string;
  type:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer";
  state:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed";
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  currency: string;
  clientReference: string | null;
  createdAt: string;
  completedAt: string | null;
  links: {
    self: string;
    receipt: string;
  };
  intentReference?: string;
  expiresAt?: string;
  railCode?: string;
  payerInstructions?: string | null;
  timeline: {
    sequenceNo: number;
    fromState:
      | (
          | "created"
          | "awaiting_authorization"
          | "authorized"
          | "held"
          | "processing"
          | "pending_provider"
          | "confirmed"
          | "failed"
          | "reversed"
          | "completed"
        )
      | null;
    toState:
      | "created"
      | "awaiting_authorization"
      | "authorized"
      | "held"
      | "processing"
      | "pending_provider"
      | "confirmed"
      | "failed"
      | "reversed"
      | "completed";
    occurredAt: string;
    actorType: ("api_client" | "admin" | "system" | "provider" | "customer") | null;
  }[];
  provider: {
    state:
      | "created"
      | "initiated"
      | "pending"
      | "confirmed"
      | "failed"
      | "reversed"
      | "uncertain"
      | "reconciled";
    reference: string | null;
    lastUpdatedAt: string;
  } | null;
}

/** The receipt of an operation whose money moved; 404 before that */
export interface GetReceiptResponse {
  operationUid: string;
  type:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer";
  occurredAt: string;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  /** amountMinor + feeMinor + taxMinor. */
  totalDebitedMinor: number;
  currency: string;
  counterparty: {
    hint: string | null;
  };
  references: {
    clientReference: string | null;
    providerReference: string | null;
    journalUids: string[];
  };
  feeBreakdown: {
    label: string;
    amountMinor: number;
  }[];
  state:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed";
  /** SHA-256 hex of the RFC 8785 canonical JSON of the receipt without receiptHash. */
  receiptHash: string;
}

/** Query of GET /mandates. */
export interface ListMandatesQuery {
  customerUid?: string | undefined;
  status?: "pending" | "active" | "suspended" | "revoked" | "expired" | "completed" | undefined;
  page?: number | string | undefined;
  limit?: number | string | undefined;
  /** Repeatable `field:ASC|DESC`; fields createdAt and id; default createdAt:DESC,id:DESC. */
  sortBy?: string | string[] | undefined;
}

/** The tenant's mandates, newest first; a customer outside the account matches nothing */
export interface ListMandatesResponse {
  data: {
    uid: string;
    customerUid: string;
    walletUid: string;
    beneficiaryEntityCode: string;
    clientReference: string | null;
    amountRule: "fixed" | "up_to" | "formula";
    fixedOrMaxAmountMinor: number | null;
    frequency: "one_time" | "daily" | "weekly" | "monthly" | "on_due_date" | "ad_hoc";
    currency: string;
    validFrom: string;
    validTo: string | null;
    status: "pending" | "active" | "suspended" | "revoked" | "expired" | "completed";
    agreementUid: string | null;
    replacesMandateUid: string | null;
    revokedAt: string | null;
    createdAt: string;
  }[];
  meta: {
    total: number;
    page: number;
    limit: number;
    totalPages: number;
  };
}

/** Body of POST /mandates. */
export interface CreateMandateRequest {
  customerUid: string;
  walletUid: string;
  beneficiaryEntityCode: string;
  clientReference: string;
  amountRule: "fixed" | "up_to" | "formula";
  /** Exact (fixed) or maximum (up_to) debit; required unless amountRule is formula. */
  fixedOrMaxAmountMinor?: number | null | undefined;
  /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
  formula?: Record<string, unknown> | undefined;
  frequency: "one_time" | "daily" | "weekly" | "monthly" | "on_due_date" | "ad_hoc";
  currency: string;
  /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
  validFrom: string;
  /** After validFrom; absent or null means open-ended. */
  validTo?: string | null | undefined;
  /** Advisory; the service never schedules or retries a debit. */
  retryPolicy?: Record<string, unknown> | undefined;
  agreement: {
    documentType: string;
    documentVersion: string;
    documentUri: string;
    documentHash: string;
    /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
    acceptedAt: string;
    acceptedChannel: string;
    /** Free-form JSON object; at most 16384 bytes serialized and 8 levels deep. */
    evidence: Record<string, unknown>;
  };
  assertion: {
    customerUid: string;
    identifierUid?: string | undefined;
    assuranceLevel: "single_factor" | "two_factor" | "step_up";
    factor1Type: string;
    /** Required unless assuranceLevel is single_factor. */
    factor2Type?: string | undefined;
    /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
    authenticatedAt: string;
    /** After authenticatedAt, at most 10 minutes after it, still in the future on arrival. */
    expiresAt: string;
    channelCode: string;
    deviceHash?: string | undefined;
    sourceReference: string;
    /** Required above the customer's two-factor threshold. */
    transactionBinding?:
      | {
          hash: string;
          algorithm: "sha256";
          /** The literal template customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference. */
          canonical: string;
        }
      | undefined;
  };
  replacesMandateUid?: string | null | undefined;
}

/** Register a mandate with its acceptance; active once validFrom has passed, else pending */
export interface CreateMandateResponse {
  uid: string;
  customerUid: string;
  walletUid: string;
  beneficiaryEntityCode: string;
  clientReference: string | null;
  amountRule: "fixed" | "up_to" | "formula";
  fixedOrMaxAmountMinor: number | null;
  frequency: "one_time" | "daily" | "weekly" | "monthly" | "on_due_date" | "ad_hoc";
  currency: string;
  validFrom: string;
  validTo: string | null;
  status: "pending" | "active" | "suspended" | "revoked" | "expired" | "completed";
  agreementUid: string | null;
  replacesMandateUid: string | null;
  revokedAt: string | null;
  createdAt: string;
}

/** A mandate */
export type GetMandateResponse = CreateMandateResponse;

/** Body of POST /mandates/{uid}/revoke. */
export interface RevokeMandateRequest {
  reason: string;
  assertion?:
    | {
        customerUid: string;
        identifierUid?: string | undefined;
        assuranceLevel: "single_factor" | "two_factor" | "step_up";
        factor1Type: string;
        /** Required unless assuranceLevel is single_factor. */
        factor2Type?: string | undefined;
        /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
        authenticatedAt: string;
        /** After authenticatedAt, at most 10 minutes after it, still in the future on arrival. */
        expiresAt: string;
        channelCode: string;
        deviceHash?: string | undefined;
        sourceReference: string;
        /** Required above the customer's two-factor threshold. */
        transactionBinding?:
          | {
              hash: string;
              algorithm: "sha256";
              /** The literal template customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference. */
              canonical: string;
            }
          | undefined;
      }
    | undefined;
}

/** Revoke a mandate (terminal); with an assertion the revocation is the customer's */
export type RevokeMandateResponse = CreateMandateResponse;

/** Body of POST /wallet-debits. */
export interface DebitWalletRequest {
  walletUid: string;
  mandateUid: string;
  /** Integer count of minor units, 1 .. 2^53-1. */
  amountMinor: number;
  currency: string;
  clientReference: string;
  assertion: {
    customerUid: string;
    identifierUid?: string | undefined;
    assuranceLevel: "single_factor" | "two_factor" | "step_up";
    factor1Type: string;
    /** Required unless assuranceLevel is single_factor. */
    factor2Type?: string | undefined;
    /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
    authenticatedAt: string;
    /** After authenticatedAt, at most 10 minutes after it, still in the future on arrival. */
    expiresAt: string;
    channelCode: string;
    deviceHash?: string | undefined;
    sourceReference: string;
    /** Required above the customer's two-factor threshold. */
    transactionBinding?:
      | {
          hash: string;
          algorithm: "sha256";
          /** The literal template customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference. */
          canonical: string;
        }
      | undefined;
  };
}

/** Debit a wallet under a mandate with the customer freshly authenticated; all or nothing */
export type DebitWalletResponse = CreditWalletResponse;

/** Body of POST /mandates/{uid}/debits. */
export interface DebitUnderMandateRequest {
  walletUid: string;
  /** Integer count of minor units, 1 .. 2^53-1. */
  amountMinor: number;
  currency: string;
  clientReference: string;
}

/** Debit the mandate's wallet on the standing mandate alone; one debit per period of its frequency */
export type DebitUnderMandateResponse = CreditWalletResponse;

/** Body of POST /fees/quote. */
export interface QuoteFeesRequest {
  operationType:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer";
  walletUid: string;
  /** Integer count of minor units, 1 .. 2^53-1. */
  amountMinor: number;
  currency: string;
  railCode?: string | null | undefined;
}

/** Quote the fees and tax of an operation; nothing is charged and no operation is created */
export interface QuoteFeesResponse {
  quoteId: string;
  operationType: "wallet_credit" | "wallet_debit" | "payout_b2c" | "topup_c2b";
  walletUid: string;
  currency: string;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  /** amount + fee + tax: what the wallet is debited. */
  totalMinor: number;
  breakdown: {
    label: string;
    type: "flat" | "percentage" | "vat";
    /** A component that rounds to zero is listed as 0. */
    amountMinor: number;
    refundable: boolean;
    appliesToLabel: string | null;
  }[];
  ruleVersion: {
    uid: string;
    ruleCode: string;
    versionNo: number;
  } | null;
  railCode: string | null;
  /** Five minutes after the quote; a payout may cite it until then. */
  validUntil: string;
}

/** Body of POST /payouts. */
export interface CreatePayoutRequest {
  walletUid: string;
  destinationIdentifierUid: string;
  /** Integer count of minor units, 1 .. 2^53-1. */
  amountMinor: number;
  currency: string;
  railCode: string;
  clientReference: string;
  assertion: {
    customerUid: string;
    identifierUid?: string | undefined;
    assuranceLevel: "single_factor" | "two_factor" | "step_up";
    factor1Type: string;
    /** Required unless assuranceLevel is single_factor. */
    factor2Type?: string | undefined;
    /** RFC 3339 with upper-case T and Z (or a ±HH:MM offset), at most 9 fraction digits, a real calendar time (no leap second); stored as UTC with milliseconds. */
    authenticatedAt: string;
    /** After authenticatedAt, at most 10 minutes after it, still in the future on arrival. */
    expiresAt: string;
    channelCode: string;
    deviceHash?: string | undefined;
    sourceReference: string;
    /** Required above the customer's two-factor threshold. */
    transactionBinding?:
      | {
          hash: string;
          algorithm: "sha256";
          /** The literal template customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference. */
          canonical: string;
        }
      | undefined;
  };
  feeQuoteId?: string | undefined;
}

/** Pay out to the customer's own verified contact identifier through a rail (phase 1) */
export type CreatePayoutResponse = CreditWalletResponse;

/** Body of POST /topup-intents. */
export interface CreateTopupIntentRequest {
  walletUid: string;
  /** Integer count of minor units, 1 .. 2^53-1. */
  amountMinor: number;
  currency: string;
  railCode: string;
  /** Lifetime of the intent in seconds; default the rail's configured lifetime, else 3600. */
  expiresInSeconds?: number | undefined;
  clientReference: string;
}

/** Issue a top-up intent: a 12-digit reference the payer quotes to the rail */
export interface CreateTopupIntentResponse {
  uid: string;
  type:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer";
  state:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed";
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  currency: string;
  clientReference: string | null;
  createdAt: string;
  completedAt: string | null;
  links: {
    self: string;
    receipt: string;
  };
  /** 12 digits, the last a Luhn check digit; the payer quotes it to the rail. */
  intentReference: string;
  expiresAt: string;
  railCode: string;
  payerInstructions: string | null;
}

/** A top-up intent: the operation detail with intentReference and expiresAt */
export interface GetTopupIntentResponse {
  uid: string;
  type:
    | "wallet_credit"
    | "wallet_debit"
    | "payout_b2c"
    | "topup_c2b"
    | "hold"
    | "safeguarding_fund"
    | "client_funding_deposit"
    | "settlement_sweep"
    | "wallet_closure"
    | "closed_balance_refund"
    | "ledger_adjustment"
    | "wallet_transfer";
  state:
    | "created"
    | "awaiting_authorization"
    | "authorized"
    | "held"
    | "processing"
    | "pending_provider"
    | "confirmed"
    | "failed"
    | "reversed"
    | "completed";
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  currency: string;
  clientReference: string | null;
  createdAt: string;
  completedAt: string | null;
  links: {
    self: string;
    receipt: string;
  };
  /** 12 digits, the last a Luhn check digit; the payer quotes it to the rail. */
  intentReference: string;
  expiresAt: string;
  railCode: string;
  payerInstructions: string | null;
  timeline: {
    sequenceNo: number;
    fromState:
      | (
          | "created"
          | "awaiting_authorization"
          | "authorized"
          | "held"
          | "processing"
          | "pending_provider"
          | "confirmed"
          | "failed"
          | "reversed"
          | "completed"
        )
      | null;
    toState:
      | "created"
      | "awaiting_authorization"
      | "authorized"
      | "held"
      | "processing"
      | "pending_provider"
      | "confirmed"
      | "failed"
      | "reversed"
      | "completed";
    occurredAt: string;
    actorType: ("api_client" | "admin" | "system" | "provider" | "customer") | null;
  }[];
  provider: {
    state:
      | "created"
      | "initiated"
      | "pending"
      | "confirmed"
      | "failed"
      | "reversed"
      | "uncertain"
      | "reconciled";
    reference: string | null;
    lastUpdatedAt: string;
  } | null;
}

/** Method, path (relative to /api/v1/tenant), success status and path parameters of each operation. */
export const tenantRoutes = {
  getHealth: { method: "GET", path: "/health", status: 200, signed: false, pathParams: [] },
  getOpenApiDocument: { method: "GET", path: "/openapi.json", status: 200, signed: true, pathParams: [] },
  onboardCustomer: { method: "POST", path: "/customers", status: 201, signed: true, pathParams: [] },
  getCustomer: { method: "GET", path: "/customers/{uid}", status: 200, signed: true, pathParams: ["uid"] },
  listIdentifiers: {
    method: "GET",
    path: "/customers/{uid}/identifiers",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
  addIdentifier: {
    method: "POST",
    path: "/customers/{uid}/identifiers",
    status: 201,
    signed: true,
    pathParams: ["uid"],
  },
  updateIdentifier: {
    method: "PATCH",
    path: "/customers/{uid}/identifiers/{iid}",
    status: 200,
    signed: true,
    pathParams: ["uid", "iid"],
  },
  listAgreements: {
    method: "GET",
    path: "/customers/{uid}/agreements",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
  addAgreement: {
    method: "POST",
    path: "/customers/{uid}/agreements",
    status: 201,
    signed: true,
    pathParams: ["uid"],
  },
  submitKycVersion: {
    method: "POST",
    path: "/customers/{uid}/kyc-versions",
    status: 201,
    signed: true,
    pathParams: ["uid"],
  },
  creditWallet: { method: "POST", path: "/wallet-credits", status: 201, signed: true, pathParams: [] },
  getWalletBalance: {
    method: "GET",
    path: "/wallets/{uid}/balance",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
  listWalletTransactions: {
    method: "GET",
    path: "/wallets/{uid}/transactions",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
  listOperations: { method: "GET", path: "/operations", status: 200, signed: true, pathParams: [] },
  getOperation: { method: "GET", path: "/operations/{uid}", status: 200, signed: true, pathParams: ["uid"] },
  getReceipt: {
    method: "GET",
    path: "/operations/{uid}/receipt",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
  listMandates: { method: "GET", path: "/mandates", status: 200, signed: true, pathParams: [] },
  createMandate: { method: "POST", path: "/mandates", status: 201, signed: true, pathParams: [] },
  getMandate: { method: "GET", path: "/mandates/{uid}", status: 200, signed: true, pathParams: ["uid"] },
  revokeMandate: {
    method: "POST",
    path: "/mandates/{uid}/revoke",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
  debitWallet: { method: "POST", path: "/wallet-debits", status: 201, signed: true, pathParams: [] },
  debitUnderMandate: {
    method: "POST",
    path: "/mandates/{uid}/debits",
    status: 201,
    signed: true,
    pathParams: ["uid"],
  },
  quoteFees: { method: "POST", path: "/fees/quote", status: 200, signed: true, pathParams: [] },
  createPayout: { method: "POST", path: "/payouts", status: 202, signed: true, pathParams: [] },
  createTopupIntent: { method: "POST", path: "/topup-intents", status: 201, signed: true, pathParams: [] },
  getTopupIntent: {
    method: "GET",
    path: "/topup-intents/{uid}",
    status: 200,
    signed: true,
    pathParams: ["uid"],
  },
} as const;

/** Every operation's body, query and response types, by operationId. */
export interface TenantOperationTypes {
  getHealth: { body: never; query: never; response: GetHealthResponse };
  getOpenApiDocument: { body: never; query: never; response: GetOpenApiDocumentResponse };
  onboardCustomer: { body: OnboardCustomerRequest; query: never; response: OnboardCustomerResponse };
  getCustomer: { body: never; query: never; response: GetCustomerResponse };
  listIdentifiers: { body: never; query: never; response: ListIdentifiersResponse };
  addIdentifier: { body: AddIdentifierRequest; query: never; response: AddIdentifierResponse };
  updateIdentifier: { body: UpdateIdentifierRequest; query: never; response: UpdateIdentifierResponse };
  listAgreements: { body: never; query: never; response: ListAgreementsResponse };
  addAgreement: { body: AddAgreementRequest; query: never; response: AddAgreementResponse };
  submitKycVersion: { body: SubmitKycVersionRequest; query: never; response: SubmitKycVersionResponse };
  creditWallet: { body: CreditWalletRequest; query: never; response: CreditWalletResponse };
  getWalletBalance: { body: never; query: never; response: GetWalletBalanceResponse };
  listWalletTransactions: {
    body: never;
    query: ListWalletTransactionsQuery;
    response: ListWalletTransactionsResponse;
  };
  listOperations: { body: never; query: ListOperationsQuery; response: ListOperationsResponse };
  getOperation: { body: never; query: never; response: GetOperationResponse };
  getReceipt: { body: never; query: never; response: GetReceiptResponse };
  listMandates: { body: never; query: ListMandatesQuery; response: ListMandatesResponse };
  createMandate: { body: CreateMandateRequest; query: never; response: CreateMandateResponse };
  getMandate: { body: never; query: never; response: GetMandateResponse };
  revokeMandate: { body: RevokeMandateRequest; query: never; response: RevokeMandateResponse };
  debitWallet: { body: DebitWalletRequest; query: never; response: DebitWalletResponse };
  debitUnderMandate: { body: DebitUnderMandateRequest; query: never; response: DebitUnderMandateResponse };
  quoteFees: { body: QuoteFeesRequest; query: never; response: QuoteFeesResponse };
  createPayout: { body: CreatePayoutRequest; query: never; response: CreatePayoutResponse };
  createTopupIntent: { body: CreateTopupIntentRequest; query: never; response: CreateTopupIntentResponse };
  getTopupIntent: { body: never; query: never; response: GetTopupIntentResponse };
}

export type TenantOperationId = keyof typeof tenantRoutes;
