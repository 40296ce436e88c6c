import type * as v from "valibot";
import { creditWalletBodySchema } from "./credits/schemas.js";
import { agreementInputSchema, onboardCustomerBodySchema } from "./customers/schemas.js";
import { debitUnderMandateBodySchema, debitWalletBodySchema } from "./debits/schemas.js";
import { asDomainRefusal } from "./errors/http-error.js";
import { quoteFeesBodySchema } from "./fees/schemas.js";
import { addIdentifierBodySchema, updateIdentifierBodySchema } from "./identifiers/schemas.js";
import { submitKycVersionBodySchema } from "./kyc-versions/schemas.js";
import { createMandateBodySchema, revokeMandateBodySchema } from "./mandates/schemas.js";
import { payoutResultBodySchema, railPaymentBodySchema } from "./operator/rail-schemas.js";
import { createPayoutBodySchema } from "./payouts/schemas.js";
import { createTopupIntentBodySchema } from "./topups/schemas.js";
import { parseJsonText, validateBody } from "./validation/validate.js";

/**
 * The API's request bodies, by the core function each is the input of: every tenant write, and
 * the two calls a payment provider's integration makes (add `railCode` to those). The routes pass
 * what these schemas output to the core unchanged, so a service calling the core in-process with
 * input it does not trust (JSON from a queue or a form, a provider's webhook) validates it as the
 * API would.
 */
export const requestBodySchemas = {
  onboardCustomer: onboardCustomerBodySchema,
  addIdentifier: addIdentifierBodySchema,
  updateIdentifier: updateIdentifierBodySchema,
  addAgreement: agreementInputSchema,
  submitKycVersion: submitKycVersionBodySchema,
  creditWallet: creditWalletBodySchema,
  debitWallet: debitWalletBodySchema,
  debitUnderMandate: debitUnderMandateBodySchema,
  createMandate: createMandateBodySchema,
  revokeMandate: revokeMandateBodySchema,
  createPayout: createPayoutBodySchema,
  createTopupIntent: createTopupIntentBodySchema,
  quoteFees: quoteFeesBodySchema,
  // A provider's callbacks, as the operator API takes them (POST /admin/rails/{railCode}/...):
  // the core's input is the body plus the rail's code, which the path carries there.
  reportPayoutResult: payoutResultBodySchema,
  receiveRailPayment: railPaymentBodySchema,
} as const;

export type RequestBodyOf<K extends keyof typeof requestBodySchemas> = v.InferOutput<
  (typeof requestBodySchemas)[K]
>;

/**
 * `text`, JSON as it arrived (from a queue, a provider's webhook), read and checked exactly as the
 * API reads and checks the request body of `operation`: besides `parseRequestBody`'s checks, a
 * key twice in one object or an amount written with a fraction or an exponent (`1.0000000000000001`
 * would parse to 1) is refused, which a value already parsed can no longer show.
 *
 * @example
 *   const input = parseRequestText("creditWallet", message);
 *   await store.uow.run((tx) => creditWallet(core, ctx, tx, input));
 */
export function parseRequestText<K extends keyof typeof requestBodySchemas>(
  operation: K,
  text: string,
): RequestBodyOf<K> {
  return asDomainRefusal(
    () =>
      validateBody(
        requestBodySchemas[operation],
        // The API decodes a body's bytes as UTF-8, which drops one leading byte order mark.
        parseJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text),
      ) as RequestBodyOf<K>,
  );
}

/**
 * `body`, a value already parsed, checked as the API checks the request body of `operation`, and
 * rewritten as it rewrites it (timestamps in UTC with milliseconds): the input of the core
 * function of that name. What the API answers 400 is a `DomainError` `InvalidRequest` here, with
 * the same message and details. For JSON text, `parseRequestText` also refuses what `JSON.parse`
 * hides (a key twice, an amount with a fraction or an exponent).
 *
 * @example
 *   const input = parseRequestBody("creditWallet", formValues);
 *   await store.uow.run((tx) => creditWallet(core, ctx, tx, input));
 */
export function parseRequestBody<K extends keyof typeof requestBodySchemas>(
  operation: K,
  body: unknown,
): RequestBodyOf<K> {
  return asDomainRefusal(() => validateBody(requestBodySchemas[operation], body) as RequestBodyOf<K>);
}
