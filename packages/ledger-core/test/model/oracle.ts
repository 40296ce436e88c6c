import type { ErrorCode } from "../../src/index.js";
import {
  BENEFICIARY,
  CURRENCY,
  INITIAL_PREFUND_MINOR,
  modelCatalog,
  RAIL,
  START,
  TENANT_ID,
} from "./world.js";

/**
 * The reference model: what a careful reader of DESIGN.md expects the ledger to hold, written
 * without the code under test. Balances are a Map folded from the postings the model expects;
 * the rules (statuses, KYC limits, fees, periods) are restated here in their simplest form.
 */

/** The statuses the model sets, plus the two that end a customer's life with the tenant (never set). */
export type CustomerStatus = "active" | "restricted" | "suspended" | "closed" | "deceased";
export type WalletStatus = "active" | "debit_blocked" | "credit_blocked" | "frozen" | "dormant" | "closed";
export type Direction = "inbound" | "outbound";

export interface MCustomer {
  uid: string;
  walletUid: string;
  /** The verified msisdn: the customer's payout destination. */
  msisdnUid: string;
  status: CustomerStatus;
  walletStatus: WalletStatus;
  tier: string;
  /** The KYC version waiting for the operator, if any. */
  pendingKyc: { uid: string; tier: string } | null;
}

export type OpType = "wallet_credit" | "wallet_debit" | "payout_b2c" | "topup_c2b";

export interface MOp {
  uid: string;
  type: OpType;
  state: string;
  amount: number;
  walletUid: string;
  createdAtMs: number;
  /** fundsMovedAt, or null: the op counts towards the KYC limits of that day unless it failed. */
  movedAtMs: number | null;
  /** null for a top-up the operator applied from suspense (it is not an intent). */
  clientReference: string | null;
  mandateUid: string | null;
  /** Payouts: the refundable charges (to fees, to tax) returned when the payout fails. */
  refund?: { fees: number; tax: number };
  providerState?: string;
  /** Top-ups. */
  intent?: { reference: string; expiresAtMs: number; charges: Charges };
  /** Every transfer posted for the operation, in order: what a reversal gives back, net. */
  moves: [string, string, number][];
}

export type Frequency = "daily" | "weekly" | "monthly" | "one_time" | "ad_hoc" | "on_due_date";

export interface MMandate {
  uid: string;
  customerUid: string;
  walletUid: string;
  amountRule: "fixed" | "up_to";
  amount: number;
  frequency: Frequency;
  status: "active" | "pending" | "suspended" | "revoked" | "completed";
  validFromMs: number;
  validToMs: number | null;
}

/**
 * A payment in suspense, as the operator sees it: what came in, and what it is tied to. An item
 * `holds` its intent when it is that intent's own payment, refused for the wallet (the intent is
 * `held` with it); while the intent stays `held`, resolving the item settles the intent.
 */
export interface MSuspense {
  uid: string;
  amount: number;
  currency: string;
  status: "open" | "refunded" | "applied";
  /** The intent whose reference the payment quoted (null for a reference that names none). */
  intentUid: string | null;
  /** That intent's tenant: an item may only be applied to a wallet of the same tenant. */
  tenantId: string | null;
  holds: boolean;
  /** The top-up an apply completed or created: its reversal reopens the item. */
  appliedOpUid: string | null;
}

/** A write sent under an Idempotency-Key, kept so a later command can replay it byte for byte. */
export interface SentRequest {
  route: string;
  key: string;
  body: string;
  response: { status: number; body: string };
}

export interface Model {
  nowMs: number;
  /** Balances by `${accountKey}/${currency}`. */
  balances: Map<string, number>;
  journals: number;
  customers: MCustomer[];
  ops: Map<string, MOp>;
  mandates: MMandate[];
  sent: SentRequest[];
  /** Rail payments by providerReference: what was reported, and the answer the first report got. */
  payments: Map<string, { reference: string; amountMinor: number; currency: string; answer: string }>;
  /** Suspense items in the order the payments opened them. */
  suspense: MSuspense[];
  seq: number;
}

