import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildAssertion,
  type CustomerAuthentication,
  createWalletClient,
  type OnboardCustomerRequest,
  type ResponseEvent,
  verifyReceipt,
  verifyWebhook,
  WalletApiError,
  type WalletClient,
  type WalletEvent,
  type WalletEventType,
} from "../../src/index.js";
import { type RealServer, startRealServer } from "./real-server.js";

// The whole tenant journey through the SDK against the real standalone server (SQLite, real HTTP),
// with the webhooks it sends verified by the SDK's verifyWebhook on a real local receiver.

const WEBHOOK_SECRET = "whsec_client_e2e_0123456789abcdef";
const received: Array<{ event: WalletEvent; ok: boolean }> = [];
let receiver: Server;
let real: RealServer;
let client: WalletClient;
const responses: ResponseEvent[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      try {
        const event = verifyWebhook(new Uint8Array(Buffer.concat(chunks)), req.headers, [
          { kid: "wh1", secret: WEBHOOK_SECRET, createdAt: "2026-01-01T00:00:00.000Z" },
        ]);
        received.push({ event, ok: true });
        res.writeHead(204).end();
      } catch {
        res.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  real = await startRealServer((config) => {
    config.tenants[0].webhook = {
      url: hookUrl,
      enabled: true,
      events: [],
      secrets: [{ kid: "wh1", secret: WEBHOOK_SECRET, createdAt: "2026-01-01T00:00:00.000Z" }],
    };
  });
  client = createWalletClient({
    baseUrl: real.url,
    apiKey: real.tenant.apiKey,
    kid: real.tenant.kid,
    privateKeyPem: real.tenant.privateKeyPem,
    onResponse: (e) => responses.push(e),
  });
});

