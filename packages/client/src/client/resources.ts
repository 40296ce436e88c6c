// Friendly names for the generated response types (src/generated/api-types.ts), which follow the
// operations of the OpenAPI document. Every shape comes from there, so none can drift by hand.
import type {
  AddAgreementResponse,
  AddIdentifierResponse,
  CreateMandateResponse,
  CreateTopupIntentResponse,
  CreditWalletResponse,
  GetCustomerResponse,
  GetHealthResponse,
  GetOperationResponse,
  GetReceiptResponse,
  GetTopupIntentResponse,
  GetWalletBalanceResponse,
  ListOperationsResponse,
  ListWalletTransactionsResponse,
  OnboardCustomerResponse,
  QuoteFeesResponse,
  SubmitKycVersionResponse,
} from "../generated/api-types.js";

/** Request bodies passed to `request` untyped. */
export type JsonBody = Record<string, unknown>;

/** Response of POST /customers. */
export type Customer = OnboardCustomerResponse;
/** Response of GET /customers/{uid}. */
export type CustomerSummary = GetCustomerResponse;
export type IdentifierSummary = OnboardCustomerResponse["identifiers"][number];
/** An identifier in detail (POST/PATCH/GET .../identifiers). */
export type Identifier = AddIdentifierResponse;
export type Agreement = AddAgreementResponse;
export type KycVersion = SubmitKycVersionResponse;
export type WalletBalance = GetWalletBalanceResponse;
/** One row of a wallet statement (GET /wallets/{uid}/transactions). */
export type StatementItem = ListWalletTransactionsResponse["data"][number];
/** Returned by every write that moves money. */
export type Operation = CreditWalletResponse;
/** One row of GET /operations. */
export type OperationListItem = ListOperationsResponse["data"][number];
/** Response of GET /operations/{uid}. */
export type OperationDetail = GetOperationResponse;
export type OperationTimelineEntry = GetOperationResponse["timeline"][number];
export type Receipt = GetReceiptResponse;
export type Mandate = CreateMandateResponse;
export type FeeQuote = QuoteFeesResponse;
/** Response of POST /topup-intents: the operation with intentReference, expiresAt and payer instructions. */
export type TopupIntent = CreateTopupIntentResponse;
export type TopupIntentDetail = GetTopupIntentResponse;
/** Response of GET /health (unauthenticated). */
export type Health = GetHealthResponse;
