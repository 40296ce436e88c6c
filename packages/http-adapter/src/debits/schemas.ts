import * as v from "valibot";
import { assertionSchema } from "../assertions/schemas.js";
import {
  amountMinorSchema,
  clientReferenceSchema,
  currencySchema,
  uidSchema,
} from "../validation/common-schemas.js";

/** POST /wallet-debits body: the assertion is required on every call, bound with target mandateUid. */
export const debitWalletBodySchema = v.strictObject({
  walletUid: uidSchema,
  mandateUid: uidSchema,
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  clientReference: clientReferenceSchema,
  assertion: assertionSchema,
});

/**
 * POST /mandates/{uid}/debits body. No assertion is accepted (spec): the schema has no such field,
 * so one sent is 400 "unknown field" like any other.
 */
export const debitUnderMandateBodySchema = v.strictObject({
  walletUid: uidSchema,
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  clientReference: clientReferenceSchema,
});