afterAll(async () => {
  await real?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

const onboarding = (msisdn: string): OnboardCustomerRequest => ({
  customerType: "person",
  displayName: "Ada Tenant",
  identifiers: [
    {
      class: "contact",
      type: "msisdn",
      value: msisdn,
      isPrimary: true,
      verificationStatus: "verified",
      verifiedAt: "2026-01-01T00:00:00.000Z",
    },
  ],
  kyc: {
    tierCode: "tier_1",
    reviewType: "onboarding",
    verificationSource: "sdk-test",
    sourceReference: `kyc-${msisdn}`,
    evidence: { method: "document" },
    riskRating: "low",
  },
  agreements: [
    {
      agreementType: "wallet_opening",
      documentType: "terms",
      documentVersion: "1",
      documentUri: "https://example.com/terms/1",
      documentHash: "a".repeat(64),
      acceptedAt: "2026-01-01T00:00:00.000Z",
      acceptedChannel: "mobile_app",
      evidence: { checkbox: true },
    },
  ],
});

const authOf = (customerUid: string, session: string): CustomerAuthentication => ({
  customerUid,
  factor1Type: "pin",
  factor2Type: "otp",
  channelCode: "mobile_app",
  sourceReference: session,
  authenticatedAt: new Date(Date.now() - 5_000),
});

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("the SDK against the real server", () => {
  it("onboards, credits, quotes, debits under a mandate, pays out, tops up, and reads it all back", async () => {
    expect(await client.health()).toMatchObject({ service: "wallet", status: "ok" });
    const document = await client.openApiDocument();
    expect(document.openapi).toBe("3.1.0");
    expect(Object.keys(document.paths)).toContain("/payouts");

    // Onboard: the main wallet can be credited at once.
    const customer = await client.customers.create(onboarding("+254711000001"));
    expect(customer.status).toBe("active");
    const msisdn = customer.identifiers.find((i) => i.type === "msisdn")!;
    const identifiers = await client.customers.identifiers.list(customer.uid);
    expect(identifiers.data.find((i) => i.uid === msisdn.uid)?.payoutEligible).toBe(true);
    const email = await client.customers.identifiers.create(customer.uid, {
      class: "contact",
      type: "email",
      value: "ada@example.com",
      verificationStatus: "pending",
    });
    expect(email.maskedValue).not.toContain("ada@");
    const verified = await client.customers.identifiers.update(customer.uid, email.uid, {
      verificationStatus: "verified",
      verifiedAt: new Date().toISOString(),
    });
    expect(verified.verificationStatus).toBe("verified");
    await client.customers.agreements.create(customer.uid, {
      agreementType: "privacy",
      documentType: "privacy_notice",
      documentVersion: "3",
      documentUri: "https://example.com/privacy/3",
      documentHash: "b".repeat(64),
      acceptedAt: new Date().toISOString(),
      acceptedChannel: "mobile_app",
      evidence: { checkbox: true },
    });
    expect((await client.customers.agreements.list(customer.uid)).data).toHaveLength(2);
    const kyc = await client.customers.kycVersions.create(customer.uid, {
      tierCode: "tier_1",
      reviewType: "periodic_review",
      verificationSource: "sdk-test",
      sourceReference: "review-1",
      evidence: { reviewer: "compliance" },
      riskRating: "low",
    });
    expect(kyc.state).toBe("pending");
    await real.admin("POST", `/kyc-versions/${kyc.uid}/decision`, { decision: "approved" });

    // Credit 5,000.00 from the prefund (funded by the operator).
    await real.admin("POST", "/tenants/demo/prefund", { amountMinor: 1_000_000, currency: "KES" });
    const walletUid = customer.walletUid;
    const credit = await client.walletCredits.create({
      walletUid,
      amountMinor: 500_000,
      currency: "KES",
      clientReference: "sdk-credit-1",
    });
    expect(credit).toMatchObject({ type: "wallet_credit", state: "completed", amountMinor: 500_000 });

    // Quote a payout; the quote's charges are what the payout then takes.
    const quote = await client.fees.quote({
      operationType: "payout_b2c",
      walletUid,
      amountMinor: 150_000,
      currency: "KES",
      railCode: "sandbox_mobile",
    });
    // DESIGN example schedule: 2,500 flat + 1.5 % levy = 4,750 fee; VAT 16 % of the flat fee = 400.
    expect(quote).toMatchObject({ feeMinor: 4_750, taxMinor: 400, totalMinor: 155_150 });

    // A mandate for POWERCO, then a debit with a fresh bound assertion and one on the mandate alone.
    const mandate = await client.mandates.create({
      customerUid: customer.uid,
      walletUid,
      beneficiaryEntityCode: "POWERCO",
      clientReference: "sdk-mandate-1",
      amountRule: "up_to",
      fixedOrMaxAmountMinor: 200_000,
      frequency: "ad_hoc",
      currency: "KES",
      validFrom: new Date(Date.now() - 60_000).toISOString(),
      agreement: {
        documentType: "mandate_terms",
        documentVersion: "1",
        documentUri: "https://example.com/mandate/1",
        documentHash: "c".repeat(64),
        acceptedAt: new Date().toISOString(),
        acceptedChannel: "mobile_app",
        evidence: { checkbox: true },
      },
      assertion: buildAssertion({ ...authOf(customer.uid, "sess-mandate"), route: "mandate" }),
    });
    expect(mandate.status).toBe("active");
    expect(await client.mandates.get(mandate.uid)).toEqual(mandate);

    const debitRequest = {
      walletUid,
      mandateUid: mandate.uid,
      amountMinor: 120_000, // above the two-factor threshold: the binding is required
      currency: "KES",
      clientReference: "sdk-debit-1",
    };
    const debit = await client.walletDebits.create({
      ...debitRequest,
      assertion: buildAssertion({
        ...authOf(customer.uid, "sess-debit"),
        route: "walletDebit",
        request: debitRequest,
      }),
    });
    expect(debit).toMatchObject({ type: "wallet_debit", state: "completed", amountMinor: 120_000 });
    const standing = await client.mandates.debit(mandate.uid, {
      walletUid,
      amountMinor: 10_000,
      currency: "KES",
      clientReference: "sdk-debit-2",
    });
    expect(standing.state).toBe("completed");

    // Payout (phase 1: 202 processing), then the rail's result through the operator API.
    const payoutRequest = {
      walletUid,
      destinationIdentifierUid: msisdn.uid,
      amountMinor: 150_000,
      currency: "KES",
      railCode: "sandbox_mobile",
      clientReference: "sdk-payout-1",
      feeQuoteId: quote.quoteId,
    };
    const payout = await client.payouts.create({
      ...payoutRequest,
      assertion: buildAssertion({
        ...authOf(customer.uid, "sess-payout"),
        route: "payout",
        request: payoutRequest,
      }),
    });
    expect(payout).toMatchObject({ type: "payout_b2c", state: "processing", feeMinor: 4_750, taxMinor: 400 });
    expect(responses.at(-1)?.status).toBe(202);
    await real.admin("POST", "/rails/sandbox_mobile/payout-results", {
      operationUid: payout.uid,
      outcome: "confirmed",
      providerReference: "prov-sdk-1",
    });
    const settled = await client.operations.get(payout.uid);
    expect(settled.state).toBe("completed");
    expect(settled.provider).toMatchObject({ state: "confirmed", reference: "prov-sdk-1" });
    expect(settled.timeline.map((t) => t.toState)).toEqual(["created", "processing", "completed"]);

    // Top-up: an intent with a 12-digit reference, paid through the rail.
    const intent = await client.topupIntents.create({
      walletUid,
      amountMinor: 30_000,
      currency: "KES",
      railCode: "sandbox_mobile",
      clientReference: "sdk-topup-1",
    });
    expect(intent.state).toBe("pending_provider");
    expect(intent.intentReference).toMatch(/^\d{12}$/);
    const payment = await real.admin<{ matched: boolean }>("POST", "/rails/sandbox_mobile/payments", {
      reference: intent.intentReference,
      amountMinor: 30_000,
      currency: "KES",
      providerReference: "prov-topup-1",
    });
    expect(payment.matched).toBe(true);
    expect((await client.topupIntents.get(intent.uid)).state).toBe("completed");

    // The balance is the fold of everything above.
    const expected = 500_000 - 120_000 - 10_000 - 155_150 + 30_000;
    expect(await client.wallets.balance(walletUid)).toMatchObject({
      currentMinor: expected,
      heldMinor: 0,
      availableMinor: expected,
    });

    // Statement, page by page and through the iterator.
    const page = await client.wallets.transactions(walletUid, { limit: 2 });
    expect(page.meta).toMatchObject({ total: 5, limit: 2, totalPages: 3 });
    const rows = [];
    for await (const row of client.wallets.iterateTransactions(walletUid, { limit: 2 })) rows.push(row);
    expect(rows.map((r) => r.operationUid)).toEqual([
      intent.uid,
      payout.uid,
      standing.uid,
      debit.uid,
      credit.uid,
    ]);
    expect(rows.find((r) => r.operationUid === payout.uid)).toMatchObject({ direction: "outbound" });

    // Receipt: stable hash on every read.
    const receipt = await client.operations.receipt(payout.uid);
    expect(receipt).toMatchObject({
      operationUid: payout.uid,
      totalDebitedMinor: 155_150,
      state: "completed",
    });
    expect(receipt.receiptHash).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyReceipt(receipt)).toBe(true);
    expect((await client.operations.receipt(payout.uid)).receiptHash).toBe(receipt.receiptHash);

    // Revocation is terminal: a second one is a typed 409.
    const revoked = await client.mandates.revoke(mandate.uid, { reason: "customer asked" });
    expect(revoked.status).toBe("revoked");
    const again = await client.mandates.revoke(mandate.uid, { reason: "again" }).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(WalletApiError);
    expect(again).toMatchObject({ status: 409, code: "Conflict" });
    expect((await client.mandates.list({ customerUid: customer.uid })).data.map((m) => m.uid)).toEqual([
      mandate.uid,
    ]);

    // The webhooks sent meanwhile verify with the SDK's verifier.
    const types = await eventually(async () => {
      const seen = new Set(received.map((r) => r.event.type));
      const wanted: WalletEventType[] = [
        "customer.created",
        "wallet_credit.completed",
        "payout.confirmed",
        "topup.confirmed",
        "mandate.revoked",
      ];
      return wanted.every((t) => seen.has(t)) ? seen : undefined;
    }, "webhooks");
    expect(types.has("wallet_debit.completed")).toBe(true);
    expect(received.every((r) => r.ok && r.event.apiVersion === "v1")).toBe(true);
    const creditEvent = received.find((r) => r.event.type === "wallet_credit.completed")!.event;
    expect(creditEvent.dedupKey.startsWith(`${credit.uid}:wallet_credit.completed:`)).toBe(true);
    // Each event carries the one data key, and the fields, its WalletEvent type promises.
    for (const { event } of received) {
      switch (event.type) {
        case "customer.created":
        case "customer.status_changed":
        case "customer.kyc_changed":
          expect(Object.keys(event.data)).toEqual(["customer"]);
          expect(event.data.customer).toMatchObject({ uid: expect.any(String), status: expect.any(String) });
          break;
        case "wallet.status_changed":
          expect(Object.keys(event.data)).toEqual(["wallet"]);
          expect(event.data.wallet).toMatchObject({
            uid: expect.any(String),
            customerUid: expect.any(String),
          });
          break;
        case "mandate.created":
        case "mandate.revoked":
        case "mandate.status_changed":
        case "mandate.expired":
          expect(Object.keys(event.data)).toEqual(["mandate"]);
          expect(event.data.mandate).toEqual({
            uid: mandate.uid,
            status: expect.any(String),
            customerUid: mandate.customerUid,
            walletUid: mandate.walletUid,
            clientReference: mandate.clientReference,
          });
          break;
        default:
          expect(Object.keys(event.data)).toEqual(["operation"]);
          expect(await client.operations.get(event.data.operation.uid)).toMatchObject({
            uid: event.data.operation.uid,
            type: event.data.operation.type,
            amountMinor: event.data.operation.amountMinor,
          });
      }
    }
  });

  it("iterates every operation once across pages while new ones are written", async () => {
    const customer = await client.customers.create(onboarding("+254711000002"));
    await real.admin("POST", "/tenants/demo/prefund", { amountMinor: 100_000, currency: "KES" });
    for (let i = 0; i < 7; i++) {
      await client.walletCredits.create({
        walletUid: customer.walletUid,
        amountMinor: 1_000 + i,
        currency: "KES",
        clientReference: `iter-${i}`,
      });
    }
    const seen: string[] = [];
    let written = 0;
    for await (const op of client.operations.iterate({ walletUid: customer.walletUid, limit: 3 })) {
      seen.push(op.uid);
      // A new operation lands at the top while we read: older rows shift to the next page.
      if (written < 2) {
        written++;
        await client.walletCredits.create({
          walletUid: customer.walletUid,
          amountMinor: 5,
          currency: "KES",
          clientReference: `iter-new-${written}`,
        });
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    const all = await client.operations.list({ walletUid: customer.walletUid, limit: 100 });
    expect(all.meta.total).toBe(9);
    // Every operation that existed when iteration started was seen exactly once.
    const original = all.data.filter(
      (op) => op.clientReference?.startsWith("iter-") && !op.clientReference.startsWith("iter-new"),
    );
    expect(original).toHaveLength(7);
    for (const op of original) expect(seen).toContain(op.uid);
  });

  it("throws typed errors carrying the code and the request id", async () => {
    const notFound = await client.operations
      .get("op_00000000000000000000000000", { requestId: "sdk-e2e-404" })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(WalletApiError);
    expect(notFound).toMatchObject({ status: 404, code: "NotFound", requestId: "sdk-e2e-404" });

    const invalid = (await client.walletCredits
      .create({ walletUid: "wal_x", amountMinor: 1.5, currency: "KES", clientReference: "bad" })
      .catch((e: unknown) => e)) as WalletApiError;
    expect(invalid.status).toBe(400);
    expect(invalid.code).toBe("InvalidRequest");
    expect(invalid.details?.map((d) => d.field)).toContain("amountMinor");

    const customer = await client.customers.create(onboarding("+254711000003"));
    const refused = (await client.walletCredits
      .create({ walletUid: customer.walletUid, amountMinor: 10, currency: "USD", clientReference: "usd-1" })
      .catch((e: unknown) => e)) as WalletApiError;
    expect(refused).toMatchObject({ status: 422, code: "CurrencyMismatch" });
    expect(refused.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("replays a repeated write and retries a write whose answer was lost, posting it once", async () => {
    const customer = await client.customers.create(onboarding("+254711000004"));
    await real.admin("POST", "/tenants/demo/prefund", { amountMinor: 10_000, currency: "KES" });
    const body = {
      walletUid: customer.walletUid,
      amountMinor: 2_500,
      currency: "KES",
      clientReference: "lost-1",
    };

    // The first try reaches the server, but its answer never reaches us (a timeout, a reset).
    const statuses: Array<number | "lost"> = [];
    let lose = true;
    const flaky = createWalletClient({
      baseUrl: real.url,
      apiKey: real.tenant.apiKey,
      kid: real.tenant.kid,
      privateKeyPem: real.tenant.privateKeyPem,
      retry: { attempts: 4, baseDelayMs: 0 },
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (lose) {
          // The server finished the write; only its answer is dropped on the way back.
          lose = false;
          statuses.push("lost");
          await res.arrayBuffer();
          throw new TypeError("fetch failed");
        }
        statuses.push(res.status);
        return res;
      },
    });
    const answer = await flaky.request<{ uid: string }>("POST", "/wallet-credits", { body });
    expect(answer.status).toBe(201);
    expect(answer.idempotentReplayed).toBe(true);
    // The retry carried the same Idempotency-Key and met the stored answer: one credit posted.
    expect(statuses).toEqual(["lost", 201]);
    const ops = await client.operations.list({ walletUid: customer.walletUid });
    expect(ops.data.map((o) => o.uid)).toEqual([answer.body.uid]);
    expect((await client.wallets.balance(customer.walletUid)).currentMinor).toBe(2_500);

    // The same key again: the stored answer, marked replayed.
    const replay = await client.request<{ uid: string }>("POST", "/wallet-credits", {
      body,
      idempotencyKey: answer.idempotencyKey!,
    });
    expect(replay.body.uid).toBe(answer.body.uid);
    expect(replay.idempotentReplayed).toBe(true);
  });
});

describe("the SDK and the rate limit", () => {
  it("retries a 429 after Retry-After and succeeds", async () => {
    const limited = await startRealServer((config) => {
      config.tenants[0].rateLimit = { perSecond: 1, burst: 1 };
    });
    try {
      const events: ResponseEvent[] = [];
      const c = createWalletClient({
        baseUrl: limited.url,
        apiKey: limited.tenant.apiKey,
        kid: limited.tenant.kid,
        privateKeyPem: limited.tenant.privateKeyPem,
        retry: { attempts: 5, baseDelayMs: 50 },
        onResponse: (e) => events.push(e),
      });
      await c.operations.list();
      await c.operations.list({ limit: 1 });
      expect(events.map((e) => e.status)).toEqual([200, 200]);
      expect(events[1]!.attempts).toBeGreaterThan(1);
    } finally {
      await limited.close();
    }
  });
});
