import { describe, expect, it } from "vitest";
import {
  assertPage,
  assertStorableStrings,
  changeCustomerStatus,
  changeWalletStatus,
  createMandate,
  creditWallet,
  decideKycVersion,
  listOperations,
  listWalletTransactions,
  listWebhookDeliveries,
  listWindow,
  receiveRailPayment,
  reportPayoutResult,
  resolveSuspense,
  setMandateStatus,
  submitKycVersion,
  updateIdentifier,
} from "../src/index.js";
import { coreWithCustomer, coreWithTenant, createCore, onboardingInput, refusal } from "./support/core.js";
import { createMandateWorld } from "./support/mandate-fixtures.js";

// What an embedder may pass from untyped JSON, past the TypeScript types: the core refuses it as
// the API would (a DomainError InvalidRequest naming the field) before it can pick a branch, be
// stored or reach a store, instead of taking an unknown outcome for "failed" or a store throwing.

const invalid = async (p: Promise<unknown>) => {
  const e = await refusal(p);
  return [e.code, e.details?.[0]?.field];
};

describe("values of a closed set", () => {
  it("are checked before anything is looked up, let alone moved", async () => {
    const core = createCore();
    const run = core.run;
    const d = core.deps;
    // Unknown uids throughout: a value outside the set is refused before the lookup (else NotFound).
    expect(
      await invalid(
        run((tx) =>
          reportPayoutResult(d, tx, {
            railCode: "sandbox_mobile",
            operationUid: "op_x",
            outcome: "CONFIRMED" as never,
          }),
        ),
      ),
    ).toEqual(["InvalidRequest", "outcome"]);
    expect(await invalid(run((tx) => resolveSuspense(d, tx, "sus_x", { action: "APPLY" } as never)))).toEqual(
      ["InvalidRequest", "action"],
    );
    expect(await invalid(run((tx) => setMandateStatus(d, tx, "man_x", "SUSPENDED" as never)))).toEqual([
      "InvalidRequest",
      "status",
    ]);
    expect(await invalid(run((tx) => decideKycVersion(d, tx, "kyc_x", "approve" as never, null)))).toEqual([
      "InvalidRequest",
      "decision",
    ]);
    expect(await invalid(run((tx) => changeWalletStatus(d, tx, "wal_x", "ACTIVE" as never)))).toEqual([
      "InvalidRequest",
      "status",
    ]);
    expect(await invalid(run((tx) => changeCustomerStatus(d, tx, "cus_x", "bogus" as never)))).toEqual([
      "InvalidRequest",
      "status",
    ]);
    // The known values still reach the lookup.
    expect((await refusal(run((tx) => setMandateStatus(d, tx, "man_x", "suspended")))).code).toBe("NotFound");
  });

  it("a mandate's frequency and amount rule, which later debits read", async () => {
    const w = await createMandateWorld();
    const create = (over: Record<string, unknown>) =>
      w.core.run((tx) =>
        createMandate(w.core.deps, w.core.ctxFor(w.acme), tx, w.mandateInput(w.alice, over)),
      );
    expect(await invalid(create({ frequency: "Monthly" }))).toEqual(["InvalidRequest", "frequency"]);
    expect(await invalid(create({ amountRule: "bogus" }))).toEqual(["InvalidRequest", "amountRule"]);
    expect(w.core.store.state.mandates.size).toBe(0);
  });
});

describe("a mandate's validity instants", () => {
  it("are RFC 3339 real calendar times in years 0000-9999, stored in the API's one form", async () => {
    const w = await createMandateWorld();
    const create = (over: Record<string, unknown>) =>
      w.core.run((tx) =>
        createMandate(w.core.deps, w.core.ctxFor(w.acme), tx, w.mandateInput(w.alice, over)),
      );
    for (const [field, value] of [
      // Text-compared, year 10000 sorted before today: it was activated (and expired) at once.
      ["validFrom", "+010000-01-01T00:00:00.000Z"],
      ["validTo", "+010001-01-01T00:00:00.000Z"],
      ["validFrom", "-000001-01-01T00:00:00.000Z"],
      // Date.parse took these for 2 March, 2001 and a date.
      ["validFrom", "2026-02-30T00:00:00Z"],
      ["validFrom", "1"],
      ["validTo", "Nov 22 2027"],
    ] as const) {
      expect(await invalid(create({ [field]: value })), value).toEqual(["InvalidRequest", field]);
    }
    expect(w.core.store.state.mandates.size).toBe(0);
    const m = await create({ validFrom: "2026-11-01T03:00:00+03:00", validTo: "2027-01-01T00:00:00.1234Z" });
    expect([m.validFrom, m.validTo]).toEqual(["2026-11-01T00:00:00.000Z", "2027-01-01T00:00:00.123Z"]);
  });
});

