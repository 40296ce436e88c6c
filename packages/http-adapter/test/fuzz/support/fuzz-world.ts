import { getTrialBalance, type UnitOfWork } from "@wallet/ledger-core";
import fc from "fast-check";
import { expect } from "vitest";
import { UNAUTHORIZED_BODY } from "../../../src/index.js";
import {
  ADMIN,
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  TENANT,
} from "../../support/fixture.js";
import type { FieldHints } from "./schema-arbitrary.js";

/**
 * A tenant with real resources (customer, wallet, identifiers, mandate, payout, top-up intent),
 * created through the API itself, so fuzzed requests naming them reach the business rules and
 * not only the 404 of an unknown uid.
 */
export interface FuzzWorld {
  h: Harness;
  tenant: SeededTenant;
  ids: {
    customerUid: string;
    walletUid: string;
    msisdnUid: string;
    nationalIdUid: string;
    mandateUid: string;
    payoutUid: string;
    topupUid: string;
  };
  hints: FieldHints;
  /** Real uids for path parameters, by parameter name. */
  pathValues: (param: string, path: string) => string[];
}

const live = (h: Harness) => {
  const now = h.clock.now().getTime();
  return {
    authenticatedAt: new Date(now - 30_000).toISOString(),
    expiresAt: new Date(now + 300_000).toISOString(),
  };
};

async function created(res: Response, what: string) {
  const text = await res.text();
  expect(res.status, `${what}: ${text}`).toBeLessThan(300);
  return JSON.parse(text);
}

export async function createFuzzWorld(uow: UnitOfWork): Promise<FuzzWorld> {
  const h = createHarness(uow);
  const tenant = await seedTenant(uow, {
    id: "fuzz",
    approvedKycLevels: ["tier_1", "tier_2"],
    approvedRails: ["sandbox_mobile"],
    // Enabled, so every creation writes an outbox event the snapshot counts.
    webhook: { url: "http://127.0.0.1:9/hooks", enabled: true, events: [], secrets: [] },
    rateLimit: { perSecond: 100_000, burst: 100_000 },
  });
  await created(
    await h.admin("POST", `${ADMIN}/tenants/fuzz/prefund`, { amountMinor: 50_000_000, currency: "KES" }),
    "prefund",
  );
  const customer = await created(
    await h.call(tenant, "POST", `${TENANT}/customers`, { body: onboardingBody({}, "+254700111222") }),
    "onboard",
  );
  const msisdnUid = customer.identifiers.find((i: { type: string }) => i.type === "msisdn").uid;
  const nationalIdUid = customer.identifiers.find((i: { type: string }) => i.type === "national_id").uid;
  await created(
    await h.call(tenant, "POST", `${TENANT}/wallet-credits`, {
      body: {
        walletUid: customer.walletUid,
        amountMinor: 900_000,
        currency: "KES",
        clientReference: "fuzz-seed",
      },
    }),
    "credit",
  );
  const assertion = (extra: Record<string, unknown> = {}) => ({
    customerUid: customer.uid,
    assuranceLevel: "two_factor",
    factor1Type: "pin",
    factor2Type: "otp",
    ...live(h),
    channelCode: "mobile_app",
    sourceReference: `fuzz-seed-${Math.random()}`,
    ...extra,
  });
  const mandate = await created(
    await h.call(tenant, "POST", `${TENANT}/mandates`, {
      body: {
        customerUid: customer.uid,
        walletUid: customer.walletUid,
        beneficiaryEntityCode: "POWERCO",
        clientReference: "fuzz-mandate",
        amountRule: "up_to",
        fixedOrMaxAmountMinor: 50_000,
        frequency: "ad_hoc",
        currency: "KES",
        validFrom: new Date(h.clock.now().getTime() - 60_000).toISOString(),
        validTo: null,
        agreement: {
          documentType: "debit_mandate",
          documentVersion: "v1",
          documentUri: "https://example.com/m",
          documentHash: "b".repeat(64),
          acceptedAt: "2026-11-01T00:00:00.000Z",
          acceptedChannel: "mobile_app",
          evidence: { otp: "ok" },
        },
        assertion: assertion(),
      },
    }),
    "mandate",
  );
  const payout = await created(
    await h.call(tenant, "POST", `${TENANT}/payouts`, {
      body: {
        walletUid: customer.walletUid,
        destinationIdentifierUid: msisdnUid,
        amountMinor: 1_000,
        currency: "KES",
        railCode: "sandbox_mobile",
        clientReference: "fuzz-payout",
        assertion: assertion(),
      },
    }),
    "payout",
  );
  const topup = await created(
    await h.call(tenant, "POST", `${TENANT}/topup-intents`, {
      body: {
        walletUid: customer.walletUid,
        amountMinor: 5_000,
        currency: "KES",
        railCode: "sandbox_mobile",
        clientReference: "fuzz-topup",
      },
    }),
    "top-up",
  );
  const ids = {
    customerUid: customer.uid as string,
    walletUid: customer.walletUid as string,
    msisdnUid: msisdnUid as string,
    nationalIdUid: nationalIdUid as string,
    mandateUid: mandate.uid as string,
    payoutUid: payout.uid as string,
    topupUid: topup.uid as string,
  };
  const uids = Object.values(ids);
  const byField: Record<string, string[]> = {
    walletUid: [ids.walletUid],
    customerUid: [ids.customerUid],
    mandateUid: [ids.mandateUid],
    destinationIdentifierUid: [ids.msisdnUid, ids.nationalIdUid],
    identifierUid: [ids.msisdnUid],
    replacesMandateUid: [ids.mandateUid],
    railCode: ["sandbox_mobile"],
    currency: ["KES"],
    beneficiaryEntityCode: ["POWERCO"],
    tierCode: ["tier_1", "tier_2"],
    rulesProfileKey: ["standard_kes"],
  };
  return {
    h,
    tenant,
    ids,
    hints: (name) => {
      const values = byField[name];
      return values ? fc.constantFrom(...values, ...uids.slice(0, 2)) : undefined;
    },
    pathValues: (param, path) => {
      if (param === "iid") return [ids.msisdnUid, ids.nationalIdUid];
      if (path.startsWith("/customers")) return [ids.customerUid];
      if (path.startsWith("/wallets")) return [ids.walletUid];
      if (path.startsWith("/mandates")) return [ids.mandateUid];
      if (path.startsWith("/topup-intents")) return [ids.topupUid];
      if (path.startsWith("/operations")) return [ids.payoutUid, ids.topupUid];
      return uids;
    },
  };
}

