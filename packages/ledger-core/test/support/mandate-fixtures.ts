import { createHash } from "node:crypto";
import type { Assertion, CreateMandateInput, CustomerView, IdGenerator, Tenant } from "../../src/index.js";
import { creditWallet, fundPrefund, onboardCustomer } from "../../src/index.js";
import { createFixedClock } from "../../src/memory/index.js";
import { createCore, onboardingInput, tenantFixture } from "./core.js";

/** SHA-256 hex computed independently of the code under test. */
export const sha = (s: string) => createHash("sha256").update(Buffer.from(s, "utf8")).digest("hex");

/** The binding rule written out again here, so tests do not trust the implementation's own. */
export const bindingHash = (v: {
  customerUid: string;
  walletUid: string;
  amountMinor: number;
  currency: string;
  target: string;
  clientReference: string;
}) =>
  sha([v.customerUid, v.walletUid, String(v.amountMinor), v.currency, v.target, v.clientReference].join("|"));

export const BINDING_CANONICAL =
  "customerUid|walletUid|amountMinor|currency|destinationIdentifierUid|clientReference";

export { refusal } from "./core.js";

export const START = "2026-11-22T10:00:00.000Z";

/**
 * A tenant (acme) with a funded prefund and two customers (alice, bob), a second tenant (other)
 * with one customer (olga), and a clock that stands still until a test moves it.
 */
export async function createMandateWorld(opts: { start?: string; ids?: IdGenerator } = {}) {
  const start = opts.start ?? START;
  const core = createCore(start);
  const clock = createFixedClock(start);
  core.deps.clock = clock;
  if (opts.ids) core.deps.ids = opts.ids;
  const acme = tenantFixture("acme");
  const other = tenantFixture("other");
  await core.run((tx) => tx.tenants.upsert(acme));
  await core.run((tx) => tx.tenants.upsert(other));
  for (const tenantId of ["acme", "other"]) {
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId, amountMinor: 90_000_000, currency: "KES" }),
    );
  }
  const onboard = (tenant: Tenant, overrides: Record<string, unknown> = {}) =>
    core.run((tx) => onboardCustomer(core.deps, core.ctxFor(tenant), tx, onboardingInput(overrides)));
  const alice = await onboard(acme);
  const bob = await onboard(acme, { identifiers: [] });
  const olga = await onboard(other);

  let sessions = 0;
  /** A live two-factor assertion for the customer, without a binding. */
  const assertionFor = (customerUid: string, overrides: Partial<Assertion> = {}): Assertion => {
    const now = clock.now().getTime();
    return {
      customerUid,
      assuranceLevel: "two_factor",
      factor1Type: "pin",
      factor2Type: "otp",
      authenticatedAt: new Date(now - 60_000).toISOString(),
      expiresAt: new Date(now + 240_000).toISOString(),
      channelCode: "app",
      sourceReference: `sess-${++sessions}`,
      ...overrides,
    };
  };

  const mandateInput = (
    customer: CustomerView,
    overrides: Partial<CreateMandateInput> = {},
  ): CreateMandateInput => ({
    customerUid: customer.uid,
    walletUid: customer.walletUid,
    beneficiaryEntityCode: "POWERCO",
    clientReference: "power-2026",
    amountRule: "up_to",
    fixedOrMaxAmountMinor: 500_000,
    frequency: "monthly",
    currency: "KES",
    validFrom: "2026-11-01T00:00:00.000Z",
    validTo: null,
    agreement: {
      documentType: "debit_mandate",
      documentVersion: "v2",
      documentUri: "https://example.com/mandate/v2",
      documentHash: "b".repeat(64),
      acceptedAt: "2026-11-22T09:58:00.000Z",
      acceptedChannel: "mobile_app",
      evidence: { otp: "verified", ip: "203.0.113.9" },
    },
    assertion: assertionFor(customer.uid),
    ...overrides,
  });

  let credits = 0;
  const fund = (walletUid: string, amountMinor: number, tenant = acme) =>
    core.run((tx) =>
      creditWallet(core.deps, core.ctxFor(tenant), tx, {
        walletUid,
        amountMinor,
        currency: "KES",
        clientReference: `fund-${++credits}`,
      }),
    );

  const outbox = (type?: string) =>
    core.store.state.outbox
      .filter((e) => type === undefined || e.type === type)
      .map((e) => ({ ...e, envelope: JSON.parse(e.body) }));

  return { core, clock, acme, other, alice, bob, olga, assertionFor, mandateInput, fund, outbox };
}

export type MandateWorld = Awaited<ReturnType<typeof createMandateWorld>>;
