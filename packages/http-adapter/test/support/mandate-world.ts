import type { Tenant } from "@wallet/ledger-core";
import * as v from "valibot";
import { expect } from "vitest";
import { customerViewSchema } from "../../src/customers/schemas.js";
import { mandateViewSchema } from "../../src/mandates/schemas.js";
import { operationPageSchema } from "../../src/operations/schemas.js";
import { trialBalanceViewSchema } from "../../src/operator/schemas.js";
import { walletBalanceSchema } from "../../src/wallets/schemas.js";
import {
  ADMIN,
  type Harness,
  onboardingBody,
  type SeededTenant,
  START,
  sha256Hex,
  TENANT,
} from "./fixture.js";

/** Every event type, to an URL nobody listens on: events are only read from the outbox here. */
export const WEBHOOK: Tenant["webhook"] = {
  url: "http://127.0.0.1:9/hooks",
  enabled: true,
  events: [],
  secrets: [{ kid: "wh1", secret: "webhook-secret-for-tests-only", createdAt: START }],
};

/** The literal the spec requires in transactionBinding.canonical, written out again here. */
export const BINDING_CANONICAL_TEMPLATE =
  "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference";

export interface BindingValues {
  customerUid: string;
  walletUid: string;
  amountMinor: number;
  currency: string;
  target: string;
  clientReference: string;
}

/** The spec's binding rule computed with node:crypto, independently of the code under test. */
export const bindingCanonicalOf = (b: BindingValues) =>
  [b.customerUid, b.walletUid, String(b.amountMinor), b.currency, b.target, b.clientReference].join("|");

export const bindingOf = (b: BindingValues) => ({
  hash: sha256Hex(Buffer.from(bindingCanonicalOf(b), "utf8")),
  algorithm: "sha256" as const,
  canonical: BINDING_CANONICAL_TEMPLATE,
});

export type CustomerView = v.InferOutput<typeof customerViewSchema>;
export type MandateView = v.InferOutput<typeof mandateViewSchema>;
export type ErrorJson = { error: string; message: string; details?: { field: string; issue: string }[] };

export const errorOf = async (res: Response) => (await res.json()) as ErrorJson;

