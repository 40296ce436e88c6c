// Baseline: raw better-sqlite3 doing a credit's statements, one transaction per credit, on the real
// schema (migrated by @wallet/persistence) with the store's pragmas. No Kysely, no HTTP, no
// signature: what the database alone costs per credit on this machine.
import { randomBytes } from "node:crypto";
import { BENCH_CURRENCY, BENCH_PREFUND_MINOR, BENCH_TENANT_ID } from "../lib/bench-tenant.mjs";
import { serveParent } from "../lib/child.mjs";
import { importFrom } from "../lib/resolve.mjs";
import { percentile } from "../lib/stats.mjs";

const { createSqliteStore } = await importFrom("server", "@wallet/persistence");
const { default: Database } = await importFrom("persistence", "better-sqlite3");

let db;
serveParent({
  async setup({ filename, wallets }) {
    const store = createSqliteStore({ filename });
    await store.migrate();
    await store.close();
    db = new Database(filename);
    db.defaultSafeIntegers(true);
    db.pragma("busy_timeout = 5000");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    const at = new Date().toISOString();
    const walletUids = [];
    db.transaction(() => {
      db.prepare(
        `insert into tenants (id, name, status, scopes, ip_allowlist, approved_profiles, default_profile,
           approved_kyc_levels, approved_rails, rate_limit, webhook)
         values (?, 'Bench', 'active', '[]', '[]', '[]', null, '[]', '[]', '{}', ?)`,
      ).run(BENCH_TENANT_ID, JSON.stringify({ url: "http://127.0.0.1:9/hooks", enabled: true, events: [] }));
      db.prepare(
        "insert into accounts (account_key, currency, balance_minor, updated_at) values (?, ?, ?, ?)",
      ).run(`tenant:${BENCH_TENANT_ID}:prefund`, BENCH_CURRENCY, BigInt(BENCH_PREFUND_MINOR), at);
      const customer = db.prepare(
        `insert into customers (uid, tenant_id, status, customer_type, display_name, preferred_locale, created_at)
         values (?, ?, 'active', 'person', 'Bench', 'en', ?)`,
      );
      const wallet = db.prepare(
        `insert into wallets (uid, tenant_id, customer_uid, purpose, status, currency, rules_profile_key,
           kyc_tier_code, created_at) values (?, ?, ?, 'main', 'active', ?, 'standard_kes', 'bench', ?)`,
      );
      for (let n = 0; n < wallets; n++) {
        const c = `cus_raw_${n}`;
        const w = `wal_raw_${n}`;
        customer.run(c, BENCH_TENANT_ID, at);
        wallet.run(w, BENCH_TENANT_ID, c, BENCH_CURRENCY, at);
        walletUids.push([w, c]);
      }
    })();
    return { info: {}, walletUids, statements: prepareCredit(db) };
  },
  handlers: {
    run: ({ durationMs, runTag }, { walletUids, statements }) =>
      runCredits(statements, walletUids, durationMs, runTag),
  },
  close: () => db?.close(),
});

/**
 * The statements a signed credit writes and reads, in the ledger's order, all in one transaction:
 * remember the signature (replay guard), claim the Idempotency-Key, then creditWallet: read wallet, customer and clientReference; ensure and read the three accounts;
 * the daily sum for the limits; insert the operation and its first timeline event; the journal,
 * its two lines and the two balance updates; the completion (timeline read, update, event); the
 * outbox event; the stored response.
 */
function prepareCredit(db) {
  const s = (sql) => db.prepare(sql);
  return {
    begin: s("begin immediate"),
    commit: s("commit"),
    wallet: s("select * from wallets where tenant_id = ? and uid = ?"),
    customer: s("select * from customers where tenant_id = ? and uid = ?"),
    byReference: s("select * from operations where tenant_id = ? and type = ? and client_reference = ?"),
    ensureAccounts: s(
      `insert into accounts (account_key, currency, balance_minor, updated_at)
       values (?, ?, 0, null), (?, ?, 0, null), (?, ?, 0, null) on conflict (account_key, currency) do nothing`,
    ),
    balances: s(
      `select account_key, balance_minor from accounts where currency = ? and account_key in (?, ?, ?)
       order by account_key`,
    ),
    dailySum: s(
      `select coalesce(sum(amount_minor), 0) as total from operations where state <> 'failed'
       and funds_moved_at is not null and created_at >= ? and (source_wallet_uid = ? or destination_wallet_uid = ?)`,
    ),
    insertOperation: s(
      `insert into operations (uid, tenant_id, type, state, amount_minor, fee_minor, tax_minor, currency,
         client_reference, customer_uid, source_wallet_uid, destination_wallet_uid, counterparty_hint,
         fee_breakdown, provider, mandate_uid, intent_reference, expires_at, details, metadata, created_at,
         completed_at, funds_moved_at, updated_at)
       values (?, ?, 'wallet_credit', 'created', ?, 0, 0, ?, ?, ?, null, ?, null, '[]', null, null, null, null,
         null, null, ?, null, ?, ?)
       on conflict (tenant_id, type, client_reference) where client_reference is not null do nothing`,
    ),
    insertTimeline: s(
      `insert into operation_timeline (operation_uid, sequence_no, from_state, to_state, occurred_at, actor_type)
       values (?, ?, ?, ?, ?, ?)`,
    ),
    insertJournal: s(
      `insert into journals (uid, tenant_id, operation_uid, currency, kind, created_at)
       values (?, ?, ?, ?, 'wallet_credit', ?)`,
    ),
    insertEntries: s(
      `insert into journal_entries (journal_uid, line_no, account_key, currency, amount_minor, label)
       values (?, 0, ?, ?, ?, 'amount'), (?, 1, ?, ?, ?, 'amount')`,
    ),
    applyDelta: s(
      "update accounts set balance_minor = balance_minor + ?, updated_at = ? where account_key = ? and currency = ?",
    ),
    timeline: s("select * from operation_timeline where operation_uid = ? order by sequence_no"),
    completeOperation: s(
      `update operations set state = 'completed', completed_at = ?, updated_at = ?
       where tenant_id = ? and uid = ? and state = 'created' and updated_at = ?`,
    ),
    nextSeq: s("select max(seq) as last from outbox_events where resource_uid = ?"),
    insertEvent: s(
      `insert into outbox_events (id, tenant_id, type, resource_uid, seq, dedup_key, occurred_at, body)
       values (?, ?, 'wallet_credit.completed', ?, ?, ?, ?, ?)`,
    ),
    rememberSignature: s(
      `insert into replay_guard (signature, seen_at, expires_at) values (?, ?, ?)
       on conflict (signature) do update set seen_at = excluded.seen_at, expires_at = excluded.expires_at
       where replay_guard.expires_at <= excluded.seen_at`,
    ),
    claimKey: s(
      `insert into idempotency_keys (tenant_id, key, request_hash, state, response_status, response_body,
         locked_until, created_at) values (?, ?, ?, 'in_progress', null, null, ?, ?)
       on conflict (tenant_id, key) do nothing`,
    ),
    storeResponse: s(
      `update idempotency_keys set state = 'completed', response_status = 201, response_body = ?
       where tenant_id = ? and key = ?`,
    ),
  };
}

