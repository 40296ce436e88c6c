import { actorTypes, operationStates, operationTypes, providerStates } from "@wallet/ledger-core";
import * as v from "valibot";
import { instantViewSchema, uidSchema } from "../validation/common-schemas.js";
import { pagedViewSchema, paginationEntries } from "../validation/pagination.js";
import { fromBoundSchema, toBoundSchema } from "../validation/time-bounds.js";

const minor = v.pipe(v.number(), v.safeInteger());

const operationEntries = {
  uid: v.string(),
  type: v.picklist(operationTypes),
  state: v.picklist(operationStates),
  amountMinor: minor,
  feeMinor: minor,
  taxMinor: minor,
  currency: v.string(),
  clientReference: v.nullable(v.string()),
  createdAt: instantViewSchema,
  completedAt: v.nullable(instantViewSchema),
  links: v.object({ self: v.string(), receipt: v.string() }),
  intentReference: v.optional(v.string()),
  expiresAt: v.optional(instantViewSchema),
  railCode: v.optional(v.string()),
  payerInstructions: v.optional(v.nullable(v.string())),
};

/** Spec, Operation: the projection of every money-moving write. */
export const operationViewSchema = v.object(operationEntries);

/** Spec, Operation detail (GET /operations/{uid}). */
export const operationDetailViewSchema = v.object({
  ...operationEntries,
  timeline: v.array(
    v.object({
      sequenceNo: minor,
      fromState: v.nullable(v.picklist(operationStates)),
      toState: v.picklist(operationStates),
      occurredAt: instantViewSchema,
      actorType: v.nullable(v.picklist(actorTypes)),
    }),
  ),
  provider: v.nullable(
    v.object({
      state: v.picklist(providerStates),
      reference: v.nullable(v.string()),
      lastUpdatedAt: instantViewSchema,
    }),
  ),
});

/** GET /operations query (spec, Endpoint rules): filters narrow within the tenant, then pagination. */
export const listOperationsQuerySchema = v.strictObject({
  customerUid: v.optional(uidSchema),
  walletUid: v.optional(v.pipe(uidSchema, v.description("Matches the source or the destination wallet."))),
  type: v.optional(v.picklist(operationTypes)),
  state: v.optional(v.picklist(operationStates)),
  from: v.optional(fromBoundSchema),
  to: v.optional(toBoundSchema),
  ...paginationEntries,
});

/** Spec, GET /operations: paginated Operations. */
export const operationPageSchema = pagedViewSchema(operationViewSchema);

/** Spec, Receipt. */
export const receiptViewSchema = v.object({
  operationUid: v.string(),
  type: v.picklist(operationTypes),
  occurredAt: instantViewSchema,
  amountMinor: minor,
  feeMinor: minor,
  taxMinor: minor,
  totalDebitedMinor: v.pipe(minor, v.description("amountMinor + feeMinor + taxMinor.")),
  currency: v.string(),
  counterparty: v.object({ hint: v.nullable(v.string()) }),
  references: v.object({
    clientReference: v.nullable(v.string()),
    providerReference: v.nullable(v.string()),
    journalUids: v.array(v.string()),
  }),
  feeBreakdown: v.array(v.object({ label: v.string(), amountMinor: minor })),
  state: v.picklist(operationStates),
  receiptHash: v.pipe(
    v.string(),
    v.description("SHA-256 hex of the RFC 8785 canonical JSON of the receipt without receiptHash."),
  ),
});
