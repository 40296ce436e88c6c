import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addMinor,
  canonicalJson,
  createUlidGenerator,
  percentOfRoundHalfUp,
  utcIsoWeekStart,
} from "../src/index.js";
import { nodeHasher } from "./support/core.js";

const vector = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../docs/vectors/${name}`, import.meta.url), "utf8"));

describe("money", () => {
  it("rounds half up in exact integer math", () => {
    expect(percentOfRoundHalfUp(1_000_000, 150)).toBe(15_000);
    expect(percentOfRoundHalfUp(2_500, 1_600)).toBe(400);
    expect(percentOfRoundHalfUp(5, 1_000)).toBe(1); // 0.5 -> 1
    expect(percentOfRoundHalfUp(4, 1_000)).toBe(0); // 0.4 -> 0
    expect(percentOfRoundHalfUp(Number.MAX_SAFE_INTEGER, 10_000)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("matches the exact rational result for every amount and rate", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: 10_000 }),
        (amount, bps) => {
          const exact = BigInt(amount) * BigInt(bps);
          const got = BigInt(percentOfRoundHalfUp(amount, bps));
          // got is the nearest integer to exact/10000, halves rounded up
          expect(got * 10_000n - exact <= 5_000n).toBe(true);
          expect(exact - got * 10_000n < 5_000n).toBe(true);
        },
      ),
    );
  });

  it("refuses to overflow", () => {
    expect(() => addMinor(Number.MAX_SAFE_INTEGER, 1)).toThrow(/overflow/);
    expect(addMinor(1, 2, 3)).toBe(6);
  });
});

describe("canonical JSON (RFC 8785)", () => {
  it("reproduces the receipt-hash vector byte for byte", () => {
    const v = vector("receipt-hash.json");
    expect(canonicalJson(v.receipt)).toBe(v.canonical);
    expect(nodeHasher.sha256Hex(canonicalJson(v.receipt))).toBe(v.receiptHash);
  });

  it("sorts keys by UTF-16 code units and escapes like JSON", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "x\u0001"], "€": 0, é: 1 })).toBe(
      '{"a":[true,null,"x\\u0001"],"b":1,"é":1,"€":0}',
    );
  });
});

describe("ids", () => {
  it("are prefixed and sort in creation order even within one millisecond", () => {
    let t = 1_763_812_800_000;
    const ids = createUlidGenerator({ now: () => new Date(t) }, { bytes: (n) => new Uint8Array(n).fill(31) });
    const made: string[] = [];
    for (let i = 0; i < 50; i++) {
      if (i % 10 === 0) t += 1;
      made.push(ids.next("operation"));
    }
    expect(made.every((id) => /^op_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });
});

describe("UTC periods", () => {
  it("start ISO weeks on Monday", () => {
    expect(utcIsoWeekStart(new Date("2026-11-22T23:59:59.999Z")).toISOString()).toBe(
      "2026-11-16T00:00:00.000Z",
    ); // Sunday
    expect(utcIsoWeekStart(new Date("2026-11-23T00:00:00.000Z")).toISOString()).toBe(
      "2026-11-23T00:00:00.000Z",
    ); // Monday
  });
});
