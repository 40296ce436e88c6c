import * as core from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { railRoutes } from "../src/operator/rail-routes.js";
import { parseRequestBody, parseRequestText, requestBodySchemas } from "../src/request-bodies.js";
import { tenantRouteGroups } from "../src/tenant-api.js";
import { parseJsonBody } from "../src/validation/validate.js";
import { refusalOf } from "./support/refusal.js";

describe("parseRequestBody: the API's request validation, for callers of the core in-process", () => {
  it("names a core function for each body, and each is the body of a tenant route or a rail's operator route", () => {
    const routeBodies = new Set(
      [...Object.values(tenantRouteGroups()).flat(), ...railRoutes].map((r) => r.body),
    );
    for (const [name, schema] of Object.entries(requestBodySchemas)) {
      expect([name, typeof (core as Record<string, unknown>)[name]]).toEqual([name, "function"]);
      expect([name, routeBodies.has(schema)]).toEqual([name, true]);
    }
  });

  it("checks a provider's callbacks as the operator API does: the core's input once the rail's code is added", () => {
    const result = { operationUid: "op_1", outcome: "confirmed", providerReference: "prov-1" };
    expect(parseRequestBody("reportPayoutResult", result)).toEqual(result);
    expect(
      refusalOf(() => parseRequestBody("reportPayoutResult", { ...result, outcome: "paid" })).details,
    ).toEqual([{ field: "outcome", issue: 'expected ("confirmed" | "failed" | "uncertain")' }]);
    const payment = {
      reference: "123456789012",
      amountMinor: 1_500,
      currency: "KES",
      providerReference: "bank-1",
    };
    expect(parseRequestBody("receiveRailPayment", payment)).toEqual(payment);
    expect(
      refusalOf(() => parseRequestBody("receiveRailPayment", { ...payment, amountMinor: 1.5 })).code,
    ).toBe("InvalidRequest");
    expect(
      refusalOf(() => parseRequestBody("receiveRailPayment", { ...payment, railCode: "x" })).details,
    ).toEqual([{ field: "railCode", issue: "unknown field" }]);
  });

  it("returns the body as the core takes it, timestamps rewritten in UTC with milliseconds", () => {
    const credit = { walletUid: "wal_1", amountMinor: 100, currency: "KES", clientReference: "r-1" };
    expect(parseRequestBody("creditWallet", credit)).toEqual(credit);
    expect(
      parseRequestBody("updateIdentifier", {
        verificationStatus: "verified",
        verifiedAt: "2026-11-24T13:00:00+03:00",
      }),
    ).toEqual({ verificationStatus: "verified", verifiedAt: "2026-11-24T10:00:00.000Z" });
  });

  it("refuses what the API answers 400, as a DomainError with the same details", () => {
    const e = refusalOf(() =>
      parseRequestBody("creditWallet", {
        walletUid: "wal_1",
        amountMinor: "100",
        currency: "kes",
        clientReference: null,
        extra: 1,
      }),
    );
    expect(e.code).toBe("InvalidRequest");
    expect(e.details?.map((d) => d.field).sort()).toEqual([
      "amountMinor",
      "clientReference",
      "currency",
      "extra",
    ]);
    const onboarding = refusalOf(() =>
      parseRequestBody("onboardCustomer", { customerType: "alien", displayName: "", identifiers: [] }),
    );
    expect(onboarding.details?.map((d) => d.field)).toEqual(
      expect.arrayContaining(["customerType", "displayName", "kyc", "agreements"]),
    );
    expect(refusalOf(() => parseRequestBody("revokeMandate", [])).message).toBe(
      "The request body must be a JSON object",
    );
    expect(
      refusalOf(() => parseRequestBody("creditWallet", { clientReference: "a\u0000b" })).details,
    ).toEqual([
      { field: "clientReference", issue: "must be text without NUL characters or unpaired surrogates" },
    ]);
  });

  it("parseRequestText reads JSON text as the API reads a body: what JSON.parse hides is refused too", () => {
    const credit = '{"walletUid":"wal_1","amountMinor":100,"currency":"KES","clientReference":"r-1"}';
    expect(parseRequestText("creditWallet", credit)).toEqual(JSON.parse(credit));
    // Each of these parses, and parseRequestBody(JSON.parse(text)) would take it.
    const hidden = [
      [
        '{"walletUid":"wal_1","amountMinor":1.0000000000000001,"currency":"KES","clientReference":"r"}',
        "amountMinor",
      ],
      ['{"walletUid":"wal_1","amountMinor":2e5,"currency":"KES","clientReference":"r"}', "amountMinor"],
      [
        '{"walletUid":"wal_1","amountMinor":100,"currency":"KES","clientReference":"r1","clientReference":"r2"}',
        "clientReference",
      ],
    ] as const;
    for (const [text, field] of hidden) {
      expect(() => parseRequestBody("creditWallet", JSON.parse(text))).not.toThrow();
      const e = refusalOf(() => parseRequestText("creditWallet", text));
      expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", field]);
    }
    expect(refusalOf(() => parseRequestText("creditWallet", "{not json")).message).toBe(
      "The request body is not valid JSON",
    );
  });

  it("parseRequestText takes a leading byte order mark as the API does (its UTF-8 decoding drops one), and no second", () => {
    const credit = '{"walletUid":"wal_1","amountMinor":100,"currency":"KES","clientReference":"r-1"}';
    expect(parseRequestText("creditWallet", `\uFEFF${credit}`)).toEqual(JSON.parse(credit));
    expect(parseJsonBody(new TextEncoder().encode(`\uFEFF${credit}`))).toEqual(JSON.parse(credit));
    expect(refusalOf(() => parseRequestText("creditWallet", `\uFEFF\uFEFF${credit}`)).message).toBe(
      "The request body is not valid JSON",
    );
    expect(() => parseJsonBody(new TextEncoder().encode(`\uFEFF\uFEFF${credit}`))).toThrow(
      "The request body is not valid JSON",
    );
  });
});
