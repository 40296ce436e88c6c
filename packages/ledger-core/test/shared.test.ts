import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addMinor,
  canonicalJson,
  codePointCount,
  createUlidGenerator,
  hasCodePointsBetween,
  idPrefixes,
  iso,
  percentOfRoundHalfUp,
  utcDayStart,
  utcIsoWeekStart,
  utcMonthStart,
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

describe("text length in code points", () => {
  it("counts what Array.from counts, lone surrogates included", () => {
    expect(codePointCount("")).toBe(0);
    expect(codePointCount("\u{1F600}a")).toBe(2);
    expect(codePointCount("\uD83D")).toBe(1);
    expect(codePointCount("\uDE00\uD83D")).toBe(2);
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (s) => {
        expect(codePointCount(s)).toBe(Array.from(s).length);
      }),
    );
  });

  it("bounds agree with the full count, fast path or not", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), fc.nat(20), fc.nat(20), (s, a, b) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        const n = Array.from(s).length;
        expect(hasCodePointsBetween(s, min, max)).toBe(n >= min && n <= max);
      }),
    );
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

  it("make the same ids as the plain ULID algorithm, for any clock and random bytes (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            step: fc.integer({ min: -3, max: 3 }),
            bytes: fc.uint8Array({ minLength: 16, maxLength: 16 }),
          }),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        fc.boolean(),
        (calls, saturated) => {
          const run = (make: typeof createUlidGenerator) => {
            let t = 1_763_812_800_000;
            let n = 0;
            const ids = make(
              { now: () => new Date(t) },
              // saturated: every random digit 31, so increments carry into the next millisecond
              { bytes: () => (saturated ? new Uint8Array(16).fill(31) : calls[n % calls.length]!.bytes) },
            );
            return calls.map((c) => {
              t += c.step;
              n++;
              return ids.next("event");
            });
          };
          expect(run(createUlidGenerator)).toEqual(run(plainUlid));
        },
      ),
    );
  });
});

/** The straightforward ULID generator the optimized one must agree with, id for id. */
const plainUlid: typeof createUlidGenerator = (clock, random) => {
  const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let lastTime = -1;
  let lastRandom: number[] = [];
  const encodeTime = (t: number) => {
    let out = "";
    for (let i = 0; i < 10; i++) {
      out = crockford[t % 32] + out;
      t = Math.floor(t / 32);
    }
    return out;
  };
  return {
    next(kind) {
      let time = clock.now().getTime();
      if (time <= lastTime) {
        time = lastTime;
        let i = lastRandom.length - 1;
        while (i >= 0 && lastRandom[i] === 31) {
          lastRandom[i] = 0;
          i--;
        }
        if (i < 0) {
          time = lastTime + 1;
          lastRandom = Array.from(random.bytes(16), (b) => b & 31);
        } else {
          lastRandom[i] = (lastRandom[i] ?? 0) + 1;
        }
      } else {
        lastRandom = Array.from(random.bytes(16), (b) => b & 31);
      }
      lastTime = time;
      return `${idPrefixes[kind]}_${encodeTime(time)}${lastRandom.map((d) => crockford[d]).join("")}`;
    },
  };
};

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

describe("timestamps", () => {
  /** Every time value a Date can hold, weighted towards the fast path's edges. */
  const times = fc.oneof(
    fc.integer({ min: -8.64e15, max: 8.64e15 }),
    fc.integer({ min: -2_000, max: 2_000 }),
    fc.integer({ min: 253_402_300_798_000, max: 253_402_300_802_000 }),
    fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
  );

  it("iso writes what toISOString writes, for any date (property)", () => {
    fc.assert(
      fc.property(times, (t) => {
        expect(iso(new Date(t))).toBe(new Date(t).toISOString());
      }),
      { numRuns: 2_000 },
    );
    // Consecutive milliseconds across second, day and year boundaries (its per-second text).
    for (let t = Date.UTC(2026, 11, 31, 23, 59, 59, 990); t < Date.UTC(2027, 0, 1, 0, 0, 0, 10); t++) {
      expect(iso(new Date(t))).toBe(new Date(t).toISOString());
    }
    expect(() => iso(new Date(Number.NaN))).toThrow(RangeError);
  });

  it("iso stays exact when calls move between a few seconds, as a request's do (property)", () => {
    // Instants drawn from six seconds in any order: more than it keeps, so kept seconds are hit,
    // missed and replaced in every combination.
    const seconds = [0, 1, 600, 86_400, 2_592_000, 31_536_000].map((s) => 1_790_000_000_000 + s * 1000);
    const instant = fc.tuple(fc.constantFrom(...seconds), fc.integer({ min: 0, max: 999 }));
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 40 }), (instants) => {
        for (const [second, ms] of instants) {
          expect(iso(new Date(second + ms))).toBe(new Date(second + ms).toISOString());
        }
      }),
      { numRuns: 500 },
    );
  });

  it("utcDayStart is midnight UTC of the same calendar day, for any date (property)", () => {
    fc.assert(
      fc.property(times, (t) => {
        const d = new Date(t);
        // Not Date.UTC, which reads a year 0-99 as 1900-1999.
        const calendar = new Date(0);
        calendar.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
        expect(utcDayStart(d).getTime()).toBe(calendar.getTime());
      }),
      { numRuns: 2_000 },
    );
    // The counterexample a CI run found for the old oracle (Date.UTC): 0099-12-31T23:59:59.999Z.
    expect(utcDayStart(new Date(-59_011_459_200_001)).toISOString()).toBe("0099-12-31T00:00:00.000Z");
    expect(Number.isNaN(utcDayStart(new Date(Number.NaN)).getTime())).toBe(true);
  });

  it("utcMonthStart is midnight UTC of the first of the same month, for any date (property)", () => {
    fc.assert(
      fc.property(times, (t) => {
        const d = new Date(t);
        const start = utcMonthStart(d);
        // The first day of the earliest month lies before the earliest date there is.
        if (Number.isNaN(start.getTime())) {
          expect(t).toBeLessThan(-8.64e15 + 31 * 86_400_000);
          return;
        }
        expect([start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()]).toEqual([
          d.getUTCFullYear(),
          d.getUTCMonth(),
          1,
        ]);
        expect([
          start.getUTCHours(),
          start.getUTCMinutes(),
          start.getUTCSeconds(),
          start.getUTCMilliseconds(),
        ]).toEqual([0, 0, 0, 0]);
      }),
      { numRuns: 2_000 },
    );
    expect(utcMonthStart(new Date(-59_011_459_200_001)).toISOString()).toBe("0099-12-01T00:00:00.000Z");
    expect(Number.isNaN(utcMonthStart(new Date(Number.NaN)).getTime())).toBe(true);
  });
});