/** Request helpers for the mandate and debit suites, over one harness. */
export function mandateWorld(h: Harness) {
  let sessions = 0;
  let refs = 0;
  const nextRef = (prefix: string) => `${prefix}-${++refs}`;

  const onboard = async (t: SeededTenant, msisdn: string, nationalId: string): Promise<CustomerView> => {
    const body = onboardingBody({}, msisdn);
    (body.identifiers[1] as { value: string }).value = nationalId;
    const res = await h.call(t, "POST", `${TENANT}/customers`, { body });
    expect(res.status).toBe(201);
    return v.parse(customerViewSchema, await res.json());
  };

  const fundPrefund = async (tenantId: string, amountMinor: number) => {
    const res = await h.admin("POST", `${ADMIN}/tenants/${tenantId}/prefund`, {
      amountMinor,
      currency: "KES",
    });
    expect(res.status).toBe(200);
  };

  const credit = async (t: SeededTenant, walletUid: string, amountMinor: number) => {
    const res = await h.call(t, "POST", `${TENANT}/wallet-credits`, {
      body: { walletUid, amountMinor, currency: "KES", clientReference: nextRef("credit") },
    });
    expect(res.status).toBe(201);
  };

  /**
   * A live two-factor assertion made "now" (one minute old, four to go), without a binding. Made
   * right before each request: the harness clock moves one second per request.
   */
  const assertion = (
    customerUid: string,
    overrides: Record<string, unknown> = {},
  ): Record<string, unknown> => {
    const now = h.clock.now().getTime();
    return {
      customerUid,
      assuranceLevel: "two_factor",
      factor1Type: "pin",
      factor2Type: "otp",
      authenticatedAt: new Date(now - 60_000).toISOString(),
      expiresAt: new Date(now + 240_000).toISOString(),
      channelCode: "mobile_app",
      sourceReference: `session-${++sessions}`,
      ...overrides,
    };
  };

  const mandateBody = (c: CustomerView, overrides: Record<string, unknown> = {}) => ({
    customerUid: c.uid,
    walletUid: c.walletUid,
    beneficiaryEntityCode: "POWERCO",
    clientReference: nextRef("mandate"),
    amountRule: "up_to",
    fixedOrMaxAmountMinor: 500_000,
    frequency: "monthly",
    currency: "KES",
    validFrom: "2026-11-01T00:00:00.000Z",
    agreement: {
      documentType: "debit_mandate",
      documentVersion: "v2",
      documentUri: "https://acme.example/mandates/v2",
      documentHash: "c".repeat(64),
      acceptedAt: "2026-11-22T09:58:00.000Z",
      acceptedChannel: "mobile_app",
      evidence: { otp: "verified", ip: "203.0.113.9" },
    },
    assertion: assertion(c.uid),
    ...overrides,
  });

  const postMandate = (t: SeededTenant, body: unknown) => h.call(t, "POST", `${TENANT}/mandates`, { body });

  const createMandate = async (
    t: SeededTenant,
    c: CustomerView,
    overrides: Record<string, unknown> = {},
  ): Promise<MandateView> => {
    const res = await postMandate(t, mandateBody(c, overrides));
    expect(res.status).toBe(201);
    return v.parse(mandateViewSchema, await res.json());
  };

  const getMandate = async (t: SeededTenant, uid: string): Promise<MandateView> => {
    const res = await h.call(t, "GET", `${TENANT}/mandates/${uid}`);
    expect(res.status).toBe(200);
    return v.parse(mandateViewSchema, await res.json());
  };

  const revoke = (t: SeededTenant, uid: string, body: unknown) =>
    h.call(t, "POST", `${TENANT}/mandates/${uid}/revoke`, { body });

  /** A POST /wallet-debits body with an assertion bound to it (target mandateUid). */
  const debitBody = (
    c: CustomerView,
    m: MandateView,
    amountMinor: number,
    opts: {
      clientReference?: string;
      assertion?: Record<string, unknown>;
      bind?: Partial<BindingValues>;
    } = {},
  ) => {
    const clientReference = opts.clientReference ?? nextRef("debit");
    const values: BindingValues = {
      customerUid: c.uid,
      walletUid: c.walletUid,
      amountMinor,
      currency: "KES",
      target: m.uid,
      clientReference,
      ...opts.bind,
    };
    return {
      walletUid: c.walletUid,
      mandateUid: m.uid,
      amountMinor,
      currency: "KES",
      clientReference,
      assertion: assertion(c.uid, { transactionBinding: bindingOf(values), ...opts.assertion }),
    };
  };

  const debit = (t: SeededTenant, body: unknown, idempotencyKey?: string) =>
    h.call(t, "POST", `${TENANT}/wallet-debits`, { body, ...(idempotencyKey ? { idempotencyKey } : {}) });

  const mandateDebit = (
    t: SeededTenant,
    m: MandateView,
    amountMinor: number,
    overrides: Record<string, unknown> = {},
  ) =>
    h.call(t, "POST", `${TENANT}/mandates/${m.uid}/debits`, {
      body: {
        walletUid: m.walletUid,
        amountMinor,
        currency: "KES",
        clientReference: nextRef("mdebit"),
        ...overrides,
      },
    });

  const balance = async (t: SeededTenant, walletUid: string) => {
    const res = await h.call(t, "GET", `${TENANT}/wallets/${walletUid}/balance`);
    expect(res.status).toBe(200);
    return v.parse(walletBalanceSchema, await res.json());
  };

  /** GET /operations (every operation of the tenant, any state). */
  const operations = async (t: SeededTenant, query = "") => {
    const res = await h.call(t, "GET", `${TENANT}/operations?limit=100${query}`);
    expect(res.status).toBe(200);
    return v.parse(operationPageSchema, await res.json());
  };

  const trialBalance = async () => {
    const res = await h.admin("GET", `${ADMIN}/ledger/trial-balance`);
    expect(res.status).toBe(200);
    return v.parse(trialBalanceViewSchema, await res.json());
  };

  /** The tenant's outbox, read through the store, bodies parsed. */
  const events = async (tenantId: string) =>
    (await h.uow.run((tx) => tx.outbox.list(tenantId))).map((e) => ({
      type: e.type,
      resourceUid: e.resourceUid,
      body: JSON.parse(e.body) as {
        type: string;
        dedupKey: string;
        data: Record<string, Record<string, unknown>>;
      },
    }));

  const runJob = (job: string, body?: unknown) => h.admin("POST", `${ADMIN}/jobs/${job}/run`, body);

  return {
    nextRef,
    onboard,
    fundPrefund,
    credit,
    assertion,
    mandateBody,
    postMandate,
    createMandate,
    getMandate,
    revoke,
    debitBody,
    debit,
    mandateDebit,
    balance,
    operations,
    trialBalance,
    events,
    runJob,
  };
}

export type MandateWorld = ReturnType<typeof mandateWorld>;
