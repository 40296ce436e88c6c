import { readFileSync } from "node:fs";

// The shared byte-level vectors of the spec (docs/vectors), read from the repository so the SDK and
// the server are held to the same bytes.
const read = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../../../docs/vectors/${name}`, import.meta.url), "utf8")) as T;

export interface SigningVectors {
  privateKeyPkcs8Pem: string;
  publicKeySpkiPem: string;
  emptyBodySha256: string;
  cases: Array<{
    method: string;
    pathAndQuery: string;
    xTimestamp: string;
    body: string;
    bodySha256: string;
    canonical: string;
    signature: string;
  }>;
}

export interface BindingVectors {
  cases: Array<{
    route: string;
    customerUid: string;
    walletUid: string;
    amountMinor: number;
    currency: string;
    target: string;
    clientReference: string;
    canonical: string;
    hash: string;
  }>;
}

export const signingVectors = read<SigningVectors>("request-signing.json");
export const bindingVectors = read<BindingVectors>("transaction-binding.json");

export interface ReceiptVector {
  receipt: Record<string, unknown>;
  canonical: string;
  receiptHash: string;
}

export const receiptVector = read<ReceiptVector>("receipt-hash.json");