export const accounts = {
  deposits: `tenant:${TENANT_ID}:deposits`,
  prefund: `tenant:${TENANT_ID}:prefund`,
  fees: `fees:${TENANT_ID}`,
  tax: `tax:${TENANT_ID}`,
  beneficiary: `beneficiary:${BENEFICIARY}`,
  clearing: `rail:${RAIL}:clearing`,
  suspense: `suspense:${RAIL}`,
  wallet: (uid: string) => `wallet:${uid}`,
  hold: (uid: string) => `wallet:${uid}:hold`,
};

export function initialModel(): Model {
  const m: Model = {
    nowMs: Date.parse(START),
    balances: new Map(),
    journals: 0,
    customers: [],
    ops: new Map(),
    mandates: [],
    sent: [],
    payments: new Map(),
    suspense: [],
    seq: 0,
  };
  post(m, [[accounts.deposits, accounts.prefund, INITIAL_PREFUND_MINOR]]);
  return m;
}

export const nextSeq = (m: Model): number => ++m.seq;

export const balanceOf = (m: Model, key: string, currency = CURRENCY): number =>
  m.balances.get(`${key}/${currency}`) ?? 0;

/** One journal: each [from, to, amount] moves money; zero lines post nothing, as entriesOf drops them. */
/** `post` for an operation's own money: the transfers are also recorded on it (see `MOp.moves`). */
export function postFor(m: Model, op: MOp, transfers: [string, string, number][]): void {
  post(m, transfers);
  op.moves.push(...transfers.filter(([, , amount]) => amount !== 0));
}

export function post(m: Model, transfers: [string, string, number][], currency = CURRENCY): void {
  for (const [from, to, amount] of transfers) {
    if (amount === 0) continue;
    m.balances.set(`${from}/${currency}`, (m.balances.get(`${from}/${currency}`) ?? 0) - amount);
    m.balances.set(`${to}/${currency}`, (m.balances.get(`${to}/${currency}`) ?? 0) + amount);
  }
  m.journals++;
}

// --- Charges, written out from the fee schedules of the world (DESIGN.md: round half up). ---

export interface Charges {
  fee: number;
  tax: number;
  /** The part of fee and tax a failed payout gives back. */
  refundFee: number;
  refundTax: number;
}

const pct = (amount: number, bps: number) => Math.floor((amount * bps + 5_000) / 10_000);

export function chargesOf(type: OpType, amount: number): Charges {
  switch (type) {
    case "wallet_debit":
      return { fee: 1_000 + pct(amount, 50), tax: pct(1_000, 1_600), refundFee: 0, refundTax: 0 };
    case "payout_b2c":
      return { fee: 2_500 + pct(amount, 150), tax: pct(2_500, 1_600), refundFee: 2_500, refundTax: 400 };
    case "topup_c2b":
      return { fee: 100, tax: pct(100, 1_600), refundFee: 0, refundTax: 0 };
    case "wallet_credit":
      return { fee: 50, tax: pct(50, 1_600), refundFee: 0, refundTax: 0 };
  }
}

// --- Time (UTC periods, DESIGN.md section 3). ---

const DAY_MS = 86_400_000;
export const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
export const weekStart = (ms: number) => {
  const day = dayStart(ms);
  return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY_MS;
};
export const monthStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};

export function periodStart(f: Frequency, ms: number): number | null {
  switch (f) {
    case "daily":
    case "on_due_date":
      return dayStart(ms);
    case "weekly":
      return weekStart(ms);
    case "monthly":
      return monthStart(ms);
    case "one_time":
      return 0;
    case "ad_hoc":
      return null;
  }
}

// --- Rules. ---

export const levelOf = (tier: string) => {
  const level = modelCatalog.kycLevels.find((l) => l.code === tier);
  if (!level) throw new Error(`unknown tier ${tier}`);
  return level;
};

const walletRefuses: Record<WalletStatus, Direction[]> = {
  active: [],
  debit_blocked: ["outbound"],
  credit_blocked: ["inbound"],
  frozen: ["inbound", "outbound"],
  closed: ["inbound", "outbound"],
  dormant: ["outbound"],
};
const customerAllows: Record<CustomerStatus, Direction[]> = {
  active: ["inbound", "outbound"],
  restricted: ["inbound"],
  suspended: [],
  closed: [],
  deceased: [],
};

/** CustomerNotActive, then WalletNotActive. */
export function statusRefusal(c: MCustomer, direction: Direction): ErrorCode | null {
  if (!customerAllows[c.status].includes(direction)) return "CustomerNotActive";
  if (walletRefuses[c.walletStatus].includes(direction)) return "WalletNotActive";
  return null;
}

