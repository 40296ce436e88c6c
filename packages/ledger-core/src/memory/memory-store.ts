import type { AssertionUse } from "../assertions/model.js";
import type { AuditEntry } from "../audit/model.js";
import type { Agreement, Customer, Identifier, KycVersion } from "../customers/model.js";
import type { DeliveryStatus } from "../events/delivery.js";
import type { OutboxEvent } from "../events/model.js";
import type { FeeQuote } from "../fees/quote.js";
import type { IdempotencyRecord } from "../idempotency/model.js";
import { mustStayNonNegative } from "../ledger/accounts.js";
import type { Journal } from "../ledger/journal.js";
import {
  AccountNotCoveredError,
  assertBalanced,
  netByAccount,
  refuseBalanceOutOfRange,
} from "../ledger/journal.js";
import type { Mandate } from "../mandates/model.js";
import type { Operation, TimelineEvent } from "../operations/model.js";
import { statementStates } from "../operations/model.js";
import type { OperationFilter, Page } from "../operations/repository.js";
import type { RailPayment, SuspenseItem } from "../rails/model.js";
import { DomainError, invariant } from "../shared/errors.js";
import type { Tx, UnitOfWork } from "../store/unit-of-work.js";
import type { SigningKey, Tenant } from "../tenants/model.js";
import type { Wallet } from "../wallets/model.js";
import { clone } from "./clone.js";
import { createMemoryDeliveries } from "./memory-deliveries.js";
import {
  copyCustomer,
  copyJournal,
  copyOperation,
  copyOrNull,
  copyOutboxEvent,
  copyTimelineEvent,
  copyWallet,
  flatten,
  storedOutboxEvent,
} from "./record-copies.js";
import { UndoLog } from "./undo-log.js";
import { countsTowardLimits, WalletDayTotals } from "./wallet-day-totals.js";

interface Account {
  balance: number;
  updatedAt: string | null;
}

/** Everything the memory store holds. Exposed read-only for tests and property checks. */
export interface MemoryState {
  tenants: Map<string, Tenant>;
  apiKeys: Map<string, string>;
  /** API key hash -> when it was revoked. */
  revokedApiKeys: Map<string, string>;
  signingKeys: Map<string, SigningKey>;
  replay: Map<string, string>;
  customers: Map<string, Customer>;
  identifiers: Map<string, Identifier>;
  agreements: Map<string, Agreement>;
  kycVersions: Map<string, KycVersion>;
  wallets: Map<string, Wallet>;
  accounts: Map<string, Account>;
  journals: Journal[];
  operations: Map<string, Operation>;
  timeline: Map<string, TimelineEvent[]>;
  outbox: OutboxEvent[];
  /** Delivery bookkeeping by event id; an event absent here is pending and due at once. */
  deliveries: Map<string, DeliveryStatus>;
  idempotency: Map<string, IdempotencyRecord>;
  audit: AuditEntry[];
  assertionUses: AssertionUse[];
  mandates: Map<string, Mandate>;
  quotes: Map<string, FeeQuote>;
  railPayments: Map<string, RailPayment>;
  suspense: Map<string, SuspenseItem>;
}

export interface MemoryStore {
  uow: UnitOfWork;
  state: MemoryState;
}

/**
 * An account's id in `accounts`, in one piece (`flatten`): the callers' keys are concatenations
 * made afresh by every request, and V8 would flatten such a key into a scratch buffer again to
 * hash it and again to compare it with the stored key on every lookup.
 */
const acct = (currency: string, key: string) => flatten(`${key}/${currency}`);
const newMap = <K, V>() => new Map<K, V>();
const newArray = <T>(): T[] => [];

/**
 * An in-memory implementation of every port, for embedding, examples and tests. Units of work run
 * one at a time (like SQLite's single writer) and roll back through an undo log, so a refusal
 * leaves nothing behind. Values are copied on the way in and out, as a database would.
 */