function runCredits(st, walletUids, durationMs, runTag) {
  const prefund = `tenant:${BENCH_TENANT_ID}:prefund`;
  const amount = 100n;
  const salt = randomBytes(4).toString("hex");
  // Sized like the ledger's event and stored response (an operation view is ~700 bytes of JSON).
  const body = JSON.stringify({ padding: "x".repeat(700) });
  const latenciesUs = [];
  const started = performance.now();
  const endAt = started + durationMs;
  let n = 0;
  for (let t = started; t < endAt; ) {
    const [walletUid, customerUid] = walletUids[n % walletUids.length];
    const id = `${runTag}_${salt}_${n}`;
    const opUid = `op_${id}`;
    const at = new Date().toISOString();
    const dayStart = `${at.slice(0, 10)}T00:00:00.000Z`;
    const walletKey = `wallet:${walletUid}`;
    st.begin.run();
    st.rememberSignature.run(`sig_${id}`, at, at);
    st.claimKey.run(BENCH_TENANT_ID, id, "0".repeat(64), at, at);
    st.wallet.get(BENCH_TENANT_ID, walletUid);
    st.customer.get(BENCH_TENANT_ID, customerUid);
    st.byReference.get(BENCH_TENANT_ID, "wallet_credit", id);
    const keys = [prefund, walletKey, `${walletKey}:hold`].sort();
    st.ensureAccounts.run(keys[0], BENCH_CURRENCY, keys[1], BENCH_CURRENCY, keys[2], BENCH_CURRENCY);
    st.balances.all(BENCH_CURRENCY, ...keys);
    st.dailySum.get(dayStart, walletUid, walletUid);
    st.insertOperation.run(
      opUid,
      BENCH_TENANT_ID,
      amount,
      BENCH_CURRENCY,
      id,
      customerUid,
      walletUid,
      at,
      at,
      at,
    );
    st.insertTimeline.run(opUid, 0n, null, "created", at, "api_client");
    st.insertJournal.run(`jrn_${id}`, BENCH_TENANT_ID, opUid, BENCH_CURRENCY, at);
    st.insertEntries.run(
      `jrn_${id}`,
      prefund,
      BENCH_CURRENCY,
      -amount,
      `jrn_${id}`,
      walletKey,
      BENCH_CURRENCY,
      amount,
    );
    st.applyDelta.run(-amount, at, prefund, BENCH_CURRENCY);
    st.applyDelta.run(amount, at, walletKey, BENCH_CURRENCY);
    st.timeline.all(opUid);
    st.completeOperation.run(at, at, BENCH_TENANT_ID, opUid, at);
    st.insertTimeline.run(opUid, 1n, "created", "completed", at, "system");
    st.nextSeq.get(opUid);
    st.insertEvent.run(
      `evt_${id}`,
      BENCH_TENANT_ID,
      opUid,
      1n,
      `${opUid}:wallet_credit.completed:1`,
      at,
      body,
    );
    st.storeResponse.run(body, BENCH_TENANT_ID, id);
    st.commit.run();
    n++;
    const now = performance.now();
    latenciesUs.push(Math.round((now - t) * 1000));
    t = now;
  }
  const elapsedMs = performance.now() - started;
  latenciesUs.sort((a, b) => a - b);
  return {
    ok: n,
    failed: 0,
    elapsedMs,
    perSecond: (n / elapsedMs) * 1000,
    p50Ms: percentile(latenciesUs, 0.5) / 1000,
    p99Ms: percentile(latenciesUs, 0.99) / 1000,
  };
}
