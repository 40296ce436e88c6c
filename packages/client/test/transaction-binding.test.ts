import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { assertionTransactionBinding, BINDING_TEMPLATE, computeTransactionBinding } from "../src/index.js";
import { bindingVectors } from "./vectors.js";

describe.each(bindingVectors.cases)("binding vector: $route", (vector) => {
  it("reproduces the canonical string and hash", () => {
    const binding = computeTransactionBinding(vector);
    expect(binding).toEqual({ canonical: vector.canonical, hash: vector.hash, algorithm: "sha256" });
    expect(createHash("sha256").update(vector.canonical, "utf8").digest("hex")).toBe(binding.hash);
  });
});

describe("computeTransactionBinding", () => {
  const base = { customerUid: "cus_02", walletUid: "wal_02", amountMinor: 1, currency: "KES" };

  it("treats an absent target or clientReference as the empty string", () => {
    const payoutWithoutRef = bindingVectors.cases.find((c) => c.clientReference === "");
    expect(payoutWithoutRef).toBeDefined();
    const { target, canonical, hash } = payoutWithoutRef!;
    expect(computeTransactionBinding({ ...base, target })).toMatchObject({ canonical, hash });
    expect(computeTransactionBinding({ ...base, target, clientReference: null })).toMatchObject({
      canonical,
      hash,
    });
    expect(computeTransactionBinding(base).canonical).toBe("cus_02|wal_02|1|KES||");
  });

  it("hashes non-ASCII values as UTF-8 and keeps references verbatim", () => {
    const binding = computeTransactionBinding({ ...base, target: "idn_1", clientReference: " réf|1 " });
    expect(binding.canonical).toBe("cus_02|wal_02|1|KES|idn_1| réf|1 ");
    expect(binding.hash).toBe(
      createHash("sha256").update(Buffer.from(binding.canonical, "utf8")).digest("hex"),
    );
  });

  it("writes large amounts as plain integers and refuses anything that is not a positive safe integer", () => {
    expect(computeTransactionBinding({ ...base, amountMinor: 9007199254740991 }).canonical).toContain(
      "|9007199254740991|",
    );
    for (const amountMinor of [0, -1, 1.5, Number.NaN, 2 ** 53]) {
      expect(() => computeTransactionBinding({ ...base, amountMinor })).toThrow(/amountMinor/);
    }
  });

  it("gives the assertion object the spec's literal template, not the value string", () => {
    const vector = bindingVectors.cases[0]!;
    expect(BINDING_TEMPLATE).toBe(
      "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference",
    );
    expect(assertionTransactionBinding(vector)).toEqual({
      hash: vector.hash,
      algorithm: "sha256",
      canonical: BINDING_TEMPLATE,
    });
  });
});
