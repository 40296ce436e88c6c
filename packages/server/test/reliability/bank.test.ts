import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFreshPostgresDatabase, postgresUrlFor } from "@wallet/persistence";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditLedger, expectConservation, expectLedgerMatchesOperations } from "./support/ledger-audit.js";
import {
  ensureServerBuilt,
  killStartedServers,
  type ServerProcess,
  startServerProcess,
} from "./support/server-process.js";
import {
  type Credentials,
  creditBody,
  debitBody,
  type HttpAnswer,
  mandateBody,
  mandateDebitBody,
  newCredentials,
  onboardingBody,
  type Party,
  payoutBody,
  RAIL,
  reliabilityConfig,
  serverEnv,
  TENANT_ID,
  WalletHttp,
  writeConfig,
} from "./support/wallet-http.js";

/**
 * Jepsen's bank test, on the wallet: three `wallet serve` processes behind one fresh Postgres
 * database, random concurrent credits, debits (with assertion and under a mandate), payouts and
 * operator payout results on four hot wallets for a fixed time, round-robin over the processes,
 * with duplicates of the same request (same Idempotency-Key, same bytes) sent at once to
 * different processes. Afterwards the database must hold exactly the acknowledged operations,
 * once each, and every cent funded.
 */
const pgUrl = postgresUrlFor("bank test");

const LOAD_MS = 12_000;
const WORKERS = 12;
const PROCESSES = 3;
const FUNDED_MINOR = 50_000_000;
const WALLETS = 4;

type Kind = "credit" | "payout" | "debit" | "mandateDebit";
interface Write {
  kind: Kind;
  key: string;
  clientReference: string;
  answers: HttpAnswer[];
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  await killStartedServers();
  for (const c of cleanups.reverse()) await c();
});

