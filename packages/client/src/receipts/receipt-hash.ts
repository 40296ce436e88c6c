import { canonicalJson } from "../encoding/canonical-json.js";
import { sha256Hex } from "../encoding/sha256-hex.js";
import type { GetReceiptResponse } from "../generated/api-types.js";

/**
 * The `receiptHash` the service gives a receipt: lower-case hex SHA-256 of the RFC 8785 canonical
 * JSON of every other field. Compute it over a receipt you stored to show it is the one served.
 *
 * @example receiptHash(await client.operations.receipt(uid)) // "6e4dbff7..."
 */
export function receiptHash(receipt: Omit<GetReceiptResponse, "receiptHash"> | GetReceiptResponse): string {
  const { receiptHash: _given, ...rest } = receipt as GetReceiptResponse;
  return sha256Hex(canonicalJson(rest));
}

/** True when `receipt.receiptHash` is the hash of the receipt's other fields (nothing was altered). */
export function verifyReceipt(receipt: GetReceiptResponse): boolean {
  return typeof receipt.receiptHash === "string" && receipt.receiptHash === receiptHash(receipt);
}
