import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

const encoder = new TextEncoder();

/** UTF-8 bytes of a string; bytes pass through untouched. */
export const toBytes = (data: string | Uint8Array): Uint8Array =>
  typeof data === "string" ? encoder.encode(data) : data;

/**
 * Lower-case hex SHA-256 of `data` (strings are hashed as UTF-8).
 *
 * @example sha256Hex("") // "e3b0c442...b855", the body hash of every GET
 */
export const sha256Hex = (data: string | Uint8Array): string => bytesToHex(sha256(toBytes(data)));
