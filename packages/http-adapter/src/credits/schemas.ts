import * as v from "valibot";
import {
  amountMinorSchema,
  clientReferenceSchema,
  currencySchema,
  freeFormObjectSchema,
  uidSchema,
} from "../validation/common-schemas.js";

/** POST /wallet-credits body (spec, Endpoint rules). */
export const creditWalletBodySchema = v.strictObject({
  walletUid: uidSchema,
  amountMinor: amountMinorSchema,
  currency: currencySchema,
  clientReference: clientReferenceSchema,
  metadata: v.optional(freeFormObjectSchema),
});
