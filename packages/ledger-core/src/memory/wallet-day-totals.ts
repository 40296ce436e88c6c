import type { Operation } from "../operations/model.js";
import type { UndoLog } from "./undo-log.js";

export type SumDirection = "inbound" | "outbound" | "both";

/** What the counted operations of one wallet that moved funds on one UTC day add up to, by direction. */
interface DayTotal {
  readonly inbound: number;
  readonly outbound: number;
  /** Each operation once, also one whose source and destination are both the wallet. */
  readonly both: number;
  /** False once any sum along the way left the safe integers: the totals then cannot answer. */
  readonly exact: boolean;
}

const newDays = () => new Map<string, DayTotal>();
const zero: DayTotal = { inbound: 0, outbound: 0, both: 0, exact: true };

/** The timestamp format the core writes (`iso()`); only these map onto a day by their prefix. */
const canonicalInstant = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const canonicalMidnight = /^\d{4}-\d\d-\d\dT00:00:00\.000Z$/;

const isDigit = (c: number) => c >= 48 && c <= 57;
/** Whether characters 20-23 of a 24-character instant are three digits and `Z`. */
const isMillisZ = (t: string) =>
  isDigit(t.charCodeAt(20)) &&
  isDigit(t.charCodeAt(21)) &&
  isDigit(t.charCodeAt(22)) &&
  t.charCodeAt(23) === 90;

/** Counted by `sumForWallet`: accepted movements, i.e. funds moved and not failed. */
export const countsTowardLimits = (op: Operation): boolean =>
  op.state !== "failed" && op.fundsMovedAt !== null;

/**
 * Running totals behind the memory store's `sumForWallet`: per wallet and UTC day of `fundsMovedAt`,
 * the inbound, outbound and either-way sums of its counted operations, kept in step with every
 * insert and update under the store's undo log (a rolled-back unit of work leaves its totals as
 * they were). They answer for a `sinceIso` at a UTC midnight (the daily and monthly limits ask
 * nothing else); `sum` returns null when they cannot answer exactly, and the caller scans.
 */
export class WalletDayTotals {
  private readonly days = new Map<string, Map<string, DayTotal>>();
  /** Counted operations per wallet whose fundsMovedAt has no canonical day: that wallet is scanned. */
  private readonly irregular = new Map<string, number>();
  /** The last `sinceIso` found to be a canonical midnight, and its day (`YYYY-MM-DD`). */
  private lastMidnight = "";
  private lastMidnightDay = "";
  /**
   * The second (`YYYY-MM-DDTHH:mm:ss.`) of the last canonical instant counted, and its day: an
   * instant of the same second is canonical when its last four characters are `dddZ`, and its day
   * is that one (the same string, hashed once), without the regular expression and a new slice.
   */
  private lastSecond = "";
  private lastSecondDay = "";

  constructor(private readonly log: UndoLog) {}

  /** Takes in a newly stored operation. */
  insert(op: Operation): void {
    this.apply(op, 1);
  }

  /** Moves the totals from the stored `before` to the stored `after` of the same operation. */
  replace(before: Operation, after: Operation): void {
    const was = countsTowardLimits(before);
    if (
      was === countsTowardLimits(after) &&
      (!was ||
        (before.amountMinor === after.amountMinor &&
          before.fundsMovedAt === after.fundsMovedAt &&
          before.sourceWalletUid === after.sourceWalletUid &&
          before.destinationWalletUid === after.destinationWalletUid))
    ) {
      return;
    }
    this.apply(before, -1);
    this.apply(after, 1);
  }

  /** The port's `sumForWallet` from the totals, or null when only a scan can answer exactly. */
  sum(walletUid: string, sinceIso: string, direction: SumDirection): number | null {
    if (!this.isMidnight(sinceIso) || (this.irregular.get(walletUid) ?? 0) > 0) return null;
    const days = this.days.get(walletUid);
    if (days === undefined) return 0;
    const since = this.lastMidnightDay;
    let total = 0;
    for (const [day, t] of days) {
      if (day < since) continue;
      if (!t.exact) return null;
      total += t[direction];
      if (!Number.isSafeInteger(total)) return null;
    }
    return total;
  }

  /** Whether `sinceIso` is a canonical UTC midnight; the last one seen is remembered (a day's). */
  private isMidnight(sinceIso: string): boolean {
    if (sinceIso === this.lastMidnight) return true;
    if (!canonicalMidnight.test(sinceIso)) return false;
    this.lastMidnight = sinceIso;
    this.lastMidnightDay = sinceIso.slice(0, 10);
    return true;
  }

  private apply(op: Operation, sign: 1 | -1): void {
    if (!countsTowardLimits(op)) return;
    const { sourceWalletUid: source, destinationWalletUid: destination } = op;
    if (source !== null) this.add(source, op, sign);
    if (destination !== null && destination !== source) this.add(destination, op, sign);
  }

  /** The UTC day of a canonical instant (see `canonicalInstant`), else null. */
  private dayOf(instant: string): string | null {
    if (
      instant.length === 24 &&
      this.lastSecond !== "" &&
      instant.startsWith(this.lastSecond) &&
      isMillisZ(instant)
    ) {
      return this.lastSecondDay;
    }
    if (!canonicalInstant.test(instant)) return null;
    this.lastSecond = instant.slice(0, 20);
    this.lastSecondDay = instant.slice(0, 10);
    return this.lastSecondDay;
  }

  /** `op` counts (so its fundsMovedAt is set). */
  private add(walletUid: string, op: Operation, sign: 1 | -1): void {
    const day = this.dayOf(op.fundsMovedAt as string);
    if (day === null) {
      this.log.set(this.irregular, walletUid, (this.irregular.get(walletUid) ?? 0) + sign);
      return;
    }
    const days = this.log.ensure(this.days, walletUid, newDays);
    const t = days.get(day) ?? zero;
    const amount = sign * op.amountMinor;
    const inbound = op.destinationWalletUid === walletUid ? t.inbound + amount : t.inbound;
    const outbound = op.sourceWalletUid === walletUid ? t.outbound + amount : t.outbound;
    const both = t.both + amount;
    const exact =
      t.exact &&
      Number.isSafeInteger(inbound) &&
      Number.isSafeInteger(outbound) &&
      Number.isSafeInteger(both);
    this.log.set(days, day, { inbound, outbound, both, exact });
  }
}