describe.skipIf(pgUrl === null)("bank test: three server processes on one Postgres", () => {
  let creds: Credentials;
  let http: WalletHttp;
  let servers: ServerProcess[] = [];
  let databaseUrl = "";

  beforeAll(async () => {
    await ensureServerBuilt();
    const fresh = await createFreshPostgresDatabase(pgUrl ?? "");
    cleanups.push(() => fresh.drop());
    databaseUrl = fresh.url;
    const dir = mkdtempSync(join(tmpdir(), "wallet-bank-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    creds = newCredentials();
    http = new WalletHttp(creds);
    const configPath = writeConfig(dir, reliabilityConfig(creds));
    // Started together: migrations and seeding must be safe from several processes at once.
    servers = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) =>
        startServerProcess({
          configPath,
          databaseUrl,
          dataDir: join(dir, `data-${i}`),
          env: serverEnv(creds),
        }),
      ),
    );
  }, 120_000);

  it("conserves money and executes each acknowledged write exactly once", { timeout: 120_000 }, async () => {
    const [a] = servers;
    if (a === undefined) throw new Error("no server");
    expect(
      (
        await http.admin(a.url, "POST", `/tenants/${TENANT_ID}/prefund`, {
          amountMinor: FUNDED_MINOR,
          currency: "KES",
        })
      ).status,
    ).toBe(200);

    const parties: (Party & { mandateUid: string })[] = [];
    for (let i = 0; i < WALLETS; i++) {
      const onboarded = await http.signed(a.url, "POST", "/customers", onboardingBody(`+2547100000${i}`), {
        idempotencyKey: `onboard-${i}`,
      });
      expect(onboarded.status, onboarded.text).toBe(201);
      const c = onboarded.json();
      const party: Party = {
        customerUid: c.uid,
        walletUid: c.walletUid,
        msisdnUid: c.identifiers.find((x: { type: string }) => x.type === "msisdn").uid,
      };
      const mandate = await http.signed(
        a.url,
        "POST",
        "/mandates",
        mandateBody(party, 100_000, `mandate-${i}`),
        {
          idempotencyKey: `mandate-${i}`,
        },
      );
      expect(mandate.status, mandate.text).toBe(201);
      parties.push({ ...party, mandateUid: mandate.json().uid });
    }
    const walletUids = parties.map((p) => p.walletUid);

    // --- The load ---
    const writes: Write[] = [];
    const duplicates: Write[] = [];
    const results: { uid: string; outcome: string; answer: HttpAnswer }[] = [];
    const processingPayouts: string[] = [];
    let seq = 0;
    let turn = 0;
    const nextServer = () => servers[turn++ % servers.length] as ServerProcess;
    const rnd = (n: number) => Math.floor(Math.random() * n);

    const build = (kind: Kind, p: (typeof parties)[number], amount: number, ref: string) =>
      kind === "credit"
        ? { path: "/wallet-credits", body: creditBody(p, amount, ref) }
        : kind === "payout"
          ? { path: "/payouts", body: payoutBody(p, amount, ref) }
          : kind === "debit"
            ? { path: "/wallet-debits", body: debitBody(p, p.mandateUid, amount, ref) }
            : { path: `/mandates/${p.mandateUid}/debits`, body: mandateDebitBody(p, amount, ref) };

    const send = async (w: Write, path: string, body: unknown, copies: number) => {
      const answers = await Promise.all(
        Array.from({ length: copies }, () =>
          http.signed(nextServer().url, "POST", path, body, { idempotencyKey: w.key }),
        ),
      );
      w.answers.push(...answers);
      for (const answer of answers) {
        if (w.kind === "payout" && answer.status === 202) {
          const uid = answer.json().uid;
          if (!processingPayouts.includes(uid)) processingPayouts.push(uid);
        }
      }
    };

    const deadline = Date.now() + LOAD_MS;
    const worker = async () => {
      while (Date.now() < deadline) {
        const roll = rnd(100);
        if (roll < 15 && processingPayouts.length > 0) {
          const uid = processingPayouts[rnd(processingPayouts.length)] as string;
          const outcome = ["confirmed", "failed", "uncertain"][rnd(3)] as string;
          const answer = await http.admin(nextServer().url, "POST", `/rails/${RAIL}/payout-results`, {
            operationUid: uid,
            outcome,
          });
          results.push({ uid, outcome, answer });
          if (answer.status === 200 && outcome !== "uncertain") {
            const at = processingPayouts.indexOf(uid);
            if (at >= 0) processingPayouts.splice(at, 1);
          }
          continue;
        }
        const kind: Kind = roll < 42 ? "credit" : roll < 70 ? "payout" : roll < 85 ? "mandateDebit" : "debit";
        const p = parties[rnd(parties.length)] as (typeof parties)[number];
        const amount =
          kind === "credit" ? 1 + rnd(50_000) : kind === "payout" ? 1 + rnd(60_000) : 1 + rnd(100_000);
        const ref = `bank-${kind}-${++seq}`;
        const w: Write = { kind, key: `key-${ref}`, clientReference: ref, answers: [] };
        const { path, body } = build(kind, p, amount, ref);
        // One write in ten goes to three processes at once under one key.
        const copies = rnd(10) === 0 ? 3 : 1;
        writes.push(w);
        if (copies > 1) duplicates.push(w);
        await send(w, path, body, copies);
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));

    // --- What the clients saw ---
    const all = [...writes.flatMap((w) => w.answers), ...results.map((r) => r.answer)];
    const byStatus = new Map<number, number>();
    for (const answer of all) byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
    console.info(
      `bank test: ${writes.length} writes (${duplicates.length} sent three times at once), ${results.length} payout results in ${LOAD_MS} ms; statuses ${JSON.stringify(Object.fromEntries(byStatus))}`,
    );
    const failures = all.filter((x) => x.status === 0 || x.status >= 500);
    expect(failures.map((x) => `${x.status} ${x.error ?? x.text}`)).toEqual([]);
    for (const answer of all.filter((x) => x.status >= 400)) {
      const body = answer.json();
      expect(
        Object.keys(body)
          .filter((k) => k !== "details")
          .sort(),
      ).toEqual(["error", "message"]);
    }

    // Each key: one execution; the copies replayed its answer or found it still running (409).
    const acknowledged = new Map<string, Write>();
    for (const w of writes) {
      const successes = w.answers.filter((x) => x.status < 300);
      const uids = new Set(successes.map((x) => x.json().uid));
      expect(
        uids.size,
        `${w.key}: ${w.answers.map((x) => `${x.status} ${x.text}`).join(" | ")}`,
      ).toBeLessThanOrEqual(1);
      const first = w.answers.find((x) => x.status !== 409 || x.json().error !== "IdempotencyKeyInUse");
      for (const x of w.answers) {
        if (x === first) continue;
        const inUse = x.status === 409 && x.json().error === "IdempotencyKeyInUse";
        expect(inUse || (x.status === first?.status && x.text === first.text), `${w.key} copies`).toBe(true);
      }
      const uid = [...uids][0];
      if (uid !== undefined) acknowledged.set(uid, w);
    }

    // Every acknowledged operation is readable on every process.
    for (const [uid, w] of acknowledged) {
      const read = await http.signed(nextServer().url, "GET", `/operations/${uid}`);
      expect(read.status, `${w.kind} ${uid}`).toBe(200);
      expect(read.json().clientReference).toBe(w.clientReference);
    }

    // --- What the database holds ---
    const audit = await auditLedger(databaseUrl, walletUids);
    expectConservation(audit, FUNDED_MINOR, walletUids);
    expectLedgerMatchesOperations(audit, FUNDED_MINOR);
    // Exactly the acknowledged operations, once each: nothing lost, nothing invented.
    expect(audit.operations.map((o) => o.uid).sort()).toEqual([...acknowledged.keys()].sort());
    for (const op of audit.operations)
      expect(acknowledged.get(op.uid)?.clientReference).toBe(op.clientReference);
    // Duplicates sent at once to three processes: one operation each (when any was accepted).
    for (const w of duplicates) {
      expect(
        audit.operations.filter((o) => o.clientReference === w.clientReference).length,
      ).toBeLessThanOrEqual(1);
    }
    // A payout result the operator got 200 for is the payout's final state (or it was uncertain).
    for (const r of results.filter((x) => x.answer.status === 200 && x.outcome !== "uncertain")) {
      const op = audit.operations.find((o) => o.uid === r.uid);
      expect(op?.state, `${r.outcome} ${r.uid}`).toBe(r.outcome === "confirmed" ? "completed" : "failed");
    }
  });
});
