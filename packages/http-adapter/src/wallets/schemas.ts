import { operationStates, operationTypes, walletStatuses } from "@wallet/ledger-core";
import * as v from "valibot";
import { instantViewSchema } from "../validation/common-schemas.js";
import { pagedViewSchema, paginationEntries } from "../validation/pagination.js";
import { fromBoundSchema, toBoundSchema } from "../validation/time-bounds.js";

const minor = v.pipe(v.number(), v.safeInteger());

/** Spec, Wallet balance. */
export const walletBalanceSchema = v.object({
  walletUid: v.string(),
  currency: v.string(),
  currentMinor: minor,
  heldMinor: minor,
  availableMinor: v.pipe(minor, v.description("The only figure a debit is authorized against.")),
  status: v.picklist(walletStatuses),
  asOf: v.string(),
});

/** GET /wallets/{uid}/transactions query (spec, Endpoint rules). */
export const walletTransactionsQuerySchema = v.strictObject({
  type: v.optional(v.picklist(operationTypes)),
  state: v.optional(v.picklist(operationStates)),
  from: v.optional(fromBoundSchema),
  to: v.optional(toBoundSchema),
  includePending: v.optional(
    v.pipe(
      v.picklist(["true", "false"]),
      v.transform((s) => s === "true"),
      v.description("true also lists in-flight operations that have moved no funds yet."),
    ),
  ),
  ...paginationEntries,
});

/** Spec, Wallet statement item. */
export const statementItemSchema = v.object({
  operationUid: v.string(),
  amountMinor: minor,
  feeMinor: minor,
  taxMinor: minor,
  direction: v.pipe(
    v.picklist(["inbound", "outbound"]),
    v.description("Relative to the wallet in the path."),
  ),
  state: v.picklist(operationStates),
  clientReference: v.nullable(v.string()),
  counterpartyHint: v.nullable(v.string()),
  createdAt: instantViewSchema,
  completedAt: v.nullable(instantViewSchema),
  receipt: v.pipe(v.string(), v.description("API-relative path of the receipt.")),
  chargesRefundedMinor: v.pipe(
    minor,
    v.description(
      "An addition to the spec's item: the part of feeMinor + taxMinor that went back to the wallet: a failed payout's refundable charges, all of them for a reversed operation, 0 otherwise.",
    ),
  ),
});

/** Spec, GET /wallets/{uid}/transactions: the paginated statement. */
export const statementPageSchema = pagedViewSchema(statementItemSchema);