describe("pages of the tenant listings", () => {
  it("refuse a page or limit that is not a whole number from 1, or an unknown sort key", async () => {
    const { core, acme, walletUid } = await coreWithCustomer({ prefundMinor: 10_000 });
    for (let n = 0; n < 3; n++) {
      await core.run((tx) =>
        creditWallet(core.deps, core.ctxFor(acme), tx, {
          walletUid,
          amountMinor: 10,
          currency: "KES",
          clientReference: `p-${n}`,
        }),
      );
    }
    const sort = [{ field: "createdAt", direction: "DESC" }] as const;
    const list = (page: Record<string, unknown>) =>
      core.run((tx) =>
        listOperations(core.deps, core.ctxFor(acme), tx, {}, {
          page: 1,
          limit: 2,
          sort: [...sort],
          ...page,
        } as never),
      );
    for (const page of [
      { page: 0 },
      { page: -1 },
      { page: 1.5 },
      { limit: -1 },
      { limit: "2" },
      { limit: Number.NaN },
      { limit: Number.POSITIVE_INFINITY },
      { page: 1e300 },
      { page: 2 ** 40, limit: 2 ** 20 },
      { sort: [{ field: "amount", direction: "DESC" }] },
      { sort: [{ field: "createdAt", direction: "down" }] },
    ]) {
      expect((await refusal(list(page))).code, JSON.stringify(page)).toBe("InvalidRequest");
    }
    const ok = await list({ page: 2 });
    expect([ok.data.length, ok.meta]).toEqual([1, { total: 3, page: 2, limit: 2, totalPages: 2 }]);
    expect(() => assertPage({ page: 1, limit: 1e9, sort: [] })).not.toThrow();
  });

  it("the operator lists' clamp turns what is no number into the default and keeps offsets exact", async () => {
    const bounds = { fallback: 100, max: 1000 };
    expect(listWindow({ limit: Number.NaN, page: Number.NaN }, bounds)).toEqual({ limit: 100, offset: 0 });
    expect(listWindow({ limit: "5" as never }, bounds)).toEqual({ limit: 100, offset: 0 });
    expect(listWindow({ limit: Number.POSITIVE_INFINITY, page: 3 }, bounds)).toEqual({
      limit: 1000,
      offset: 2000,
    });
    const far = listWindow({ limit: 10, page: Number.POSITIVE_INFINITY }, bounds);
    expect(Number.isSafeInteger(far.offset)).toBe(true);
    expect(listWindow({ limit: 10, page: 1e300 }, bounds)).toEqual(far);
    // The delivery log too: every store gets a whole limit in range.
    const core = createCore();
    const seen: unknown[] = [];
    await core.run(async (tx) => {
      const list = tx.deliveries.list.bind(tx.deliveries);
      tx.deliveries.list = async (f) => {
        seen.push(f.limit);
        return list(f);
      };
      for (const limit of [Number.NaN, 1.5, 0, 5000, undefined]) await listWebhookDeliveries(tx, { limit });
    });
    expect(seen).toEqual([100, 1, 1, 1000, 100]);
  });
});

describe("text the stores keep", () => {
  it("refuses U+0000 and lone surrogates at any depth, naming the path; free-form objects are JSON text", async () => {
    const { core, onboard } = await coreWithTenant();
    const base = onboardingInput();
    expect(await invalid(onboard({ displayName: "x\ud800y" }))).toEqual(["InvalidRequest", "displayName"]);
    expect(await invalid(onboard({ displayName: "A\u0000" }))).toEqual(["InvalidRequest", "displayName"]);
    expect(
      await invalid(
        onboard({ identifiers: [{ ...base.identifiers[0], value: "+2547\udbff" }, base.identifiers[1]] }),
      ),
    ).toEqual(["InvalidRequest", "identifiers[0].value"]);
    expect(await invalid(onboard({ kyc: { ...base.kyc, sourceReference: "\udc00" } }))).toEqual([
      "InvalidRequest",
      "kyc.sourceReference",
    ]);
    expect(core.store.state.customers.size).toBe(0);
    // A pair is one character, and free-form objects may hold anything JSON can.
    const ok = await onboard({ displayName: "Amina 😀", metadata: { note: "\ud800\u0000" } });
    expect(ok.displayName).toBe("Amina 😀");
  });

  it("an assertion's sourceReference, which decides a refusal, is checked before it is compared", async () => {
    const w = await createMandateWorld();
    const input = w.mandateInput(w.alice);
    const e = await refusal(
      w.core.run((tx) =>
        createMandate(w.core.deps, w.core.ctxFor(w.acme), tx, {
          ...input,
          assertion: { ...input.assertion, sourceReference: "auth-\ud800" },
        }),
      ),
    );
    expect([e.code, e.details?.[0]?.field]).toEqual(["InvalidRequest", "assertion.sourceReference"]);
  });

  it("a rail payment's references and a KYC decision's reason", async () => {
    const core = createCore();
    const d = core.deps;
    const payment = (over: Record<string, unknown>) =>
      invalid(
        core.run((tx) =>
          receiveRailPayment(d, tx, {
            railCode: "sandbox_mobile",
            reference: "000000000000",
            amountMinor: 5,
            currency: "KES",
            providerReference: "p1",
            ...over,
          }),
        ),
      );
    expect(await payment({ providerReference: "p\u0000" })).toEqual(["InvalidRequest", "providerReference"]);
    // A currency that is no code at all (memory kept null; the SQL stores refused it NOT NULL).
    expect(await payment({ currency: null })).toEqual(["InvalidRequest", "currency"]);
    expect(await invalid(core.run((tx) => decideKycVersion(d, tx, "kyc_x", "rejected", "\ud800")))).toEqual([
      "InvalidRequest",
      "reason",
    ]);
  });

  it("a cyclic request is refused, not a stack overflow", () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => assertStorableStrings(loop)).toThrow(/nests too deep/);
  });
});