/**
 * Accepted movements of the wallet whose funds moved since `sinceMs` (failed ones and intents not
 * paid do not count; a top-up counts from its payment).
 */
function movedSince(m: Model, walletUid: string, sinceMs: number, outboundOnly: boolean): number {
  let total = 0;
  for (const op of m.ops.values()) {
    if (
      op.walletUid !== walletUid ||
      op.movedAtMs === null ||
      op.state === "failed" ||
      op.movedAtMs < sinceMs
    )
      continue;
    const outbound = op.type === "wallet_debit" || op.type === "payout_b2c";
    if (outboundOnly && !outbound) continue;
    total += op.amount;
  }
  return total;
}

/** Status first, then the limits in DESIGN.md order: single, daily, monthly outbound, max balance. */
export function movementRefusal(
  m: Model,
  c: MCustomer,
  direction: Direction,
  amount: number,
  /** Inbound: the charges the wallet pays out of the amount; the maximum applies to the result. */
  inboundCharges = 0,
): ErrorCode | null {
  const status = statusRefusal(c, direction);
  if (status) return status;
  const level = levelOf(c.tier);
  if (level.maxSingleTxnMinor !== null && amount > level.maxSingleTxnMinor) return "LimitExceeded";
  if (movedSince(m, c.walletUid, dayStart(m.nowMs), false) + amount > level.aggregateDailyLimitMinor)
    return "LimitExceeded";
  if (
    direction === "outbound" &&
    level.monthlyOutLimitMinor !== null &&
    movedSince(m, c.walletUid, monthStart(m.nowMs), true) + amount > level.monthlyOutLimitMinor
  )
    return "LimitExceeded";
  const current = balanceOf(m, accounts.wallet(c.walletUid)) + balanceOf(m, accounts.hold(c.walletUid));
  if (direction === "inbound" && current + amount - inboundCharges > level.maxBalanceMinor)
    return "MaxBalanceExceeded";
  return null;
}

export const clientReferenceUsed = (m: Model, type: OpType, ref: string) =>
  [...m.ops.values()].some((o) => o.type === type && o.clientReference === ref);

export function mandateDebitsSince(m: Model, mandateUid: string, sinceMs: number): number {
  return [...m.ops.values()].filter(
    (o) => o.mandateUid === mandateUid && o.state !== "failed" && o.createdAtMs >= sinceMs,
  ).length;
}

/**
 * The status the routes that change a mandate go by (the model runs no mandate jobs): past
 * validTo it is expired, a pending one past validFrom is active.
 */
export function mandateStatusNow(m: Model, md: MMandate): MMandate["status"] | "expired" {
  if (md.status === "revoked" || md.status === "completed") return md.status;
  if (md.validToMs !== null && md.validToMs <= m.nowMs) return "expired";
  if (md.status === "pending" && md.validFromMs <= m.nowMs) return "active";
  return md.status;
}

/** Active (or pending past validFrom) and inside validFrom <= now < validTo. */
export const mandateDebitable = (m: Model, md: MMandate) =>
  (md.status === "active" || md.status === "pending") &&
  md.validFromMs <= m.nowMs &&
  (md.validToMs === null || m.nowMs < md.validToMs);

export const amountRuleHolds = (md: MMandate, amount: number) =>
  md.amountRule === "fixed" ? amount === md.amount : amount <= md.amount;

export const customerOf = (m: Model, walletUid: string): MCustomer => {
  const c = m.customers.find((x) => x.walletUid === walletUid);
  if (!c) throw new Error(`no customer for ${walletUid}`);
  return c;
};

/** The wallet's main account may never go below zero: what every debit is authorized against. */
export const available = (m: Model, walletUid: string) => balanceOf(m, accounts.wallet(walletUid));

/** Records an operation the system created, with the instant the model expects it at. */
export function addOp(
  m: Model,
  { moved, ...op }: Omit<MOp, "createdAtMs" | "movedAtMs" | "moves"> & { moved: boolean },
): MOp {
  const full: MOp = { ...op, createdAtMs: m.nowMs, movedAtMs: moved ? m.nowMs : null, moves: [] };
  m.ops.set(full.uid, full);
  return full;
}
