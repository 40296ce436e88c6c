import { sha256Hex } from "../encoding/sha256-hex.js";

/**
 * The literal template the spec requires in `assertion.transactionBinding.canonical`. It names
 * destinationIdentifierUid even for debits, where the fifth value is the mandateUid.
 */
export const BINDING_TEMPLATE =
  "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference";

export interface TransactionBindingInput {
  customerUid: string;
  walletUid: string;
  /** Integer minor units, exactly as sent in the request. */
  amountMinor: number;
  currency: string;
  /** destinationIdentifierUid for a payout, mandateUid for a debit; absent otherwise. */
  target?: string | null | undefined;
  /** Verbatim; absent when the request has none. */
  clientReference?: string | null | undefined;
}

export interface TransactionBinding {
  /** The six values joined with "|" (what is hashed). */
  canonical: string;
  /** Lower-case hex SHA-256 of the UTF-8 canonical string. */
  hash: string;
  algorithm: "sha256";
}

/** The object to place in `assertion.transactionBinding`. */
export interface AssertionTransactionBinding {
  hash: string;
  algorithm: "sha256";
  canonical: typeof BINDING_TEMPLATE;
}

/**
 * Binds a customer's authentication to one money movement (spec, "Transaction binding rule").
 * The server recomputes the hash from the request it receives, so pass the same values you send.
 *
 * @example
 * computeTransactionBinding({ customerUid: "cus_01", walletUid: "wal_01", amountMinor: 600000,
 *   currency: "KES", target: "man_01", clientReference: "db-1" }).canonical
 * // "cus_01|wal_01|600000|KES|man_01|db-1"
 */
export function computeTransactionBinding(input: TransactionBindingInput): TransactionBinding {
  // String(n) of a safe integer never uses exponent notation, so it is "the integer as sent".
  if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor < 1) {
    throw new TypeError("computeTransactionBinding: amountMinor must be a safe integer of at least 1");
  }
  const values = [
    input.customerUid,
    input.walletUid,
    String(input.amountMinor),
    input.currency,
    input.target ?? "",
    input.clientReference ?? "",
  ];
  const canonical = values.join("|");
  return { canonical, hash: sha256Hex(canonical), algorithm: "sha256" };
}

/**
 * The `transactionBinding` object of an assertion: the computed hash with the spec's literal
 * template as `canonical` (not the value string, which the server derives itself).
 */
export function assertionTransactionBinding(input: TransactionBindingInput): AssertionTransactionBinding {
  const { hash, algorithm } = computeTransactionBinding(input);
  return { hash, algorithm, canonical: BINDING_TEMPLATE };
}
