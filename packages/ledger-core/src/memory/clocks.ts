import type { Clock } from "../shared/ports.js";

/** A clock that stands still until told to move: deterministic tests. */
export function createFixedClock(start: Date | string) {
  let now = new Date(start);
  return {
    now: () => new Date(now),
    set: (d: Date | string) => {
      now = new Date(d);
    },
    advanceMs: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  } satisfies Clock & Record<string, unknown>;
}

/** A clock that moves `stepMs` on every read, so successive records get distinct timestamps. */
export function createSteppingClock(start: Date | string, stepMs = 1): Clock {
  let t = new Date(start).getTime();
  return {
    now: () => {
      const d = new Date(t);
      t += stepMs;
      return d;
    },
  };
}