describe("time bounds of the listings", () => {
  it("are read as the API reads them: an operation of 10:00:00.5 is in from=10:00:00Z; a bad bound is 400", async () => {
    const { core, acme, walletUid } = await coreWithCustomer({
      start: "2026-11-22T10:00:00.500Z",
      prefundMinor: 10_000,
    });
    await core.run((tx) =>
      creditWallet(core.deps, core.ctxFor(acme), tx, {
        walletUid,
        amountMinor: 10,
        currency: "KES",
        clientReference: "t-1",
      }),
    );
    const page = { page: 1, limit: 10, sort: [{ field: "createdAt" as const, direction: "DESC" as const }] };
    const ops = (query: { from?: string; to?: string }) =>
      core.run((tx) =>
        listOperations(core.deps, core.ctxFor(acme), tx, { type: "wallet_credit", ...query }, page),
      );
    const statement = (query: { from?: string; to?: string }) =>
      core.run((tx) => listWalletTransactions(core.deps, core.ctxFor(acme), tx, walletUid, query, page));
    for (const query of [
      { from: "2026-11-22T10:00:00Z" },
      { from: "2026-11-22T13:00:00+03:00", to: "2026-11-22T13:00:01+03:00" },
      { to: "2026-11-22T10:00:01Z" },
    ]) {
      expect((await ops(query)).meta.total, JSON.stringify(query)).toBe(1);
      expect((await statement(query)).meta.total, JSON.stringify(query)).toBe(1);
    }
    expect((await ops({ from: "2026-11-22T10:00:01Z" })).meta.total).toBe(0);
    for (const bad of [
      { from: "2026-11-22 10:00:00" },
      { to: "+010000-01-01T00:00:00Z" },
      { from: "2026-02-30T00:00:00Z" },
    ]) {
      expect(await invalid(ops(bad)), JSON.stringify(bad)).toEqual(["InvalidRequest", Object.keys(bad)[0]]);
      expect(await invalid(statement(bad))).toEqual(["InvalidRequest", Object.keys(bad)[0]]);
    }
    // Validation before the lookup: a bad bound on an unknown wallet is still the 400.
    const unknown = core.run((tx) =>
      listWalletTransactions(core.deps, core.ctxFor(acme), tx, "wal_x", { from: "nope" }, page),
    );
    expect(await invalid(unknown)).toEqual(["InvalidRequest", "from"]);
  });
});

