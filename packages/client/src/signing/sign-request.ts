import { bytesToBase64 } from "../encoding/base64.js";
import { sha256Hex, toBytes } from "../encoding/sha256-hex.js";
import { ed, parsePrivateKeyPem } from "../keys/ed25519-keys.js";
import { canonicalRequestString } from "./canonical-request-string.js";

export interface SignRequestInput {
  method: string;
  /** Path and query exactly as they go on the wire, e.g. `/api/v1/tenant/operations?page=2`. */
  pathAndQuery: string;
  /** The exact string or bytes that will be sent; "" (or omitted) for no body. */
  body?: string | Uint8Array | undefined;
  apiKey: string;
  kid: string;
  /** The Ed25519 private key: a PKCS#8 PEM or the raw 32-byte seed. */
  privateKey: string | Uint8Array;
  /** Epoch seconds; defaults to now. A string is used verbatim. */
  timestamp?: number | string | undefined;
}

/**
 * The four authentication headers of the spec. A type alias, not an interface, so it can be passed
 * as fetch's `headers` (a `Record<string, string>`) as it is.
 */
export type SignedRequestHeaders = {
  "X-Api-Key": string;
  "X-Key-Id": string;
  "X-Timestamp": string;
  "X-Signature": string;
};

/** Current Unix time in whole seconds (the spec's X-Timestamp is seconds, not milliseconds). */
export const epochSeconds = (nowMs: number = Date.now()): number => Math.floor(nowMs / 1000);

function timestampHeader(timestamp: number | string | undefined): string {
  if (timestamp === undefined) return String(epochSeconds());
  if (typeof timestamp === "number") {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new TypeError("signRequest: timestamp must be a non-negative integer count of seconds");
    }
    return String(timestamp);
  }
  if (!/^\d+$/.test(timestamp)) throw new TypeError("signRequest: timestamp must be decimal epoch seconds");
  return timestamp;
}

/** The 32-byte seed from either accepted private key form. */
export function privateKeySeed(privateKey: string | Uint8Array): Uint8Array {
  if (typeof privateKey === "string") return parsePrivateKeyPem(privateKey);
  if (!(privateKey instanceof Uint8Array) || privateKey.length !== 32) {
    throw new TypeError("signRequest: privateKey must be a PKCS#8 PEM or a 32-byte Ed25519 seed");
  }
  return privateKey;
}

/**
 * Signs one request and returns its authentication headers. Sign immediately before sending, and
 * sign again (fresh timestamp) for every retry: the server refuses a signature it has already seen.
 *
 * @example
 * const body = JSON.stringify({ walletUid, amountMinor: 500, currency: "KES", clientReference: "cr-1" });
 * const headers = signRequest({ method: "POST", pathAndQuery: "/api/v1/tenant/wallet-credits", body,
 *   apiKey, kid: "k1", privateKey: pem });
 */
export function signRequest(input: SignRequestInput): SignedRequestHeaders {
  const timestamp = timestampHeader(input.timestamp);
  const canonical = canonicalRequestString({
    method: input.method,
    pathAndQuery: input.pathAndQuery,
    timestamp,
    bodySha256: sha256Hex(input.body ?? ""),
  });
  const signature = ed.sign(toBytes(canonical), privateKeySeed(input.privateKey));
  return {
    "X-Api-Key": input.apiKey,
    "X-Key-Id": input.kid,
    "X-Timestamp": timestamp,
    "X-Signature": bytesToBase64(signature),
  };
}
