import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { auditLedger, expectConservation, expectLedgerMatchesOperations } from "./ledger-audit.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";
import {
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
} from "./wallet-http.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rnd = (n: number) => Math.floor(Math.random() * n);

const FUNDED_MINOR = 50_000_000;

interface SentWrite {
  kind: "onboard" | "credit" | "payout" | "debit" | "mandateDebit";
  path: string;
  key: string;
  body: unknown;
  clientReference: string;
  answer: HttpAnswer;
}

export interface CrashScenarioOptions {
  databaseUrl: string;
  crashes: number;
  workers: number;
  /** Longest wait for the outbox to drain after the last restart (a delivery leased by a killed process is retried once its lease, `webhooks.leaseMs`, runs out). */
  drainTimeoutMs: number;
}

/**
 * A write load against one `wallet serve` process, killed with SIGKILL at a random moment
 * `crashes` times and restarted on the same database each time. Then: every 2xx write is still
 * there (GET /operations/{uid}, GET /customers/{uid}); writes whose answer was lost are retried
 * under their Idempotency-Key (the stored answer or one execution now); the database holds no
 * operation nobody asked for; money is conserved and agrees with the operations; and every
 * outbox event reached the webhook receiver at least once.
 */
export async function runCrashScenario(options: CrashScenarioOptions): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "wallet-crash-"));
  const receiver = await startWebhookReceiver(0.1);
  const creds = newCredentials();
  const http = new WalletHttp(creds);
  const configPath = writeConfig(dir, reliabilityConfig(creds, { webhookUrl: receiver.url }));
  const start = () =>
    startServerProcess({
      configPath,
      databaseUrl: options.databaseUrl,
      dataDir: join(dir, "data"),
      env: serverEnv(creds),
    });
  const began = Date.now();
  const phase = (what: string) => console.info(`crash scenario +${Date.now() - began} ms: ${what}`);
  let server: ServerProcess = await start();
  try {
    expect(
      (
        await http.admin(server.url, "POST", `/tenants/${TENANT_ID}/prefund`, {
          amountMinor: FUNDED_MINOR,
          currency: "KES",
        })
      ).status,
    ).toBe(200);
    const parties: (Party & { mandateUid: string })[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await http.signed(server.url, "POST", "/customers", onboardingBody(`+2547200000${i}`), {
        idempotencyKey: `seed-onboard-${i}`,
      });
      expect(c.status, c.text).toBe(201);
      const view = c.json();
      const party: Party = {
        customerUid: view.uid,
        walletUid: view.walletUid,
        msisdnUid: view.identifiers.find((x: { type: string }) => x.type === "msisdn").uid,
      };
      const m = await http.signed(
        server.url,
        "POST",
        "/mandates",
        mandateBody(party, 80_000, `seed-mandate-${i}`),
        {
          idempotencyKey: `seed-mandate-${i}`,
        },
      );
      expect(m.status, m.text).toBe(201);
      parties.push({ ...party, mandateUid: m.json().uid });
      const credit = await http.signed(
        server.url,
        "POST",
        "/wallet-credits",
        creditBody(party, 300_000, `seed-credit-${i}`),
        {
          idempotencyKey: `seed-credit-${i}`,
        },
      );
      expect(credit.status, credit.text).toBe(201);
    }
    const walletUids = parties.map((p) => p.walletUid);

    const sent: SentWrite[] = [];
    const payoutResults: { uid: string; outcome: string; answer: HttpAnswer }[] = [];
    let seq = 0;
    const load = async (until: () => boolean) => {
      const worker = async () => {
        while (!until()) {
          const target = server;
          const roll = rnd(100);
          const payouts = sent.filter((w) => w.kind === "payout" && w.answer.status === 202);
          if (roll < 10 && payouts.length > 0) {
            const uid = (payouts[rnd(payouts.length)] as SentWrite).answer.json().uid;
            const outcome = ["confirmed", "failed", "uncertain"][rnd(3)] as string;
            const answer = await http.admin(target.url, "POST", `/rails/${RAIL}/payout-results`, {
              operationUid: uid,
              outcome,
            });
            payoutResults.push({ uid, outcome, answer });
            continue;
          }
          const p = parties[rnd(parties.length)] as (typeof parties)[number];
          const ref = `crash-${++seq}`;
          const kind: SentWrite["kind"] =
            roll < 15
              ? "onboard"
              : roll < 45
                ? "credit"
                : roll < 70
                  ? "payout"
                  : roll < 85
                    ? "mandateDebit"
                    : "debit";
          const amount = 1 + rnd(40_000);
          const [path, body] =
            kind === "onboard"
              ? ["/customers", onboardingBody(`+2547${String(3_000_000 + seq).padStart(8, "0")}`)]
              : kind === "credit"
                ? ["/wallet-credits", creditBody(p, amount, ref)]
                : kind === "payout"
                  ? ["/payouts", payoutBody(p, amount, ref)]
                  : kind === "debit"
                    ? ["/wallet-debits", debitBody(p, p.mandateUid, amount, ref)]
                    : [`/mandates/${p.mandateUid}/debits`, mandateDebitBody(p, amount, ref)];
          const key = `key-${ref}`;
          const answer = await http.signed(target.url, "POST", path, body, {
            idempotencyKey: key,
            timeoutMs: 15_000,
          });
          sent.push({ kind, path, key, body, clientReference: ref, answer });
          // The process is gone: stop until it is back.
          if (answer.status === 0) return;
        }
      };
      await Promise.all(Array.from({ length: options.workers }, worker));
    };

    for (let crash = 0; crash < options.crashes; crash++) {
      let stop = false;
      const running = load(() => stop);
      await sleep(300 + rnd(1_700));
      await server.kill("SIGKILL");
      stop = true;
      await running;
      server = await start();
      phase(`restarted after kill ${crash + 1}`);
    }
    const settle = Date.now() + 1_000;
    await load(() => Date.now() > settle);

    phase("load done");
    // --- Nothing acknowledged is lost ---
    const statuses = new Map<number, number>();
    for (const w of sent) statuses.set(w.answer.status, (statuses.get(w.answer.status) ?? 0) + 1);
    const failures = sent
      .filter((w) => w.answer.status >= 500)
      .map((w) => `${w.answer.status} ${w.answer.text}`);
    expect(failures).toEqual([]);
    const lost = sent.filter((w) => w.answer.status === 0);
    // Retried under the same key: the stored answer if it had committed, one execution if not, or
    // 409 while the dead request's claim holds (60 s): its outcome stays unknown.
    let inUse = 0;
    for (const w of lost) {
      w.answer = await http.signed(server.url, "POST", w.path, w.body, { idempotencyKey: w.key });
      expect(w.answer.status, w.answer.text).toBeGreaterThan(0);
      expect(w.answer.status, w.answer.text).toBeLessThan(500);
      if (w.answer.status === 409 && w.answer.json().error === "IdempotencyKeyInUse") inUse++;
    }
    console.info(
      `crash scenario: ${sent.length} writes over ${options.crashes} kills, ${lost.length} answers lost to a kill (${inUse} still claimed); first answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    const acknowledged = sent.filter((w) => w.answer.status >= 200 && w.answer.status < 300);
    for (const w of acknowledged) {
      const uid = w.answer.json().uid;
      const read = await http.signed(
        server.url,
        "GET",
        w.kind === "onboard" ? `/customers/${uid}` : `/operations/${uid}`,
      );
      expect(read.status, `${w.kind} ${uid} survived`).toBe(200);
    }

    // --- The ledger ---
    const audit = await auditLedger(options.databaseUrl, walletUids);
    expectConservation(audit, FUNDED_MINOR, walletUids);
    expectLedgerMatchesOperations(audit, FUNDED_MINOR);
    const ackedUids = new Set(
      acknowledged.filter((w) => w.kind !== "onboard").map((w) => w.answer.json().uid),
    );
    const unknownRefs = new Set(
      sent.filter((w) => !(w.answer.status >= 200 && w.answer.status < 300)).map((w) => w.clientReference),
    );
    for (const uid of ackedUids)
      expect(
        audit.operations.some((o) => o.uid === uid),
        `operation ${uid}`,
      ).toBe(true);
    for (const op of audit.operations) {
      // Seeded credits aside, every operation is an acknowledged write or one whose answer was lost.
      const known = ackedUids.has(op.uid) || (op.clientReference ?? "").startsWith("seed-");
      expect(
        known || unknownRefs.has(op.clientReference ?? ""),
        `${op.type} ${op.clientReference} was asked for`,
      ).toBe(true);
    }
    for (const r of payoutResults.filter((x) => x.answer.status === 200 && x.outcome !== "uncertain")) {
      const op = audit.operations.find((o) => o.uid === r.uid);
      expect(op?.state, `payout result ${r.outcome} survived`).toBe(
        r.outcome === "confirmed" ? "completed" : "failed",
      );
    }

    phase("ledger checked");
    // --- Every outbox event is delivered at least once after the restarts ---
    const deadline = Date.now() + options.drainTimeoutMs;
    let missing: string[] = [];
    for (;;) {
      const outbox = (await auditLedger(options.databaseUrl, [])).outbox;
      missing = outbox.map((e) => e.dedupKey).filter((k) => !receiver.received.has(k));
      const unknown = [...receiver.received.keys()].filter((k) => !outbox.some((e) => e.dedupKey === k));
      expect(unknown, "events received that the outbox never held").toEqual([]);
      if (missing.length === 0) {
        phase("outbox drained");
        console.info(
          `crash scenario: all ${outbox.length} outbox events delivered (${[...receiver.received.values()].reduce((a, b) => a + b, 0)} deliveries)`,
        );
        break;
      }
      if (Date.now() > deadline) break;
      await sleep(500);
    }
    expect(missing, "outbox events never delivered").toEqual([]);
  } finally {
    await server.kill("SIGKILL");
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
