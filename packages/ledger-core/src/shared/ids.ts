import type { Clock, RandomSource } from "./ports.js";

/** Resource id prefixes (DESIGN.md section 3). */
export const idPrefixes = {
  customer: "cus",
  wallet: "wal",
  identifier: "idn",
  agreement: "agr",
  kycVersion: "kyc",
  mandate: "man",
  operation: "op",
  journal: "jrn",
  event: "evt",
  quote: "quo",
  suspense: "sus",
} as const;

export type IdKind = keyof typeof idPrefixes;

/** Produces prefixed, time-ordered ids: `op_01JD...`. */
export interface IdGenerator {
  next(kind: IdKind): string;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * ULID bodies (48-bit millisecond time + 80 random bits, Crockford base32), monotonic within a
 * millisecond so ids sort in creation order even when the clock stalls.
 */
export function createUlidGenerator(clock: Clock, random: RandomSource): IdGenerator {
  let lastTime = -1;
  let lastRandom: number[] = [];
  const encodeTime = (t: number) => {
    let out = "";
    for (let i = 0; i < 10; i++) {
      out = CROCKFORD[t % 32] + out;
      t = Math.floor(t / 32);
    }
    return out;
  };
  return {
    next(kind) {
      let time = clock.now().getTime();
      if (time <= lastTime) {
        time = lastTime;
        // increment the 80-bit random part (16 base32 digits) by one
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
      return `${idPrefixes[kind]}_${encodeTime(time)}${lastRandom.map((d) => CROCKFORD[d]).join("")}`;
    },
  };
}
