import fc from "fast-check";
import { describe, expect, it } from "vitest";
// The service's own canonicalizer, from its sources: the SDK depends on nothing of the server's,
// so this test is what holds the two copies to the same bytes.
import { canonicalJson as serviceCanonicalJson } from "../../ledger-core/src/shared/jcs.js";
import { canonicalJson, type GetReceiptResponse, receiptHash, verifyReceipt } from "../src/index.js";
import { receiptVector } from "./vectors.js";

describe("receiptHash and verifyReceipt", () => {
  const receipt = receiptVector.receipt as Omit<GetReceiptResponse, "receiptHash">;

  it("reproduce the receipt-hash vector", () => {
    expect(canonicalJson(receipt)).toBe(receiptVector.canonical);
    expect(receiptHash(receipt)).toBe(receiptVector.receiptHash);
    expect(verifyReceipt({ ...receipt, receiptHash: receiptVector.receiptHash })).toBe(true);
  });

  it("refuse a receipt with any field altered, or with no hash", () => {
    const served = { ...receipt, receiptHash: receiptVector.receiptHash } as GetReceiptResponse;
    expect(verifyReceipt({ ...served, amountMinor: served.amountMinor + 1 })).toBe(false);
    expect(verifyReceipt({ ...served, references: { ...served.references, journalUids: ["jrn_01"] } })).toBe(
      false,
    );
    expect(verifyReceipt({ ...served, receiptHash: served.receiptHash.toUpperCase() })).toBe(false);
    expect(verifyReceipt({ ...served, receiptHash: undefined as never })).toBe(false);
  });

  it("hash the same whatever the order of the fields", () => {
    const reversed = Object.fromEntries(Object.entries(receipt).reverse()) as typeof receipt;
    expect(receiptHash(reversed)).toBe(receiptVector.receiptHash);
  });
});

describe("canonicalJson", () => {
  it("writes the bytes the service writes, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(serviceCanonicalJson(value));
      }),
      { numRuns: 500 },
    );
  });

  it("reads back as the same value, keys sorted by UTF-16 code units", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
    expect(canonicalJson({ "\u{1F600}": 1, "\uFFFF": 2, b: [1.5, -0, 1e21], a: "é" })).toBe(
      '{"a":"é","b":[1.5,0,1e+21],"\u{1F600}":1,"\uFFFF":2}',
    );
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(TypeError);
  });
});
