import * as v from "valibot";
import { assertionSchema } from "../assertions/schemas.js";
import {
  amountMinorSchema,
  boundedString,
  clientReferenceSchema,
  currencySchema,
  railCodeSchema,
  uidSchema,
} from "../validation/common-schemas.js";

/** POST /payouts body (spec, Endpoint rules). */
export const createPayoutBodySchema = v.strictObject({
  walletUid: uidSchema,
  destinationIdentifierUid: uidSchema,
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  railCode: railCodeSchema,
  clientReference: clientReferenceSchema,
  assertion: assertionSchema,
  /** Spec, Limits: at most 64 characters. A stale or foreign quote is ignored, never refused. */
  feeQuoteId: v.optional(boundedString(1, 64)),
});
