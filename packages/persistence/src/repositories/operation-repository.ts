import {
  type Operation,
  type OperationFilter,
  type OperationRepository,
  type ProviderBlock,
  statementStates,
  type TimelineEvent,
} from "@wallet/ledger-core";
import { type ExpressionBuilder, type Kysely, type Selectable, type SelectQueryBuilder, sql } from "kysely";
import type {
  Database,
  OperationsTable,
  OperationTimelineTable,
  WalletDayTotalsTable,
} from "../schema/database.js";
import { fromJson, fromJsonOrNull, toJson, toJsonOrNull } from "../shared/json-column.js";
import { queryTemplate } from "../shared/query-template.js";
import { conflictError, conflictIndexes } from "../shared/store-errors.js";
import { pageWindow, type SortKey, sortKeys } from "./paging.js";
import {
  affected,
  explainLostUpdate,
  type RowVersion,
  type SqlContext,
  versionTerms,
} from "./sql-context.js";

type OperationsQuery = SelectQueryBuilder<Database, "operations", Selectable<OperationsTable>>;

const VERSIONED = "operations";

// ON CONFLICT on the clientReference index: a concurrent insert of the same reference waits for
// the first to commit and then inserts nothing, and the transaction stays usable.
const insertOperation = queryTemplate((db, row: Selectable<OperationsTable>) =>
  db
    .insertInto("operations")
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(["tenant_id", "type", "client_reference"])
        .where("client_reference", "is not", null)
        .doNothing(),
    ),
);

/** Everything but the identity of the operation, and the key of the row to change. */
type OperationUpdate = Omit<
  Selectable<OperationsTable>,
  "uid" | "tenant_id" | "type" | "currency" | "client_reference" | "created_at"
> & { key_tenant: string; key_uid: string };

/** The update of an operation, applied only if the row still has version `seen` (if any). */
const updateOperation = (
  db: Kysely<Database>,
  { key_tenant, key_uid, ...changes }: OperationUpdate,
  seen: RowVersion | undefined,
) => {
  let q = db
    .updateTable("operations")
    .set(changes)
    .where("tenant_id", "=", key_tenant)
    .where("uid", "=", key_uid);
  for (const term of versionTerms(seen)) q = q.where(term);
  return q;
};

/** The usual update: of an operation this transaction read or wrote, updated before. */
const updateSeenOperation = queryTemplate(
  (
    db,
    {
      seen_state,
      seen_updated_at,
      ...update
    }: OperationUpdate & { seen_state: string; seen_updated_at: string },
  ) => updateOperation(db, update, { state: seen_state, updated_at: seen_updated_at }),
);

const getOperation = queryTemplate((db, p: { tenantId: string; uid: string }) =>
  db.selectFrom("operations").selectAll().where("tenant_id", "=", p.tenantId).where("uid", "=", p.uid),
);

const findByClientReference = queryTemplate(
  (db, p: { tenantId: string; type: string; clientReference: string }) =>
    db
      .selectFrom("operations")
      .selectAll()
      .where("tenant_id", "=", p.tenantId)
      .where("type", "=", p.type)
      .where("client_reference", "=", p.clientReference),
);

const appendTimeline = queryTemplate((db, row: Selectable<OperationTimelineTable>) =>
  db.insertInto("operation_timeline").values(row),
);

/**
 * Postgres: the operation and its first timeline events in one statement. The events are inserted
 * from what the operation's insert returns, so a clientReference taken already (nothing inserted,
 * the transaction still usable) inserts no event either; the caller counts the events inserted.
 * Their values are cast: in a SELECT list Postgres would otherwise read a parameter as text.
 */
