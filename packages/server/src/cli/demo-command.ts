import { randomInt, randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import {
  buildAssertion,
  type CustomerAuthentication,
  createWalletClient,
  type ResponseEvent,
  WalletApiError,
  WalletNetworkError,
} from "@wallet/client";
import { CURRENCY_CODE } from "@wallet/ledger-core";
import { parseCommandArgs } from "./args.js";
import { callOptions, resolveCredentials } from "./call-command.js";
import { type CliIo, line, UsageError } from "./io.js";

export const demoOptions = {
  credentials: callOptions.credentials,
  "data-dir": callOptions["data-dir"],
  "key-file": callOptions["key-file"],
  "api-key": callOptions["api-key"],
  kid: callOptions.kid,
  "base-url": callOptions["base-url"],
  "admin-token": { type: "string" },
  tenant: { type: "string" },
  rail: { type: "string" },
  beneficiary: { type: "string" },
  currency: { type: "string" },
} as const;

/** A step that cannot run: printed as skipped, not a failure. */
class Skipped extends Error {}

/** An operator API answer other than 2xx. */
class OperatorError extends Error {}

/** Display only: two minor digits, as every currency of the demo catalog has. */
const money = (minor: number, currency: string) =>
  `${Math.trunc(minor / 100).toLocaleString("en-US")}.${String(Math.abs(minor) % 100).padStart(2, "0")} ${currency}`;

/**
 * `wallet demo`: a scripted tour of the tenant API on a running server, through the SDK: onboard,
 * credit, quote, mandate, debit, payout with a sandbox result, top-up with a sandbox payment,
 * statement, receipt. Each step prints its requests (method, path, status) and the fields of note.
 * The operator steps (prefund, the rail's payout result and inbound payment) need the operator
 * token (WALLET_ADMIN_TOKEN, or --admin-token); without it they are skipped. Exit 0 when every step
 * that ran succeeded, 1 at the first failure.
 */
export async function demoCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, demoOptions);
  if (positionals.length > 0) throw new UsageError(`demo: unexpected "${positionals[0]}"`);
  const cwd = io.cwd ?? process.cwd();
  const credentials = resolveCredentials(values, cwd, "demo");
  if (values["admin-token"] !== undefined) {
    io.stderr(
      line("wallet: prefer WALLET_ADMIN_TOKEN to --admin-token (a flag shows in ps and shell history)"),
    );
  }
  const adminToken = values["admin-token"] ?? (io.env.WALLET_ADMIN_TOKEN || undefined);
  const tenantId = values.tenant ?? "demo";
  const railCode = values.rail ?? "sandbox_mobile";
  const beneficiary = values.beneficiary ?? "POWERCO";
  const currency = values.currency ?? "KES";
  if (!CURRENCY_CODE.test(currency))
    throw new UsageError("--currency: expected an ISO-4217 code such as KES");
  const run = randomUUID().slice(0, 8);
  const out = (text: string) => io.stdout(line(text));

  const client = createWalletClient({
    ...credentials,
    onResponse: (e: ResponseEvent) =>
      out(
        `   ${e.method} ${e.pathAndQuery} -> ${e.status} ${STATUS_CODES[e.status] ?? ""}`.trimEnd() +
          (e.idempotentReplayed ? " (replayed)" : "") +
          (e.attempts > 1 ? ` after ${e.attempts} tries` : ""),
      ),
  });

  const admin = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    if (adminToken === undefined) throw new Skipped("needs WALLET_ADMIN_TOKEN (or --admin-token)");
    const url = new URL(`/api/v1/admin${path}`, credentials.baseUrl);
    const response = await fetch(url, {
      method,
      headers: {
        Authorization: `Bearer ${adminToken}`,
        "Content-Type": "application/json",
        "X-Request-Id": `demo-${run}-${randomUUID().slice(0, 8)}`,
      },
      body: body === undefined ? null : JSON.stringify(body),
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    out(
      `   ${method} ${url.pathname}${url.search} -> ${response.status} ${STATUS_CODES[response.status] ?? ""}`.trimEnd(),
    );
    if (!response.ok) {
      let code = "";
      try {
        const parsed = JSON.parse(text) as { error?: string; message?: string };
        code = `${parsed.error ?? ""}: ${parsed.message ?? ""}`;
      } catch {
        code = text.slice(0, 200);
      }
      throw new OperatorError(`operator API answered ${response.status} ${code}`);
    }
    return JSON.parse(text) as T;
  };

  let stepNo = 0;
  let skipped = 0;
  const step = async <T>(title: string, body: () => Promise<T>): Promise<T | undefined> => {
    stepNo++;
    out(`${String(stepNo).padStart(2)}. ${title}`);
    try {
      return await body();
    } catch (e) {
      if (e instanceof Skipped) {
        skipped++;
        out(`   skipped: ${e.message}`);
        return undefined;
      }
      throw e;
    }
  };
  const auth = (customerUid: string, session: string): CustomerAuthentication => ({
    customerUid,
    factor1Type: "pin",
    factor2Type: "otp",
    channelCode: "wallet_demo",
    sourceReference: `demo-${run}-${session}`,
    // A little in the past, so a server clock slightly behind ours still sees it as done.
    authenticatedAt: new Date(Date.now() - 5_000),
  });

  out(`wallet demo against ${credentials.baseUrl} (kid ${credentials.kid}, run ${run})`);
  try {
    await step("Health (unauthenticated)", async () => {
      const health = await client.health();
      out(`   service=${health.service} status=${health.status}`);
    });

    const creditMinor = 500_000;
    await step("Operator: make sure the tenant's prefund covers the credit", async () => {
      const prefund = await admin<{ balanceMinor: number }>(
        "GET",
        `/tenants/${encodeURIComponent(tenantId)}/prefund?currency=${currency}`,
      );
      if (prefund.balanceMinor >= creditMinor) {
        out(`   prefund ${money(prefund.balanceMinor, currency)}: enough`);
        return;
      }
      const funded = await admin<{ balanceMinor: number }>(
        "POST",
        `/tenants/${encodeURIComponent(tenantId)}/prefund`,
        { amountMinor: creditMinor, currency },
      );
      out(`   prefund now ${money(funded.balanceMinor, currency)}`);
    });

    const customer = (await step("Onboard a customer (opens the main wallet)", async () => {
      const msisdn = `+2547${String(randomInt(0, 100_000_000)).padStart(8, "0")}`;
      const created = await client.customers.create({
        customerType: "person",
        displayName: "Demo Customer",
        identifiers: [
          {
            class: "contact",
            type: "msisdn",
            value: msisdn,
            isPrimary: true,
            verificationStatus: "verified",
            verifiedAt: new Date().toISOString(),
          },
        ],
        kyc: {
          tierCode: "tier_1",
          reviewType: "onboarding",
          verificationSource: "wallet_demo",
          sourceReference: `demo-${run}-kyc`,
          evidence: { method: "demo" },
          riskRating: "low",
        },
        agreements: [
          {
            agreementType: "wallet_opening",
            documentType: "terms",
            documentVersion: "1",
            documentUri: "https://example.com/terms/1",
            documentHash: "0".repeat(64),
            acceptedAt: new Date().toISOString(),
            acceptedChannel: "wallet_demo",
            evidence: { method: "checkbox" },
          },
        ],
        clientReference: `demo-${run}`,
      });
      const contact = created.identifiers.find((i) => i.type === "msisdn");
      if (contact === undefined) throw new Error("the onboarded customer has no msisdn identifier");
      out(`   customer ${created.uid} (${created.status}), wallet ${created.walletUid}`);
      out(`   msisdn ${contact.uid} ${contact.maskedValue} (${contact.verificationStatus})`);
      return { uid: created.uid, walletUid: created.walletUid, msisdnUid: contact.uid };
    }))!;
    const { walletUid } = customer;

    await step(`Credit ${money(creditMinor, currency)} from the prefund`, async () => {
      const op = await client.walletCredits.create({
        walletUid,
        amountMinor: creditMinor,
        currency,
        clientReference: `demo-${run}-credit`,
      });
      out(`   operation ${op.uid} ${op.type} ${op.state}`);
    });

    const payoutMinor = 150_000;
    const quote = (await step(`Quote a payout of ${money(payoutMinor, currency)}`, async () => {
      const q = await client.fees.quote({
        operationType: "payout_b2c",
        walletUid,
        amountMinor: payoutMinor,
        currency,
        railCode,
      });
      out(
        `   quote ${q.quoteId}: fee ${money(q.feeMinor, currency)}, tax ${money(q.taxMinor, currency)}, ` +
          `total ${money(q.totalMinor, currency)}, valid until ${q.validUntil}`,
      );
      for (const b of q.breakdown) out(`     ${b.label}: ${money(b.amountMinor, currency)}`);
      return q;
    }))!;

    const mandate = (await step(`Register a mandate for ${beneficiary}`, async () => {
      const m = await client.mandates.create({
        customerUid: customer.uid,
        walletUid,
        beneficiaryEntityCode: beneficiary,
        clientReference: `demo-${run}-mandate`,
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 200_000,
        frequency: "ad_hoc",
        currency,
        validFrom: new Date(Date.now() - 60_000).toISOString(),
        agreement: {
          documentType: "mandate_terms",
          documentVersion: "1",
          documentUri: "https://example.com/mandate/1",
          documentHash: "0".repeat(64),
          acceptedAt: new Date().toISOString(),
          acceptedChannel: "wallet_demo",
          evidence: { method: "checkbox" },
        },
        assertion: buildAssertion({ ...auth(customer.uid, "mandate"), route: "mandate" }),
      });
      out(
        `   mandate ${m.uid} ${m.status}, up to ${money(m.fixedOrMaxAmountMinor ?? 0, currency)} (${m.frequency})`,
      );
      return m;
    }))!;

    await step("Debit under the mandate, with the customer's bound assertion", async () => {
      const request = {
        walletUid,
        mandateUid: mandate.uid,
        amountMinor: 120_000,
        currency,
        clientReference: `demo-${run}-debit`,
      };
      const op = await client.walletDebits.create({
        ...request,
        assertion: buildAssertion({ ...auth(customer.uid, "debit"), route: "walletDebit", request }),
      });
      out(
        `   operation ${op.uid} ${op.type} ${op.state}, ${money(op.amountMinor, currency)} to ${beneficiary}`,
      );
    });

    const payout = (await step("Pay out to the customer's msisdn (phase 1)", async () => {
      const request = {
        walletUid,
        destinationIdentifierUid: customer.msisdnUid,
        amountMinor: payoutMinor,
        currency,
        railCode,
        clientReference: `demo-${run}-payout`,
        feeQuoteId: quote.quoteId,
      };
      const op = await client.payouts.create({
        ...request,
        assertion: buildAssertion({ ...auth(customer.uid, "payout"), route: "payout", request }),
      });
      out(
        `   operation ${op.uid} ${op.state}: ${money(op.amountMinor + op.feeMinor + op.taxMinor, currency)} debited, amount held`,
      );
      return op;
    }))!;

    await step("Operator: the sandbox rail confirms the payout", async () => {
      await admin("POST", `/rails/${encodeURIComponent(railCode)}/payout-results`, {
        operationUid: payout.uid,
        outcome: "confirmed",
        providerReference: `demo-${run}-provider`,
      });
      const detail = await client.operations.get(payout.uid);
      out(`   operation ${detail.uid} ${detail.state}; provider ${detail.provider?.state ?? "none"}`);
      out(`   timeline: ${detail.timeline.map((t) => t.toState).join(" -> ")}`);
    });

    const topupMinor = 30_000;
    const intent = (await step(`Issue a top-up intent of ${money(topupMinor, currency)}`, async () => {
      const t = await client.topupIntents.create({
        walletUid,
        amountMinor: topupMinor,
        currency,
        railCode,
        clientReference: `demo-${run}-topup`,
      });
      out(`   operation ${t.uid} ${t.state}, reference ${t.intentReference}, expires ${t.expiresAt}`);
      return t;
    }))!;

    await step("Operator: the payer pays with the reference (sandbox payment)", async () => {
      const result = await admin<{ matched: boolean }>(
        "POST",
        `/rails/${encodeURIComponent(railCode)}/payments`,
        {
          reference: intent.intentReference,
          amountMinor: topupMinor,
          currency,
          providerReference: `demo-${run}-payment`,
        },
      );
      if (!result.matched) throw new OperatorError("the payment did not match the intent");
      const detail = await client.topupIntents.get(intent.uid);
      out(`   operation ${detail.uid} ${detail.state}`);
    });

    await step("Statement", async () => {
      const page = await client.wallets.transactions(walletUid, { limit: 10 });
      for (const row of page.data) {
        const sign = row.direction === "inbound" ? "+" : "-";
        out(
          `   ${row.createdAt} ${sign}${money(row.amountMinor, currency)} ${row.state} ${row.operationUid}`,
        );
      }
      out(`   ${page.meta.total} rows`);
    });

    await step("Receipt of the payout", async () => {
      const receipt = await client.operations.receipt(payout.uid);
      out(`   ${receipt.type} ${receipt.state}: total debited ${money(receipt.totalDebitedMinor, currency)}`);
      out(`   receiptHash ${receipt.receiptHash}`);
    });

    await step("Balance", async () => {
      const balance = await client.wallets.balance(walletUid);
      out(
        `   current ${money(balance.currentMinor, currency)}, held ${money(balance.heldMinor, currency)}, ` +
          `available ${money(balance.availableMinor, currency)}`,
      );
    });
  } catch (e) {
    io.stderr(line(`wallet: demo step ${stepNo} failed: ${describe(e)}`));
    return 1;
  }
  out(
    skipped === 0
      ? "demo complete"
      : `demo complete (${skipped} operator steps skipped: set WALLET_ADMIN_TOKEN)`,
  );
  return 0;
}

function describe(e: unknown): string {
  if (e instanceof WalletApiError)
    return `HTTP ${e.status} ${e.code}: ${e.message} (X-Request-Id ${e.requestId})`;
  if (e instanceof WalletNetworkError) {
    const cause = (e.cause as { cause?: { code?: string } } | undefined)?.cause?.code;
    return `${e.message}${cause ? ` (${cause})` : ""}`;
  }
  return e instanceof Error ? e.message : String(e);
}