describe("the closed sets of a customer's records", () => {
  it("customer type, identifier class and verification, agreement type, review type and risk rating", async () => {
    const { core, onboard } = await coreWithTenant();
    const base = onboardingInput();
    const [contact, document] = base.identifiers;
    for (const [over, field] of [
      [{ customerType: "robot" }, "customerType"],
      [{ identifiers: [{ ...contact, class: "phone" }, document] }, "class"],
      [{ identifiers: [{ ...contact, verificationStatus: "VERIFIED" }, document] }, "verificationStatus"],
      [{ agreements: [{ ...base.agreements[0], agreementType: "terms" }] }, "agreementType"],
      [{ kyc: { ...base.kyc, riskRating: "bogus" } }, "riskRating"],
      [{ kyc: { ...base.kyc, reviewType: "upgrade" } }, "kyc.reviewType"],
    ] as const) {
      expect(await invalid(onboard(over)), JSON.stringify(over)).toEqual(["InvalidRequest", field]);
    }
    expect(core.store.state.customers.size).toBe(0);
  });

  it("a later KYC version's review type (never onboarding) and an identifier's new verification status", async () => {
    const { core, acme, customer } = await coreWithCustomer();
    const base = onboardingInput();
    const kyc = await refusal(
      core.run((tx) =>
        submitKycVersion(core.deps, core.ctxFor(acme), tx, customer.uid, {
          ...base.kyc,
          reviewType: "onboarding" as never,
        }),
      ),
    );
    expect([kyc.code, kyc.details?.[0]?.field]).toEqual(["InvalidRequest", "reviewType"]);
    const identifierUid = customer.identifiers[0]!.uid;
    const update = await refusal(
      core.run((tx) =>
        updateIdentifier(core.deps, core.ctxFor(acme), tx, customer.uid, identifierUid, {
          verificationStatus: "bogus" as never,
          verifiedAt: null,
        }),
      ),
    );
    expect([update.code, update.details?.[0]?.field]).toEqual(["InvalidRequest", "verificationStatus"]);
  });
});

describe("the instants and dates of a customer's records", () => {
  it("are refused unless RFC 3339 (a date YYYY-MM-DD), and stored in the API's one form", async () => {
    const { core, onboard } = await coreWithTenant();
    const base = onboardingInput();
    const [contact, document] = base.identifiers;
    const agreement = base.agreements[0]!;
    for (const [over, field] of [
      [{ dateOfBirth: "1990-02-31" }, "dateOfBirth"],
      [{ dateOfBirth: "01/02/1990" }, "dateOfBirth"],
      [{ dateOfBirth: 631_152_000_000 }, "dateOfBirth"],
      [{ identifiers: [{ ...contact, verifiedAt: "yesterday" }, document] }, "verifiedAt"],
      [{ agreements: [{ ...agreement, acceptedAt: "2026-11-22 09:59" }] }, "acceptedAt"],
      [{ agreements: [{ ...agreement, acceptedAt: undefined }] }, "acceptedAt"],
    ] as const) {
      expect(await invalid(onboard(over)), JSON.stringify(over)).toEqual(["InvalidRequest", field]);
    }
    expect(core.store.state.customers.size).toBe(0);

    const customer = await onboard({
      dateOfBirth: "1990-02-28",
      identifiers: [{ ...contact, verifiedAt: "2026-11-22T12:59:00.0009+03:00" }, document],
      agreements: [{ ...agreement, acceptedAt: "2026-11-22T09:59:00Z" }],
    });
    const sealedBirth = core.store.state.customers.get(customer.uid)?.dateOfBirth as string;
    expect(core.deps.vault.open(sealedBirth)).toBe("1990-02-28");
    const stored = [...core.store.state.identifiers.values()].find((i) => i.class === "contact");
    expect(stored?.verifiedAt).toBe("2026-11-22T09:59:00.000Z");
    const accepted = [...core.store.state.agreements.values()].map((a) => a.acceptedAt);
    expect(accepted).toEqual(["2026-11-22T09:59:00.000Z"]);
  });

  it("an identifier's update: verifiedAt and validTo compared and stored as instants", async () => {
    const { core, acme, customer } = await coreWithCustomer();
    const identifierUid = customer.identifiers[0]!.uid;
    const update = (input: Record<string, unknown>) =>
      core.run((tx) =>
        updateIdentifier(core.deps, core.ctxFor(acme), tx, customer.uid, identifierUid, input as never),
      );
    expect(await invalid(update({ verificationStatus: "verified", verifiedAt: "now" }))).toEqual([
      "InvalidRequest",
      "verifiedAt",
    ]);
    expect(await invalid(update({ verificationStatus: "verified" }))).toEqual([
      "InvalidRequest",
      "verifiedAt",
    ]);
    expect(
      await invalid(
        update({ verificationStatus: "revoked", verifiedAt: null, validTo: "2027-02-30T00:00:00Z" }),
      ),
    ).toEqual(["InvalidRequest", "validTo"]);
    // Before validFrom (10:00:00.0xxZ) as an instant, though after it as text.
    expect(
      await invalid(
        update({ verificationStatus: "revoked", verifiedAt: null, validTo: "2026-11-22T10:59:00+01:00" }),
      ),
    ).toEqual(["InvalidRequest", "validTo"]);
    const view = await update({
      verificationStatus: "verified",
      verifiedAt: "2026-11-22T13:00:00+03:00",
      validTo: "2027-01-01T03:00:00+03:00",
    });
    expect(view).toMatchObject({
      verifiedAt: "2026-11-22T10:00:00.000Z",
      validTo: "2027-01-01T00:00:00.000Z",
    });
  });
});