const insertWithTimelinePg = queryTemplate(
  (
    db,
    p: {
      op: Selectable<OperationsTable>;
      timeline: Omit<Selectable<OperationTimelineTable>, "operation_uid">[];
    },
  ) => {
    const inserted = db.with("op", (w) =>
      w
        .insertInto("operations")
        .values(p.op)
        .onConflict((oc) =>
          oc
            .columns(["tenant_id", "type", "client_reference"])
            .where("client_reference", "is not", null)
            .doNothing(),
        )
        .returning("uid"),
    );
    return inserted
      .insertInto("operation_timeline")
      .columns(["operation_uid", "sequence_no", "from_state", "to_state", "occurred_at", "actor_type"])
      .expression((eb) => {
        const events = p.timeline.map((e) =>
          eb
            .selectFrom("op")
            .select([
              "op.uid as operation_uid",
              sql<number>`cast(${e.sequence_no} as integer)`.as("sequence_no"),
              sql<string | null>`cast(${e.from_state} as text)`.as("from_state"),
              sql<string>`cast(${e.to_state} as text)`.as("to_state"),
              sql<string>`cast(${e.occurred_at} as text)`.as("occurred_at"),
              sql<string | null>`cast(${e.actor_type} as text)`.as("actor_type"),
            ]),
        );
        const [first, ...rest] = events;
        if (!first) throw new Error("insertWithTimeline needs at least one timeline event");
        return rest.reduce((union, q) => union.unionAll(q), first);
      });
  },
);

const timelineLength = queryTemplate((db, p: { operationUid: string }) =>
  db
    .selectFrom("operation_timeline")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("operation_uid", "=", p.operationUid),
);

