import { assuranceLevels } from "@wallet/ledger-core";
import * as v from "valibot";
import {
  boundedString,
  isoTimestampSchema,
  sha256HexSchema,
  uidSchema,
} from "../validation/common-schemas.js";

/**
 * `assertion.transactionBinding` (spec, Customer authentication assertion). Only the shape is
 * checked here: the core refuses a canonical other than the literal template, an upper-case hash or
 * a hash that does not match the request with 422 AssertionNotBoundToTransaction.
 */
export const transactionBindingSchema = v.strictObject({
  hash: sha256HexSchema,
  algorithm: v.picklist(["sha256"]),
  canonical: v.pipe(
    boundedString(1, 200),
    v.description(
      "The literal template customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference.",
    ),
  ),
});

/**
 * The customer authentication assertion, one schema for every route that takes one (mandates,
 * revocations, debits, payouts). Lengths are the spec's Limits; the rules that need the store or
 * the clock (customer, identifier ownership, lifetime, second factor, binding, sourceReference
 * registry) are the core's `validateAssertion`.
 */
export const assertionSchema = v.strictObject({
  customerUid: uidSchema,
  identifierUid: v.optional(uidSchema),
  assuranceLevel: v.picklist(assuranceLevels),
  factor1Type: boundedString(1, 32),
  factor2Type: v.pipe(
    v.optional(boundedString(1, 32)),
    v.description("Required unless assuranceLevel is single_factor."),
  ),
  authenticatedAt: isoTimestampSchema,
  expiresAt: v.pipe(
    isoTimestampSchema,
    v.description("After authenticatedAt, at most 10 minutes after it, still in the future on arrival."),
  ),
  channelCode: boundedString(1, 40),
  deviceHash: v.optional(sha256HexSchema),
  sourceReference: boundedString(1, 160),
  transactionBinding: v.pipe(
    v.optional(transactionBindingSchema),
    v.description("Required above the customer's two-factor threshold."),
  ),
});
