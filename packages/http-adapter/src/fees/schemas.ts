import { operationTypes, quotableOperationTypes } from "@wallet/ledger-core";
import * as v from "valibot";
import {
  amountMinorSchema,
  currencySchema,
  instantViewSchema,
  railCodeSchema,
  uidSchema,
} from "../validation/common-schemas.js";

const minor = v.pipe(v.number(), v.safeInteger());

/**
 * POST /fees/quote body (spec, Endpoint rules). The whole operation type enum is accepted here;
 * only wallet_credit, wallet_debit, payout_b2c and topup_c2b can be quoted, the rest is 422 from
 * the core after the wallet lookup (a business refusal, not a malformed request).
 */
export const quoteFeesBodySchema = v.strictObject({
  operationType: v.picklist(operationTypes),
  walletUid: uidSchema,
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  railCode: v.optional(v.nullable(railCodeSchema)),
});

/** Spec, Fee quote. */
export const feeQuoteViewSchema = v.object({
  quoteId: v.string(),
  operationType: v.picklist(quotableOperationTypes),
  walletUid: v.string(),
  currency: v.string(),
  amountMinor: minor,
  feeMinor: minor,
  taxMinor: minor,
  totalMinor: v.pipe(minor, v.description("amount + fee + tax: what the wallet is debited.")),
  breakdown: v.array(
    v.object({
      label: v.string(),
      type: v.picklist(["flat", "percentage", "vat"]),
      amountMinor: v.pipe(minor, v.description("A component that rounds to zero is listed as 0.")),
      refundable: v.boolean(),
      appliesToLabel: v.nullable(v.string()),
    }),
  ),
  ruleVersion: v.nullable(v.object({ uid: v.string(), ruleCode: v.string(), versionNo: minor })),
  railCode: v.nullable(v.string()),
  validUntil: v.pipe(
    instantViewSchema,
    v.description("Five minutes after the quote; a payout may cite it until then."),
  ),
});