export function sqlOperationRepository(ctx: SqlContext): OperationRepository {
  const { trx, versions } = ctx;
  /** Maps a row read by key, remembering the version this transaction saw. */
  const seen = (r: Selectable<OperationsTable>): Operation => {
    versions.remember(VERSIONED, r.uid, { state: r.state, updated_at: r.updated_at });
    return toOperation(r);
  };

  /** Every filter but the wallet one, which `list` turns into two index walks. */
  const narrow = <O>(
    q: SelectQueryBuilder<Database, "operations", O>,
    f: OperationFilter,
  ): SelectQueryBuilder<Database, "operations", O> => {
    let out = q.where("tenant_id", "=", f.tenantId);
    if (f.customerUid !== undefined) out = out.where("customer_uid", "=", f.customerUid);
    if (f.type !== undefined) out = out.where("type", "=", f.type);
    if (f.state !== undefined) out = out.where("state", "=", f.state);
    // ISO strings with milliseconds compare as text in time order; both bounds inclusive.
    if (f.from !== undefined) out = out.where("created_at", ">=", f.from);
    if (f.to !== undefined) out = out.where("created_at", "<=", f.to);
    if (f.movedOrFinal) {
      out = out.where((eb) =>
        eb.or([eb("funds_moved_at", "is not", null), eb("state", "in", [...statementStates])]),
      );
    }
    return out;
  };

  const sorted = (q: OperationsQuery, keys: SortKey[]): OperationsQuery => {
    let out = q;
    for (const k of keys) out = out.orderBy(k.column, k.direction);
    return out;
  };

  /** After an insert of `op` that wrote `rows` rows of the `expected`: none means a taken clientReference. */
  const inserted = (op: Operation, rows: number, expected: number) => {
    if (rows !== expected) throw conflictError(conflictIndexes.operationClientReference);
    versions.remember(VERSIONED, op.uid, { state: op.state, updated_at: op.updatedAt });
  };
  const insert = async (op: Operation) =>
    inserted(op, await insertOperation.affected(ctx, fromOperation(op)), 1);

  return {
    insert,

    async update(op) {
      // Everything but the identity of the operation: who, what kind, which currency, which
      // clientReference and when it was created never change.
      const {
        uid: _uid,
        tenant_id: _tenant,
        type: _type,
        currency: _currency,
        client_reference: _reference,
        created_at: _created,
        ...changes
      } = fromOperation(op);
      const update = { ...changes, key_tenant: op.tenantId, key_uid: op.uid };
      const seen = versions.get(VERSIONED, op.uid);
      const changed =
        seen?.state != null && seen.updated_at != null
          ? await updateSeenOperation.affected(ctx, {
              ...update,
              seen_state: seen.state,
              seen_updated_at: seen.updated_at,
            })
          : affected(await updateOperation(trx, update, seen).executeTakeFirst());
      if (changed === 0) {
        await explainLostUpdate(
          async () =>
            (await trx
              .selectFrom("operations")
              .select("uid")
              .where("uid", "=", op.uid)
              .executeTakeFirst()) !== undefined,
          "operation",
        );
      }
      versions.remember(VERSIONED, op.uid, { state: op.state, updated_at: op.updatedAt });
    },

    async get(tenantId, uid) {
      const row = await getOperation.first(ctx, { tenantId, uid });
      return row ? seen(row) : null;
    },

    async getAny(uid) {
      const row = await trx.selectFrom("operations").selectAll().where("uid", "=", uid).executeTakeFirst();
      return row ? seen(row) : null;
    },

    async countMandateDebits(mandateUid, sinceIso) {
      const row = await trx
        .selectFrom("operations")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("mandate_uid", "=", mandateUid)
        .where("created_at", ">=", sinceIso)
        .where("state", "<>", "failed")
        .executeTakeFirstOrThrow();
      return row.n;
    },

    async findTopupsByIntentReference(intentReference) {
      const rows = await trx
        .selectFrom("operations")
        .selectAll()
        .where("intent_reference", "=", intentReference)
        .where("type", "=", "topup_c2b")
        .orderBy("uid", "desc")
        .execute();
      return rows.map(seen);
    },

    async railCodesAwaitingPayment() {
      // The literal predicate of the partial index operations_pending_topups_expiry (0001).
      const rows = await trx
        .selectFrom("operations")
        .select("provider")
        .where(sql<boolean>`type = 'topup_c2b' and state = 'pending_provider'`)
        .execute();
      const codes = rows.flatMap((r) => fromJsonOrNull<ProviderBlock>(r.provider)?.railCode ?? []);
      return [...new Set(codes)];
    },

    async listExpiredTopups(asOfIso, limit) {
      // Literal predicates, so both engines match the partial index they mirror.
      const rows = await trx
        .selectFrom("operations")
        .selectAll()
        .where(sql<boolean>`type = 'topup_c2b' and state = 'pending_provider'`)
        .where("expires_at", "<=", asOfIso)
        .orderBy("uid")
        .limit(Math.max(0, Math.trunc(limit)))
        .execute();
      return rows.map(seen);
    },

    async listProcessingPayouts(limit, afterUid) {
      // The literal predicate of the partial index operations_processing_payouts (0008).
      let query = trx
        .selectFrom("operations")
        .selectAll()
        .where(sql<boolean>`type = 'payout_b2c' and state = 'processing'`);
      if (afterUid !== undefined) query = query.where("uid", ">", afterUid);
      const rows = await query
        .orderBy("uid")
        .limit(Math.max(0, Math.trunc(limit)))
        .execute();
      return rows.map(seen);
    },

    async findByClientReference(tenantId, type, clientReference) {
      const row = await findByClientReference.first(ctx, { tenantId, type, clientReference });
      return row ? seen(row) : null;
    },

    async insertWithTimeline(op, timeline) {
      const rows = timeline.map(
        (e): Omit<Selectable<OperationTimelineTable>, "operation_uid"> => ({
          sequence_no: e.sequenceNo,
          from_state: e.fromState,
          to_state: e.toState,
          occurred_at: e.occurredAt,
          actor_type: e.actorType,
        }),
      );
      if (ctx.dialect === "postgres") {
        const events = await insertWithTimelinePg.affected(ctx, { op: fromOperation(op), timeline: rows });
        inserted(op, events, rows.length);
        return;
      }
      // SQLite: one statement each (a multi-row insert measured slower there: no round trip to save).
      await insert(op);
      for (const row of rows) await appendTimeline.execute(ctx, { operation_uid: op.uid, ...row });
    },

    async appendTimeline(e) {
      await appendTimeline.execute(ctx, {
        operation_uid: e.operationUid,
        sequence_no: e.sequenceNo,
        from_state: e.fromState,
        to_state: e.toState,
        occurred_at: e.occurredAt,
        actor_type: e.actorType,
      });
    },

    async timelineLength(operationUid) {
      const row = await timelineLength.first(ctx, { operationUid });
      return row?.n ?? 0;
    },

    async timeline(operationUid) {
      const rows = await trx
        .selectFrom("operation_timeline")
        .selectAll()
        .where("operation_uid", "=", operationUid)
        .orderBy("sequence_no")
        .execute();
      return rows.map(
        (r): TimelineEvent => ({
          operationUid: r.operation_uid,
          sequenceNo: r.sequence_no,
          fromState: r.from_state as TimelineEvent["fromState"],
          toState: r.to_state as TimelineEvent["toState"],
          occurredAt: r.occurred_at,
          actorType: r.actor_type as TimelineEvent["actorType"],
        }),
      );
    },

    async list(filter, page) {
      const keys = sortKeys(page);
      const { limit, offset } = pageWindow(page);
      const base = () => narrow(trx.selectFrom("operations").selectAll(), filter);

      let rows: Selectable<OperationsTable>[];
      let total: number;
      if (filter.walletUid === undefined) {
        rows = await sorted(base(), keys).limit(limit).offset(offset).execute();
        const counted = await narrow(trx.selectFrom("operations"), filter)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow();
        total = counted.n;
      } else {
        // "source OR destination" cannot walk one index in order, so each side walks its own
        // (wallet, created_at, uid) index and the compound ORDER BY merges the two ordered runs
        // without a sort; the second side skips rows the first already has. The total is the sum
        // of the two sides' counts, each on its own index.
        const w = filter.walletUid;
        const outbound = (q: ReturnType<typeof base>) => q.where("source_wallet_uid", "=", w);
        const inbound = <O>(q: SelectQueryBuilder<Database, "operations", O>) =>
          q
            .where("destination_wallet_uid", "=", w)
            .where((eb) => eb.or([eb("source_wallet_uid", "is", null), eb("source_wallet_uid", "<>", w)]));
        let merged = outbound(base()).unionAll(inbound(base()));
        for (const k of keys) merged = merged.orderBy(k.column, k.direction);
        rows = await merged.limit(limit).offset(offset).execute();
        const count = async <O>(q: SelectQueryBuilder<Database, "operations", O>) =>
          (await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n;
        total =
          (await count(narrow(trx.selectFrom("operations"), filter).where("source_wallet_uid", "=", w))) +
          (await count(inbound(narrow(trx.selectFrom("operations"), filter))));
      }
      return { data: rows.map(toOperation), total };
    },

    sumForWallet,

    async sumForWalletUnlessReferenced(reference, walletUid, sinceIso, direction) {
      if (ctx.dialect !== "postgres") {
        // In process (SQLite): the two reads one after the other, no round trip to save.
        if (await findByClientReference.first(ctx, reference)) return null;
        return sumForWallet(walletUid, sinceIso, direction);
      }
      // Postgres: one statement, so one round trip and one snapshot; the sum is not computed when
      // the clientReference is taken.
      const template = (
        isUtcMidnight(sinceIso) ? daysUnlessReferencedTemplates : sumUnlessReferencedTemplates
      )[direction];
      const row = await template.first(ctx, { ...reference, walletUid, sinceIso });
      return row === undefined ? 0 : row.total;
    },
  };

  async function sumForWallet(walletUid: string, sinceIso: string, direction: SumDirection) {
    // The running totals hold whole UTC days of funds_moved_at (wallet_day_totals, kept by
    // triggers): take the days from sinceIso's date on. At a midnight (the limit checks' day and
    // month starts) that is all: one to 31 rows, however busy the wallet. From any other instant,
    // take back out what counted that first day before sinceIso, read from the operations (a scan
    // of the wallet's operations: no index orders them by funds_moved_at). Exact for any string:
    // funds_moved_at >= sinceIso holds exactly for the rows whose first ten characters are >=
    // sinceIso's, minus those in [those ten characters, sinceIso).
    const template = isUtcMidnight(sinceIso) ? daysTemplates[direction] : sumTemplates[direction];
    const row = await template.first(ctx, { walletUid, sinceIso });
    return row?.total ?? 0;
  }
}

/** A canonical UTC midnight (`YYYY-MM-DDT00:00:00.000Z`): nothing of its day comes before it. */
const isUtcMidnight = (iso: string) => /^\d{4}-\d\d-\d\dT00:00:00\.000Z$/.test(iso);

/** The totals of the days from sinceIso's date on. */
function daysQuery(
  db: Kysely<Database>,
  p: { walletUid: string; sinceIso: string },
  direction: SumDirection,
) {
  return db
    .selectFrom("wallet_day_totals")
    .select((eb) => eb.fn.sum<number>(totalColumns[direction]).as("total"))
    .where("wallet_uid", "=", p.walletUid)
    .where("day", ">=", sql<string>`substr(${p.sinceIso}, 1, 10)`);
}

/**
 * sumForWallet's value: from a midnight, the days alone; from any other instant, the days less
 * what counted that first day before sinceIso.
 */
function sumExpression(
  db: Kysely<Database>,
  p: { walletUid: string; sinceIso: string },
  direction: SumDirection,
  fromMidnight: boolean,
) {
  const days = daysQuery(db, p, direction);
  if (fromMidnight) return sql<number>`coalesce((${days}), 0)`;
  const firstDay = sql<string>`substr(${p.sinceIso}, 1, 10)`;
  const earlier = counted(db.selectFrom("operations"))
    .select((eb) => eb.fn.sum<number>("amount_minor").as("total"))
    .where(touching(p.walletUid, direction))
    .where("funds_moved_at", ">=", firstDay)
    .where("funds_moved_at", "<", p.sinceIso);
  return sql<number>`coalesce((${days}), 0) - coalesce((${earlier}), 0)`;
}

/** sumForWallet's statement, one per direction (the direction changes the SQL, the values do not). */
function sumForWalletQuery(direction: SumDirection) {
  return queryTemplate((db, p: { walletUid: string; sinceIso: string }) =>
    db.selectNoFrom(sumExpression(db, p, direction, false).as("total")),
  );
}

/** sumForWallet from a midnight: the days alone. */
function sumFromMidnightQuery(direction: SumDirection) {
  return queryTemplate((db, p: { walletUid: string; sinceIso: string }) =>
    db.selectNoFrom(sumExpression(db, p, direction, true).as("total")),
  );
}

/**
 * Postgres: sumForWalletUnlessReferenced's statement. Null when an operation of the tenant holds
 * the clientReference for that type (the unique index's lookup, as findByClientReference), else
 * the sum, which is then the only part evaluated.
 */
function sumUnlessReferencedQuery(direction: SumDirection, fromMidnight: boolean) {
  return queryTemplate(
    (
      db,
      p: { tenantId: string; type: string; clientReference: string; walletUid: string; sinceIso: string },
    ) => {
      const taken = db
        .selectFrom("operations")
        .select(sql<number>`1`.as("taken"))
        .where("tenant_id", "=", p.tenantId)
        .where("type", "=", p.type)
        .where("client_reference", "=", p.clientReference);
      const sum = sumExpression(db, p, direction, fromMidnight);
      return db.selectNoFrom(
        sql<number | null>`case when exists (${taken}) then null else ${sum} end`.as("total"),
      );
    },
  );
}

/** The column of wallet_day_totals holding each direction's amounts. */
const totalColumns = {
  inbound: "inbound_minor",
  outbound: "outbound_minor",
  both: "both_minor",
} as const satisfies Record<SumDirection, keyof WalletDayTotalsTable>;

type SumDirection = Parameters<OperationRepository["sumForWallet"]>[2];

const sumTemplates = {
  inbound: sumForWalletQuery("inbound"),
  outbound: sumForWalletQuery("outbound"),
  both: sumForWalletQuery("both"),
};

const daysTemplates = {
  inbound: sumFromMidnightQuery("inbound"),
  outbound: sumFromMidnightQuery("outbound"),
  both: sumFromMidnightQuery("both"),
};

const sumUnlessReferencedTemplates = {
  inbound: sumUnlessReferencedQuery("inbound", false),
  outbound: sumUnlessReferencedQuery("outbound", false),
  both: sumUnlessReferencedQuery("both", false),
};

const daysUnlessReferencedTemplates = {
  inbound: sumUnlessReferencedQuery("inbound", true),
  outbound: sumUnlessReferencedQuery("outbound", true),
  both: sumUnlessReferencedQuery("both", true),
};

/** Operations that count toward the limits: they moved funds and did not fail. */
function counted<O>(q: SelectQueryBuilder<Database, "operations", O>) {
  return q.where("state", "<>", "failed").where("funds_moved_at", "is not", null);
}

/** Operations into, out of, or through (once) the wallet. */
function touching(walletUid: string, direction: SumDirection) {
  return (eb: ExpressionBuilder<Database, "operations">) =>
    direction === "inbound"
      ? eb("destination_wallet_uid", "=", walletUid)
      : direction === "outbound"
        ? eb("source_wallet_uid", "=", walletUid)
        : eb.or([eb("source_wallet_uid", "=", walletUid), eb("destination_wallet_uid", "=", walletUid)]);
}

function fromOperation(op: Operation): Selectable<OperationsTable> {
  return {
    uid: op.uid,
    tenant_id: op.tenantId,
    type: op.type,
    state: op.state,
    amount_minor: op.amountMinor,
    fee_minor: op.feeMinor,
    tax_minor: op.taxMinor,
    currency: op.currency,
    client_reference: op.clientReference,
    customer_uid: op.customerUid,
    source_wallet_uid: op.sourceWalletUid,
    destination_wallet_uid: op.destinationWalletUid,
    counterparty_hint: op.counterpartyHint,
    fee_breakdown: toJson(op.feeBreakdown),
    provider: toJsonOrNull(op.provider),
    mandate_uid: op.mandateUid,
    intent_reference: op.intentReference,
    expires_at: op.expiresAt,
    details: toJsonOrNull(op.details),
    metadata: toJsonOrNull(op.metadata),
    created_at: op.createdAt,
    completed_at: op.completedAt,
    funds_moved_at: op.fundsMovedAt,
    updated_at: op.updatedAt,
  };
}

function toOperation(r: Selectable<OperationsTable>): Operation {
  return {
    uid: r.uid,
    tenantId: r.tenant_id,
    type: r.type as Operation["type"],
    state: r.state as Operation["state"],
    amountMinor: r.amount_minor,
    feeMinor: r.fee_minor,
    taxMinor: r.tax_minor,
    currency: r.currency,
    clientReference: r.client_reference,
    customerUid: r.customer_uid,
    sourceWalletUid: r.source_wallet_uid,
    destinationWalletUid: r.destination_wallet_uid,
    counterpartyHint: r.counterparty_hint,
    feeBreakdown: fromJson(r.fee_breakdown),
    provider: fromJsonOrNull(r.provider),
    mandateUid: r.mandate_uid,
    intentReference: r.intent_reference,
    expiresAt: r.expires_at,
    details: fromJsonOrNull(r.details),
    metadata: fromJsonOrNull(r.metadata),
    createdAt: r.created_at,
    completedAt: r.completed_at,
    fundsMovedAt: r.funds_moved_at,
    updatedAt: r.updated_at,
  };
}
