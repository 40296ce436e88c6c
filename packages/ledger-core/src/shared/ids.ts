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

/** `cus_`, `wal_`, ...: what each id starts with. */
const idHeads = Object.fromEntries(
  Object.entries(idPrefixes).map(([kind, prefix]) => [kind, `${prefix}_`]),
) as Record<IdKind, string>;

/** Produces prefixed, time-ordered ids: `op_01JD...`. */
export interface IdGenerator {
  next(kind: IdKind): string;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const encodeTime = (t: number) => {
  let out = "";
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
};

/**
 * ULID bodies (48-bit millisecond time + 80 random bits, Crockford base32), monotonic within a
 * millisecond so ids sort in creation order even when the clock stalls.
 */
export function createUlidGenerator(clock: Clock, random: RandomSource): IdGenerator {
  let lastTime = -1;
  /** The 80-bit random part as 16 base32 digits; incremented by one within a millisecond. */
  const digits = new Uint8Array(16);
  /** The encoded time and first 15 random digits, kept until they change (rarely, in one ms). */
  let head = "";
  const encodeHead = () => {
    let out = encodeTime(lastTime);
    for (let i = 0; i < 15; i++) out += CROCKFORD[digits[i]!];
    head = out;
  };
  const reseed = (time: number) => {
    const bytes = random.bytes(16);
    for (let i = 0; i < 16; i++) digits[i] = (bytes[i] ?? 0) & 31;
    lastTime = time;
    encodeHead();
  };
  return {
    next(kind) {
      const time = clock.now().getTime();
      if (time > lastTime || head === "") {
        reseed(Math.max(time, lastTime + 1));
      } else {
        // the clock did not move: increment the random part by one
        let i = 15;
        while (i >= 0 && digits[i] === 31) {
          digits[i] = 0;
          i--;
        }
        if (i < 0) {
          reseed(lastTime + 1);
        } else {
          digits[i]!++;
          if (i < 15) encodeHead();
        }
      }
      // Joined rather than concatenated: one flat string, not a tree of the pieces that V8 would
      // flatten again each time the id is hashed, compared or serialized.
      return [idHeads[kind], head, CROCKFORD[digits[15]!]].join("");
    },
  };
}
