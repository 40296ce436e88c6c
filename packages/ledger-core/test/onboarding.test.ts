import { beforeEach, describe, expect, it } from "vitest";
import type { Tenant } from "../src/index.js";
import { getCustomerSummary, onboardCustomer } from "../src/index.js";
import { createCore, onboardingInput, refusal, tenantFixture } from "./support/core.js";

describe("onboarding", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  beforeEach(async () => {
    core = createCore();
    acme = tenantFixture("acme");
    await core.run((tx) => tx.tenants.upsert(acme));
  });
  const onboard = (overrides: Record<string, unknown> = {}, tenant = acme) =>
    core.run((tx) =>
      onboardCustomer(core.deps, core.ctxFor(tenant), tx, onboardingInput(overrides) as never),
    );

  it("creates an active customer with an active main wallet, masked identifiers and an approved KYC version", async () => {
    const c = await onboard({ clientReference: "crm-1" });
    expect(c).toMatchObject({
      status: "active",
      customerType: "person",
      kycTierCode: "tier_1",
      rulesProfileKey: "standard_kes",
      clientReference: "crm-1",
    });
    expect(c.uid).toMatch(/^cus_/);
    expect(c.walletUid).toMatch(/^wal_/);
    expect(c.identifiers.map((i) => i.maskedValue)).toEqual(["+2547******78", "****5678"]);
    expect(JSON.stringify(c)).not.toContain("712345678");
    const stored = [...core.store.state.identifiers.values()];
    expect(
      stored.every((i) => !i.sealedValue.includes("+254712345678") || i.sealedValue.startsWith("test.")),
    ).toBe(true);
    const events = core.store.state.outbox;
    expect(events.map((e) => e.type)).toEqual(["customer.created"]);
    expect(JSON.parse(events[0]!.body).data).toEqual({ customer: { uid: c.uid, status: "active" } });
  });

  it("shows the summary masked, and unmasks contact values only with customers:pii, auditing the read", async () => {
    const c = await onboard();
    const masked = await core.run((tx) =>
      getCustomerSummary(core.deps, core.ctxFor(acme), tx, c.uid, { unmask: false }),
    );
    expect(masked.identifiers.map((i) => i.value)).toEqual([null, null]);
    expect(masked.kyc).toMatchObject({
      tierCode: "tier_1",
      tierName: "Basic",
      riskRating: "low",
      limits: { maxBalanceMinor: 10_000_000, monthlyOutLimitMinor: null },
    });
    expect(masked.wallets[0]).toMatchObject({
      purpose: "main",
      status: "active",
      balance: { currentMinor: 0, availableMinor: 0 },
    });
    expect(core.store.state.audit).toHaveLength(0);
    const clear = await core.run((tx) =>
      getCustomerSummary(core.deps, core.ctxFor(acme), tx, c.uid, { unmask: true }),
    );
    expect(clear.identifiers.map((i) => i.value)).toEqual(["+254712345678", null]);
    expect(core.store.state.audit).toMatchObject([
      { tenantId: "acme", action: "customer.pii_read", customerUid: c.uid, kid: "k1", requestId: "req-1" },
    ]);
    expect(JSON.stringify(core.store.state.audit)).not.toContain("712345678");
  });

  it("refuses a verified identifier the tenant already holds (409) but not another tenant's", async () => {
    await onboard();
    expect((await refusal(onboard())).code).toBe("Conflict");
    const other = tenantFixture("other");
    await core.run((tx) => tx.tenants.upsert(other));
    await expect(onboard({}, other)).resolves.toMatchObject({ status: "active" });
  });

  it("normalizes values before the duplicate check", async () => {
    await onboard();
    const spaced = onboardingInput().identifiers.map((i) =>
      i.type === "msisdn" ? { ...i, value: "+254 712 345 678" } : { ...i, value: "99999999" },
    );
    expect((await refusal(onboard({ identifiers: spaced }))).code).toBe("Conflict");
  });

  it("refuses a customer clientReference that is not 1-200 characters of text (400)", async () => {
    for (const bad of ["", "c".repeat(201), 7]) {
      const e = await refusal(onboard({ clientReference: bad }));
      expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", "clientReference"]);
    }
    expect(core.store.state.customers.size).toBe(0);
  });

  it("refuses a blank identifier value and a date of birth in the future (400)", async () => {
    const blank = onboardingInput().identifiers.map((i) =>
      i.type === "msisdn" ? { ...i, value: " \t " } : i,
    );
    expect((await refusal(onboard({ identifiers: blank }))).code).toBe("InvalidRequest");
    expect((await refusal(onboard({ dateOfBirth: "2999-01-01" }))).code).toBe("InvalidRequest");
    // 10:00 UTC on the 22nd is already the 23rd at UTC+14 (a baby born there today), not the 24th.
    expect((await refusal(onboard({ dateOfBirth: "2026-11-24" }))).code).toBe("InvalidRequest");
    expect((await onboard({ dateOfBirth: "2026-11-23" })).uid).toMatch(/^cus_/);
  });

  it("seals the date of birth, as identifier values are", async () => {
    const c = await onboard({ dateOfBirth: "1990-05-17" });
    const stored = core.store.state.customers.get(c.uid)?.dateOfBirth;
    expect(stored).not.toBe("1990-05-17");
    expect(core.deps.vault.open(stored as string)).toBe("1990-05-17");
  });

  it("refuses unapproved profiles and levels with one generic message, and prohibited risk", async () => {
    const a = await refusal(onboard({ rulesProfileKey: "standard_usd" }));
    const b = await refusal(onboard({ kyc: { ...onboardingInput().kyc, tierCode: "tier_usd" } }));
    const c = await refusal(onboard({ kyc: { ...onboardingInput().kyc, tierCode: "no_such_tier" } }));
    expect([a.code, b.code, c.code]).toEqual([
      "UnprocessableEntity",
      "UnprocessableEntity",
      "UnprocessableEntity",
    ]);
    expect(new Set([a.message, b.message, c.message]).size).toBe(1);
    const d = await refusal(onboard({ kyc: { ...onboardingInput().kyc, riskRating: "prohibited" } }));
    expect(d.code).toBe("UnprocessableEntity");
    expect(core.store.state.customers.size).toBe(0);
  });

  it("refuses the portal channel and two primaries of one class, creating nothing", async () => {
    const agreements = [{ ...onboardingInput().agreements[0]!, acceptedChannel: "portal" }];
    const e = await refusal(onboard({ agreements }));
    expect(e.code).toBe("UnprocessableEntity");
    expect(e.details?.[0]?.field).toBe("agreements[0].acceptedChannel");
    const ids = onboardingInput().identifiers.map((i) => ({
      ...i,
      class: "contact" as const,
      value: `${i.value}0`,
    }));
    expect((await refusal(onboard({ identifiers: ids }))).code).toBe("InvalidRequest");
    expect(core.store.state.customers.size).toBe(0);
    expect(core.store.state.wallets.size).toBe(0);
  });

  it("hashes agreement evidence canonically and never stores it", async () => {
    await onboard();
    const [agreement] = [...core.store.state.agreements.values()];
    expect(agreement!.evidenceHash).toBe(core.deps.hasher.sha256Hex('{"ip":"203.0.113.9"}'));
    expect(JSON.stringify(agreement)).not.toContain("203.0.113.9");
  });
});
