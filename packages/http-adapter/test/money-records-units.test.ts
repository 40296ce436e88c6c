import { readFileSync } from "node:fs";
import type { Operation } from "@wallet/ledger-core";
import { boundInstantMs, buildReceipt } from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { tenantOpenApiDocument } from "../src/index.js";
import { hasher, sha256Hex } from "./support/fixture.js";
import { jcs, receiptHashOf } from "./support/jcs.js";

const vector = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/receipt-hash.json", import.meta.url), "utf8"),
) as {
  receipt: Record<string, unknown> & { references: { journalUids: string[] } };
  canonical: string;
  receiptHash: string;
};

describe("receipt hash (docs/vectors/receipt-hash.json)", () => {
  it("the test's own RFC 8785 canonicalization reproduces the vector's bytes and hash", () => {
    expect(jcs(vector.receipt)).toBe(vector.canonical);
    expect(sha256Hex(vector.canonical)).toBe(vector.receiptHash);
    expect(receiptHashOf({ ...vector.receipt, receiptHash: "ignored" })).toBe(vector.receiptHash);
  });

  it("the test's canonicalization follows RFC 8785 section 3.2.3 (sorting by UTF-16 code units) and its escapes", () => {
    const rfcSortingExample = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    expect(jcs(rfcSortingExample)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
    expect(jcs({ b: [1, -0, 1e21, 0.000001], a: 'q"\\\u0001\u001f/' })).toBe(
      '{"a":"q\\"\\\\\\u0001\\u001f/","b":[1,0,1e+21,0.000001]}',
    );
  });

  it("the core's receipt of the vector's operation has the vector's hash", () => {
    const r = vector.receipt as unknown as {
      operationUid: string;
      type: Operation["type"];
      occurredAt: string;
      amountMinor: number;
      feeMinor: number;
      taxMinor: number;
      currency: string;
      counterparty: { hint: string };
      references: { clientReference: string; providerReference: string; journalUids: string[] };
      feeBreakdown: { label: string; amountMinor: number }[];
      state: Operation["state"];
    };
    const op: Operation = {
      uid: r.operationUid,
      tenantId: "acme",
      type: r.type,
      state: r.state,
      amountMinor: r.amountMinor,
      feeMinor: r.feeMinor,
      taxMinor: r.taxMinor,
      currency: r.currency,
      clientReference: r.references.clientReference,
      customerUid: "cus_01",
      sourceWalletUid: "wal_01",
      destinationWalletUid: null,
      counterpartyHint: r.counterparty.hint,
      feeBreakdown: r.feeBreakdown,
      provider: {
        railCode: "sandbox_mobile",
        state: "confirmed",
        reference: r.references.providerReference,
        lastUpdatedAt: r.occurredAt,
      },
      mandateUid: null,
      intentReference: null,
      expiresAt: null,
      details: null,
      metadata: null,
      createdAt: "2026-11-22T09:59:00.000Z",
      completedAt: r.occurredAt,
      fundsMovedAt: "2026-11-22T09:59:00.000Z",
      updatedAt: r.occurredAt,
    };
    const receipt = buildReceipt({ hasher }, op, r.references.journalUids);
    expect(receipt.receiptHash).toBe(vector.receiptHash);
    expect(jcs({ ...receipt, receiptHash: undefined })).toBe(vector.canonical);
  });
});

describe("time filter bounds", () => {
  const at = (text: string, bound: "lower" | "upper") => {
    const ms = boundInstantMs(text, bound);
    return ms === null ? null : new Date(ms).toISOString();
  };

  it("rewrites a bound to the stored form (UTC, milliseconds), rounding toward the inside", () => {
    expect(at("2026-11-22T10:00:00.123Z", "lower")).toBe("2026-11-22T10:00:00.123Z");
    expect(at("2026-11-22T10:00:00Z", "upper")).toBe("2026-11-22T10:00:00.000Z");
    expect(at("2026-11-22T13:00:00.5+03:00", "lower")).toBe("2026-11-22T10:00:00.500Z");
    expect(at("2026-11-22T00:30:00.000-09:30", "upper")).toBe("2026-11-22T10:00:00.000Z");
    expect(at("2026-11-22T10:00:00.1231Z", "lower")).toBe("2026-11-22T10:00:00.124Z");
    expect(at("2026-11-22T10:00:00.1239Z", "upper")).toBe("2026-11-22T10:00:00.123Z");
    expect(at("2026-11-22T10:00:00.123000000Z", "lower")).toBe("2026-11-22T10:00:00.123Z");
    expect(at("0099-01-01T00:00:00Z", "lower")).toBe("0099-01-01T00:00:00.000Z");
    expect(at("2028-02-29T00:00:00Z", "lower")).toBe("2028-02-29T00:00:00.000Z");
  });

  it.each([
    "2026-02-29T00:00:00Z",
    "2026-02-31T10:00:00Z",
    "2026-13-01T10:00:00Z",
    "2026-11-22T24:00:00Z",
    "2026-11-22T10:60:00Z",
    "2026-11-22T10:00:60Z",
    "2026-11-22T10:00:00",
    "2026-11-22 10:00:00Z",
    "2026-11-22T10:00:00.Z",
    "2026-11-22T10:00:00+0300",
    "2026-11-22",
    "1795341600000",
    "0000-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
  ])("refuses %s", (text) => {
    expect(boundInstantMs(text, "lower")).toBeNull();
  });
});

describe("the money-records routes in the OpenAPI document", () => {
  type Op = {
    parameters: {
      name?: string;
      in?: string;
      required?: boolean;
      $ref?: string;
      schema?: Record<string, unknown>;
    }[];
    responses: Record<string, { headers?: Record<string, unknown> }>;
  };
  const doc = tenantOpenApiDocument() as { paths: Record<string, Record<string, Op>> };

  it("documents the list filters and pagination as query parameters", () => {
    const list = doc.paths["/operations"]?.get;
    expect(list?.parameters.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "customerUid",
      "walletUid",
      "type",
      "state",
      "from",
      "to",
      "page",
      "limit",
      "sortBy",
    ]);
    expect(list?.parameters.every((p) => p.required !== true)).toBe(true);
    const statement = doc.paths["/wallets/{uid}/transactions"]?.get;
    expect(statement?.parameters.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "type",
      "state",
      "from",
      "to",
      "includePending",
      "page",
      "limit",
      "sortBy",
    ]);
    expect(statement?.parameters.find((p) => p.name === "includePending")?.schema).toMatchObject({
      enum: ["true", "false"],
    });
    expect(doc.paths["/operations/{uid}/receipt"]?.get?.responses["404"]).toBeDefined();
  });

  it("POST /fees/quote takes no Idempotency-Key and answers without Idempotent-Replayed", () => {
    const quote = doc.paths["/fees/quote"]?.post;
    expect(quote).toBeDefined();
    expect(quote?.parameters.some((p) => p.$ref?.endsWith("/IdempotencyKey"))).toBe(false);
    expect(Object.keys(quote?.responses["200"]?.headers ?? {})).toEqual(["X-Request-Id"]);
    expect(
      doc.paths["/wallet-credits"]?.post?.parameters.some((p) => p.$ref?.endsWith("/IdempotencyKey")),
    ).toBe(true);
  });
});