export function createMemoryStore(): MemoryStore {
  const s: MemoryState = {
    tenants: new Map(),
    apiKeys: new Map(),
    revokedApiKeys: new Map(),
    signingKeys: new Map(),
    replay: new Map(),
    customers: new Map(),
    identifiers: new Map(),
    agreements: new Map(),
    kycVersions: new Map(),
    wallets: new Map(),
    accounts: new Map(),
    journals: [],
    operations: new Map(),
    timeline: new Map(),
    outbox: [],
    deliveries: new Map(),
    idempotency: new Map(),
    audit: [],
    assertionUses: [],
    mandates: new Map(),
    quotes: new Map(),
    railPayments: new Map(),
    suspense: new Map(),
  };
  const log = new UndoLog();
  // Secondary indexes, kept in step under the same undo log, so lookups on the hot path do not
  // scan every operation or event.
  /** Operation uid by tenant, type and clientReference (the databases' UNIQUE index). */
  const opByReference = new Map<string, Map<string, Map<string, string>>>();
  const opsByWallet = new Map<string, string[]>();
  const dayTotals = new WalletDayTotals(log);
  const outboxSeq = new Map<string, number>();
  const indexWallet = (walletUid: string | null, uid: string) => {
    if (walletUid !== null) log.push(log.ensure(opsByWallet, walletUid, newArray<string>), uid);
  };
  /** Indexes an updated operation under the wallets it names now and did not before (rare). */
  const reindexWallets = (before: Operation, after: Operation) => {
    for (const w of [after.sourceWalletUid, after.destinationWalletUid]) {
      if (w === before.sourceWalletUid || w === before.destinationWalletUid) continue;
      if (w !== null && !opsByWallet.get(w)?.includes(after.uid)) indexWallet(w, after.uid);
    }
  };
  /** The port's semantics, by brute force over the wallet's operations. */
  const scanForWallet = (walletUid: string, since: string, direction: "inbound" | "outbound" | "both") => {
    let total = 0;
    for (const uid of opsByWallet.get(walletUid) ?? []) {
      const o = s.operations.get(uid)!;
      if (!countsTowardLimits(o) || (o.fundsMovedAt as string) < since) continue;
      const inbound = o.destinationWalletUid === walletUid;
      const outbound = o.sourceWalletUid === walletUid;
      if ((direction !== "outbound" && inbound) || (direction !== "inbound" && outbound))
        total += o.amountMinor;
    }
    return total;
  };
  /** A wallet's sum for the limits: the day totals when they hold it, else a scan. */
  const sumForWallet = (walletUid: string, since: string, direction: "inbound" | "outbound" | "both") =>
    dayTotals.sum(walletUid, since, direction) ?? scanForWallet(walletUid, since, direction);
  /** The operation holding a clientReference, uncopied. */
  const referencedOperation = (tenantId: string, type: string, ref: string) => {
    const uid = opByReference.get(tenantId)?.get(type)?.get(ref);
    return uid === undefined ? undefined : s.operations.get(uid);
  };
  /** Whether a unit of work is running; the others wait their turn in `waiting`, first come first. */
  let busy = false;
  const waiting: (() => void)[] = [];
  const setIn = <K, V>(m: Map<K, V>, k: K, v: V) => log.set(m, k, v);
  const deleteIn = <K, V>(m: Map<K, V>, k: K) => log.delete(m, k);
  const pushTo = <T>(a: T[], v: T) => log.push(a, v);
  const mutate = <K, V extends object>(m: Map<K, V>, k: K, patch: Partial<V>) => log.patch(m, k, patch);

  const verifiedClash = (i: Identifier) =>
    i.verificationStatus === "verified" &&
    [...s.identifiers.values()].some(
      (o) =>
        o.uid !== i.uid &&
        o.tenantId === i.tenantId &&
        o.verificationStatus === "verified" &&
        o.blindIndex === i.blindIndex,
    );
  const balancesOf = (currency: string, keys: readonly string[]) => {
    const out = new Map<string, number>();
    for (const k of keys) out.set(k, s.accounts.get(acct(currency, k))?.balance ?? 0);
    return out;
  };
  const conflict = (what: string) => new DomainError("Conflict", what);

  const matches = (op: Operation, f: OperationFilter) =>
    op.tenantId === f.tenantId &&
    (f.customerUid === undefined || op.customerUid === f.customerUid) &&
    (f.walletUid === undefined ||
      op.sourceWalletUid === f.walletUid ||
      op.destinationWalletUid === f.walletUid) &&
    (f.type === undefined || op.type === f.type) &&
    (f.state === undefined || op.state === f.state) &&
    (f.from === undefined || op.createdAt >= f.from) &&
    (f.to === undefined || op.createdAt <= f.to) &&
    (!f.movedOrFinal || op.fundsMovedAt !== null || statementStates.includes(op.state));

  const comparator = (page: Page) => {
    return sortBy<Operation>(page, (o) => o.uid);
  };
  const sortBy = <T extends { createdAt: string }>(page: Page, idOf: (x: T) => string) => {
    const sort = page.sort.some((x) => x.field === "id")
      ? page.sort
      : [...page.sort, { field: "id" as const, direction: page.sort[0]?.direction ?? ("DESC" as const) }];
    return (a: T, b: T) => {
      for (const { field, direction } of sort) {
        const av = field === "id" ? idOf(a) : a.createdAt;
        const bv = field === "id" ? idOf(b) : b.createdAt;
        if (av !== bv) return (av < bv ? -1 : 1) * (direction === "ASC" ? 1 : -1);
      }
      return 0;
    };
  };

  const insertOperation = (op: Operation) => {
    if (s.operations.has(op.uid)) throw new Error(`duplicate operation ${op.uid}`);
    if (op.clientReference !== null) {
      const byType = log.ensure(opByReference, op.tenantId, newMap<string, Map<string, string>>);
      const refs = log.ensure(byType, op.type, newMap<string, string>);
      if (refs.has(op.clientReference)) throw conflict("clientReference already used");
      log.add(refs, op.clientReference, op.uid);
    }
    const stored = copyOperation(op);
    log.add(s.operations, op.uid, stored);
    indexWallet(op.sourceWalletUid, op.uid);
    if (op.destinationWalletUid !== op.sourceWalletUid) indexWallet(op.destinationWalletUid, op.uid);
    dayTotals.insert(stored);
  };
  const appendTimelineEvent = (e: TimelineEvent) => {
    const list = s.timeline.get(e.operationUid);
    invariant((list?.length ?? 0) === e.sequenceNo, "timeline sequence numbers are consecutive");
    // A new list of the exact length each time (`concat` allocates no spare room): a list
    // grown by `push` keeps room for 16 more events, and an operation has a handful.
    const event = [copyTimelineEvent(e)];
    if (list) log.replace(s.timeline, e.operationUid, list, list.concat(event));
    else log.add(s.timeline, e.operationUid, event);
  };
  /**
   * The whole timeline of an operation just inserted, in one list and one entry: what appending
   * its events one by one leaves behind, without reading back and replacing a list per event.
   */
  const insertTimeline = (uid: string, events: readonly TimelineEvent[]) => {
    const n = events.length;
    let whole = n > 0 && !s.timeline.has(uid);
    for (let i = 0; whole && i < n; i++)
      whole = events[i]!.operationUid === uid && events[i]!.sequenceNo === i;
    // Anything else (events of another operation, numbers out of order): one by one, as before.
    if (!whole) {
      for (const e of events) appendTimelineEvent(e);
      return;
    }
    const list = new Array<TimelineEvent>(n);
    for (let i = 0; i < n; i++) list[i] = copyTimelineEvent(events[i]!);
    log.add(s.timeline, uid, list);
  };
  const walletOf = (tenantId: string, uid: string) => {
    const w = s.wallets.get(uid);
    return w && w.tenantId === tenantId ? copyWallet(w) : null;
  };
  const customerOf = (tenantId: string, uid: string) => {
    const c = s.customers.get(uid);
    return c && c.tenantId === tenantId ? copyCustomer(c) : null;
  };

  const tx: Tx = {
    tenants: {
      get: async (id) => clone(s.tenants.get(id) ?? null),
      getForUpdate: async (id) => clone(s.tenants.get(id) ?? null),
      list: async () => clone([...s.tenants.values()]),
      upsert: async (t) => setIn(s.tenants, t.id, clone(t)),
      findByApiKeyHash: async (h) => s.apiKeys.get(h) ?? null,
      findCredentials: async (h, kid) => {
        const tenant = s.tenants.get(s.apiKeys.get(h) ?? "");
        if (!tenant || s.revokedApiKeys.has(h)) return null;
        return clone({ tenant, signingKey: s.signingKeys.get(`${tenant.id}/${kid}`) ?? null });
      },
      addApiKeyHash: async (tenantId, h) => {
        if (!s.apiKeys.has(h)) setIn(s.apiKeys, h, tenantId);
      },
      getApiKey: async (tenantId, h) =>
        s.apiKeys.get(h) === tenantId
          ? { tenantId, sha256: h, revokedAt: s.revokedApiKeys.get(h) ?? null }
          : null,
      revokeApiKey: async (tenantId, h, revokedAt) => {
        if (s.apiKeys.get(h) === tenantId && !s.revokedApiKeys.has(h)) setIn(s.revokedApiKeys, h, revokedAt);
      },
      getSigningKey: async (tenantId, kid) => clone(s.signingKeys.get(`${tenantId}/${kid}`) ?? null),
      listSigningKeys: async (tenantId) =>
        clone([...s.signingKeys.values()].filter((k) => k.tenantId === tenantId)),
      addSigningKey: async (k) => {
        const id = `${k.tenantId}/${k.kid}`;
        if (!s.signingKeys.has(id)) setIn(s.signingKeys, id, clone(k));
      },
      setSigningKeyStatus: async (tenantId, kid, status) =>
        mutate(s.signingKeys, `${tenantId}/${kid}`, { status }),
    },
    replayGuard: {
      remember: async (sig, now, expiresAt) => {
        const seen = s.replay.get(sig);
        if (seen !== undefined && seen > now) return false;
        setIn(s.replay, sig, expiresAt);
        return true;
      },
    },
    customers: {
      insert: async (c) => setIn(s.customers, c.uid, copyCustomer(c)),
      get: async (tenantId, uid) => customerOf(tenantId, uid),
      getAny: async (uid) => copyOrNull(s.customers.get(uid), copyCustomer),
      // One unit of work runs at a time here: nothing to lock.
      getForUpdate: async (tenantId, uid) => customerOf(tenantId, uid),
      setStatus: async (tenantId, uid, status) => {
        if (s.customers.get(uid)?.tenantId === tenantId) mutate(s.customers, uid, { status });
      },
      clearDatesOfBirth: async (limit, sealedMark, afterUid) =>
        [...s.customers.values()]
          .filter(
            (c) =>
              c.dateOfBirth !== null &&
              !c.dateOfBirth.startsWith(sealedMark) &&
              (afterUid === undefined || c.uid > afterUid),
          )
          .sort((a, b) => (a.uid < b.uid ? -1 : 1))
          .slice(0, limit)
          .map((c) => ({ uid: c.uid, dateOfBirth: c.dateOfBirth as string })),
      sealDatesOfBirth: async (rows) => {
        for (const { uid, clear, sealed } of rows) {
          if (s.customers.get(uid)?.dateOfBirth === clear) mutate(s.customers, uid, { dateOfBirth: sealed });
        }
      },
      sealedDateOfBirthOutsidePrefixes: async (sealedMark, prefixes) =>
        [...s.customers.values()]
          .map((c) => c.dateOfBirth)
          .find(
            (d): d is string =>
              d !== null && d.startsWith(sealedMark) && !prefixes.some((p) => d.startsWith(p)),
          ) ?? null,
    },
    identifiers: {
      insert: async (i) => {
        if (verifiedClash(i)) throw conflict("duplicate verified identifier");
        setIn(s.identifiers, i.uid, clone(i));
      },
      update: async (i) => {
        if (verifiedClash(i)) throw conflict("duplicate verified identifier");
        setIn(s.identifiers, i.uid, clone(i));
      },
      get: async (tenantId, uid) => {
        const i = s.identifiers.get(uid);
        return i && i.tenantId === tenantId ? clone(i) : null;
      },
      listByCustomer: async (tenantId, customerUid) =>
        clone(
          [...s.identifiers.values()].filter((i) => i.tenantId === tenantId && i.customerUid === customerUid),
        ),
      firstAndLast: async () => {
        const byUid = [...s.identifiers.values()].sort((a, b) =>
          a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0,
        );
        return clone([...new Set([byUid[0], byUid.at(-1)].filter((i) => i !== undefined))]);
      },
      sealedOutsidePrefixes: async (prefixes) =>
        [...s.identifiers.values()].find((i) => !prefixes.some((p) => i.sealedValue.startsWith(p)))
          ?.sealedValue ?? null,
      expireRetired: async (tenantId, uid, validTo) => {
        const i = s.identifiers.get(uid);
        if (i?.tenantId === tenantId && i.verificationStatus === "verified" && i.validTo === validTo)
          mutate(s.identifiers, uid, { verificationStatus: "expired" });
      },
      findVerifiedByBlindIndex: async (tenantId, blindIndex, exceptUid) =>
        clone(
          [...s.identifiers.values()].find(
            (i) =>
              i.tenantId === tenantId &&
              i.blindIndex === blindIndex &&
              i.verificationStatus === "verified" &&
              i.uid !== exceptUid,
          ) ?? null,
        ),
    },
    agreements: {
      insert: async (a) => setIn(s.agreements, a.uid, clone(a)),
      get: async (tenantId, uid) => {
        const a = s.agreements.get(uid);
        return a && a.tenantId === tenantId ? clone(a) : null;
      },
      setStatus: async (tenantId, uid, status) => {
        if (s.agreements.get(uid)?.tenantId === tenantId) mutate(s.agreements, uid, { status });
      },
      listByCustomer: async (tenantId, customerUid) =>
        clone(
          [...s.agreements.values()].filter((a) => a.tenantId === tenantId && a.customerUid === customerUid),
        ),
    },
    kycVersions: {
      insert: async (v) => setIn(s.kycVersions, v.uid, clone(v)),
      update: async (v) => setIn(s.kycVersions, v.uid, clone(v)),
      get: async (tenantId, uid) => {
        const v = s.kycVersions.get(uid);
        return v && v.tenantId === tenantId ? clone(v) : null;
      },
      getAny: async (uid) => clone(s.kycVersions.get(uid) ?? null),
      listByCustomer: async (tenantId, customerUid) =>
        clone(
          [...s.kycVersions.values()].filter((v) => v.tenantId === tenantId && v.customerUid === customerUid),
        ),
      tierCodesInUse: async () => [
        ...new Set(
          [...s.kycVersions.values()]
            .filter((v) => v.state === "approved" || v.state === "pending")
            .map((v) => v.tierCode),
        ),
      ],
    },
    wallets: {
      insert: async (w) => setIn(s.wallets, w.uid, copyWallet(w)),
      get: async (tenantId, uid) => walletOf(tenantId, uid),
      // One unit of work runs at a time here: nothing to lock.
      getForUpdate: async (tenantId, uid) => walletOf(tenantId, uid),
      getAny: async (uid) => copyOrNull(s.wallets.get(uid), copyWallet),
      getWithCustomer: async (tenantId, uid) => {
        const wallet = walletOf(tenantId, uid);
        if (!wallet) return null;
        const customer = customerOf(tenantId, wallet.customerUid);
        invariant(customer, "a wallet always has its customer");
        return { wallet, customer };
      },
      listByCustomer: async (tenantId, customerUid) =>
        [...s.wallets.values()]
          .filter((w) => w.tenantId === tenantId && w.customerUid === customerUid)
          .map(copyWallet),
      setStatus: async (tenantId, uid, status) => {
        if (s.wallets.get(uid)?.tenantId === tenantId) mutate(s.wallets, uid, { status });
      },
      setKycTier: async (tenantId, uid, kycTierCode) => {
        if (s.wallets.get(uid)?.tenantId === tenantId) mutate(s.wallets, uid, { kycTierCode });
      },
      tierCurrenciesInUse: async () => {
        const pairs = new Map<string, { kycTierCode: string; currency: string }>();
        for (const { kycTierCode, currency } of s.wallets.values()) {
          pairs.set(`${kycTierCode}\u0000${currency}`, { kycTierCode, currency });
        }
        return [...pairs.values()];
      },
    },
    ledger: {
      lockAccounts: async (currency, keys) => balancesOf(currency, keys),
      balances: async (currency, keys) => balancesOf(currency, keys),
      post: async (journal) => {
        assertBalanced(journal);
        const after = new Map<string, Account>();
        for (const [key, delta] of netByAccount(journal.entries)) {
          const prior = s.accounts.get(acct(journal.currency, key));
          const balance = (prior?.balance ?? 0) + delta;
          if (!Number.isSafeInteger(balance)) refuseBalanceOutOfRange();
          // The same check as the SQL stores' posting (and their CHECK constraint).
          if (balance < 0 && mustStayNonNegative(key)) throw new AccountNotCoveredError(key);
          // An account whose lines cancel out keeps its balance and its asOf (a new one is made at
          // zero, as a lock makes it in the SQL stores).
          if (delta === 0 && prior !== undefined) continue;
          after.set(key, { balance, updatedAt: delta === 0 ? null : journal.createdAt });
        }
        for (const [key, account] of after) setIn(s.accounts, acct(journal.currency, key), account);
        pushTo(s.journals, copyJournal(journal));
      },
      journalsOf: async (tenantId, operationUid) =>
        s.journals.filter((j) => j.tenantId === tenantId && j.operationUid === operationUid).map(copyJournal),
      lastMovedAt: async (currency, keys) =>
        keys
          .map((k) => s.accounts.get(acct(currency, k))?.updatedAt ?? null)
          .reduce<string | null>((a, b) => (b && (!a || b > a) ? b : a), null),
      trialBalance: async () => {
        const rows = new Map<string, { currency: string; debitsMinor: bigint; creditsMinor: bigint }>();
        for (const j of s.journals) {
          const row = rows.get(j.currency) ?? { currency: j.currency, debitsMinor: 0n, creditsMinor: 0n };
          for (const e of j.entries) {
            if (e.amountMinor < 0) row.debitsMinor -= BigInt(e.amountMinor);
            else row.creditsMinor += BigInt(e.amountMinor);
          }
          rows.set(j.currency, row);
        }
        return [...rows.values()];
      },
    },
    operations: {
      insert: async (op) => insertOperation(op),
      update: async (op) => {
        const before = s.operations.get(op.uid);
        invariant(before, "update of an unknown operation");
        // Like the databases: who, what kind, which currency and clientReference, and when it was
        // created never change.
        const after = copyOperation(op);
        after.tenantId = before.tenantId;
        after.type = before.type;
        after.currency = before.currency;
        after.clientReference = before.clientReference;
        after.createdAt = before.createdAt;
        log.replace(s.operations, op.uid, before, after);
        reindexWallets(before, after);
        dayTotals.replace(before, after);
      },
      get: async (tenantId, uid) => {
        const op = s.operations.get(uid);
        return op && op.tenantId === tenantId ? copyOperation(op) : null;
      },
      findByClientReference: async (tenantId, type, ref) =>
        copyOrNull(referencedOperation(tenantId, type, ref), copyOperation),
      appendTimeline: async (e) => appendTimelineEvent(e),
      insertWithTimeline: async (op, timeline) => {
        insertOperation(op);
        insertTimeline(op.uid, timeline);
      },
      timeline: async (uid) => (s.timeline.get(uid) ?? []).map(copyTimelineEvent),
      timelineLength: async (uid) => s.timeline.get(uid)?.length ?? 0,
      list: async (filter, page) => {
        const all = [...s.operations.values()].filter((o) => matches(o, filter)).sort(comparator(page));
        const start = (page.page - 1) * page.limit;
        return { data: all.slice(start, start + page.limit).map(copyOperation), total: all.length };
      },
      countMandateDebits: async (mandateUid, since) =>
        [...s.operations.values()].filter(
          (o) => o.mandateUid === mandateUid && o.state !== "failed" && o.createdAt >= since,
        ).length,
      findTopupsByIntentReference: async (ref) =>
        [...s.operations.values()]
          .filter((o) => o.type === "topup_c2b" && o.intentReference === ref)
          .sort((a, b) => (a.uid < b.uid ? 1 : -1))
          .map(copyOperation),
      listExpiredTopups: async (asOf, limit) =>
        [...s.operations.values()]
          .filter(
            (o) =>
              o.type === "topup_c2b" &&
              o.state === "pending_provider" &&
              o.expiresAt !== null &&
              o.expiresAt <= asOf,
          )
          .sort((a, b) => (a.uid < b.uid ? -1 : 1))
          .slice(0, limit)
          .map(copyOperation),
      listProcessingPayouts: async (limit, afterUid) =>
        [...s.operations.values()]
          .filter(
            (o) =>
              o.type === "payout_b2c" &&
              o.state === "processing" &&
              (afterUid === undefined || o.uid > afterUid),
          )
          .sort((a, b) => (a.uid < b.uid ? -1 : 1))
          .slice(0, limit)
          .map(copyOperation),
      railCodesAwaitingPayment: async () => [
        ...new Set(
          [...s.operations.values()].flatMap((o) =>
            o.type === "topup_c2b" && o.state === "pending_provider" && o.provider !== null
              ? [o.provider.railCode]
              : [],
          ),
        ),
      ],
      getAny: async (uid) => copyOrNull(s.operations.get(uid), copyOperation),
      sumForWallet: async (walletUid, since, direction) => sumForWallet(walletUid, since, direction),
      // The two reads in sequence: in memory there is no round trip to save.
      sumForWalletUnlessReferenced: async (
        { tenantId, type, clientReference },
        walletUid,
        since,
        direction,
      ) =>
        referencedOperation(tenantId, type, clientReference) === undefined
          ? sumForWallet(walletUid, since, direction)
          : null,
    },
    outbox: {
      nextSeq: async (resourceUid) => (outboxSeq.get(resourceUid) ?? 0) + 1,
      append: async (e) => {
        const last = outboxSeq.get(e.resourceUid);
        invariant(e.seq > (last ?? 0), "outbox seq is unique per resource");
        if (last === undefined) log.add(outboxSeq, e.resourceUid, e.seq);
        else log.replace(outboxSeq, e.resourceUid, last, e.seq);
        pushTo(s.outbox, storedOutboxEvent(e));
      },
      list: async (tenantId) =>
        s.outbox.filter((e) => tenantId === undefined || e.tenantId === tenantId).map(copyOutboxEvent),
    },
    deliveries: createMemoryDeliveries(s, log),
    idempotency: {
      claim: async (r) => {
        const id = `${r.tenantId}/${r.key}`;
        const existing = s.idempotency.get(id);
        if (existing && !(existing.state === "in_progress" && existing.lockedUntil < r.createdAt)) {
          return { kind: "existing", record: clone(existing) };
        }
        setIn(s.idempotency, id, clone(r));
        return { kind: "claimed" };
      },
      complete: async (tenantId, key, claimedAt, response) => {
        const id = `${tenantId}/${key}`;
        const held = s.idempotency.get(id);
        if (held?.state !== "in_progress" || held.createdAt !== claimedAt) return false;
        mutate(s.idempotency, id, { state: "completed", response: clone(response) });
        return true;
      },
      release: async (tenantId, key, claimedAt) => {
        const id = `${tenantId}/${key}`;
        const held = s.idempotency.get(id);
        if (held?.state === "in_progress" && held.createdAt === claimedAt) deleteIn(s.idempotency, id);
      },
    },
    audit: {
      append: async (e) => pushTo(s.audit, clone(e)),
      // Newest first by insertion, as the SQL stores walk their ordinal backwards.
      list: async ({ tenantId, limit, offset }) => {
        const page: AuditEntry[] = [];
        let skip = offset;
        for (let i = s.audit.length - 1; i >= 0 && page.length < limit; i--) {
          const e = s.audit[i]!;
          if (tenantId !== undefined && e.tenantId !== tenantId) continue;
          if (skip > 0) skip--;
          else page.push(e);
        }
        return clone(page);
      },
    },
    assertions: {
      findLive: async (tenantId, sourceReference, nowIso) =>
        clone(
          s.assertionUses
            .filter(
              (u) => u.tenantId === tenantId && u.sourceReference === sourceReference && u.expiresAt > nowIso,
            )
            .at(-1) ?? null,
        ),
      record: async (use) => pushTo(s.assertionUses, clone(use)),
    },
    mandates: {
      insert: async (m) => setIn(s.mandates, m.uid, clone(m)),
      update: async (m) => {
        invariant(s.mandates.has(m.uid), "update of an unknown mandate");
        setIn(s.mandates, m.uid, clone(m));
      },
      get: async (tenantId, uid) => {
        const m = s.mandates.get(uid);
        return m && m.tenantId === tenantId ? clone(m) : null;
      },
      getAny: async (uid) => clone(s.mandates.get(uid) ?? null),
      list: async (f, page) => {
        const all = [...s.mandates.values()]
          .filter(
            (m) =>
              m.tenantId === f.tenantId &&
              (f.customerUid === undefined || m.customerUid === f.customerUid) &&
              (f.status === undefined || m.status === f.status),
          )
          .sort(sortBy<Mandate>(page, (m) => m.uid));
        const start = (page.page - 1) * page.limit;
        return { data: clone(all.slice(start, start + page.limit)), total: all.length };
      },
      countByCustomer: async (tenantId, customerUid) =>
        [...s.mandates.values()].filter((m) => m.tenantId === tenantId && m.customerUid === customerUid)
          .length,
      listDue: async (kind, asOf, limit) =>
        clone(
          [...s.mandates.values()]
            .filter((m) =>
              kind === "activate"
                ? m.status === "pending" && m.validFrom <= asOf
                : ["pending", "active", "suspended"].includes(m.status) &&
                  m.validTo !== null &&
                  m.validTo <= asOf,
            )
            .sort((a, b) => (a.uid < b.uid ? -1 : 1))
            .slice(0, limit),
        ),
    },
    quotes: {
      insert: async (q) => setIn(s.quotes, q.quoteId, clone(q)),
      get: async (tenantId, quoteId) => {
        const q = s.quotes.get(quoteId);
        return q && q.tenantId === tenantId ? clone(q) : null;
      },
    },
    railPayments: {
      insertIfNew: async (p) => {
        const id = `${p.railCode}/${p.providerReference}`;
        if (s.railPayments.has(id)) return false;
        setIn(s.railPayments, id, clone(p));
        return true;
      },
      get: async (railCode, providerReference) =>
        clone(s.railPayments.get(`${railCode}/${providerReference}`) ?? null),
    },
    suspense: {
      insert: async (item) => setIn(s.suspense, item.uid, clone(item)),
      update: async (item) => {
        invariant(s.suspense.has(item.uid), "update of an unknown suspense item");
        setIn(s.suspense, item.uid, clone(item));
      },
      get: async (uid) => clone(s.suspense.get(uid) ?? null),
      // Oldest first, then by uid: the SQL stores' (created_at, uid) order.
      list: async ({ status, limit, offset }) =>
        clone(
          [...s.suspense.values()]
            .filter((x) => status === undefined || x.status === status)
            .sort((a, b) =>
              a.createdAt === b.createdAt ? (a.uid < b.uid ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
            )
            .slice(offset, offset + limit),
        ),
    },
  };

  const uow: UnitOfWork = {
    async run<T>(work: (t: Tx) => Promise<T>): Promise<T> {
      if (busy) await new Promise<void>((turn) => waiting.push(turn));
      busy = true;
      log.begin();
      try {
        const value = await work(tx);
        log.commit();
        return value;
      } catch (e) {
        log.rollback();
        throw e;
      } finally {
        // Hand the store straight to the next in line (still busy), or free it.
        const next = waiting.shift();
        if (next) next();
        else busy = false;
      }
    },
    autocommit: (work) => uow.run(work),
  };
  return { uow, state: s };
}