/** What a failed request must not change: operations, outbox events (every creation writes one), money. */
export async function worldSnapshot(uow: UnitOfWork, tenantId: string): Promise<string> {
  return uow.run(async (tx) => {
    const ops = await tx.operations.list(
      { tenantId },
      { page: 1, limit: 1, sort: [{ field: "id", direction: "ASC" }] },
    );
    const events = await tx.outbox.list(tenantId);
    const trial = await getTrialBalance(tx);
    return JSON.stringify({ operations: ops.total, events: events.length, trial });
  });
}

const statusCodes: Record<number, readonly string[]> = {
  400: ["InvalidRequest"],
  401: ["Unauthorized"],
  403: ["Forbidden"],
  404: ["NotFound"],
  409: ["Conflict", "IdempotencyKeyInUse"],
  413: ["PayloadTooLarge"],
  429: ["TooManyRequests"],
};

/**
 * Never a 5xx; every 4xx is the one error body (`error`, `message`, optional `details` of
 * `{field, issue}`), with the code its status implies, the 401 byte-identical, as JSON with a
 * request id.
 */
export async function expectWellFormedAnswer(res: Response, what: string): Promise<string> {
  const text = await res.text();
  expect(res.status, `${what} -> ${res.status} ${text.slice(0, 500)}`).toBeLessThan(500);
  expect(res.headers.get("x-request-id"), what).toBeTruthy();
  if (res.status < 400) return text;
  expect(res.headers.get("content-type") ?? "", what).toMatch(/^application\/json/);
  if (res.status === 401) expect(text, what).toBe(UNAUTHORIZED_BODY);
  const body = JSON.parse(text) as Record<string, unknown>;
  expect(
    Object.keys(body).filter((k) => !["error", "message", "details"].includes(k)),
    what,
  ).toEqual([]);
  expect(typeof body.error === "string" && typeof body.message === "string", `${what}: ${text}`).toBe(true);
  const allowed = statusCodes[res.status];
  if (allowed) expect(allowed, `${what}: ${text}`).toContain(body.error);
  else expect(res.status, `${what}: ${text}`).toBe(422);
  if (body.details !== undefined) {
    expect(Array.isArray(body.details), what).toBe(true);
    for (const d of body.details as Record<string, unknown>[]) {
      expect(Object.keys(d).sort(), `${what}: ${text}`).toEqual(["field", "issue"]);
      expect(typeof d.field === "string" && typeof d.issue === "string", what).toBe(true);
    }
  }
  return text;
}
