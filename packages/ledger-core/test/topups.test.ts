import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import type { CreateTopupIntentInput, CustomerView, Tenant } from "../src/index.js";
import {
  createTopupIntent,
  creditWallet,
  expireTopups,
  fundPrefund,
  getOperationDetail,
  getReceipt,
  getTopupIntent,
  intentReferenceFromHex,
  isValidIntentReference,
  luhnCheckDigit,
  onboardCustomer,
  receiveRailPayment,
} from "../src/index.js";
import { createFixedClock } from "../src/memory/index.js";
import {
  createCore,
  nodeHasher,
  onboardingInput,
  railsCatalog,
  refusal,
  tenantFixture,
} from "./support/core.js";

const APPROVED = ["sandbox_mobile", "sandbox_bank", "sandbox_collect_off", "sandbox_off", "sandbox_usd"];

describe("Luhn intent references", () => {
  it("computes the textbook check digit", () => {
    expect(luhnCheckDigit("7992739871")).toBe(3);
    expect(luhnCheckDigit("0")).toBe(0);
    expect(luhnCheckDigit("00000000000")).toBe(0);
    expect(isValidIntentReference("000000000000")).toBe(true);
    expect(isValidIntentReference(`${"799273987130".slice(0, 11)}0`)).toBe(false);
  });

  it("derives 12 digits whose last is the check digit, and catches every single-digit typo", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{64}$/), (hex) => {
        const ref = intentReferenceFromHex(hex);
        expect(ref).toMatch(/^[0-9]{12}$/);
        expect(isValidIntentReference(ref)).toBe(true);
        for (let i = 0; i < 12; i++) {
          for (let d = 0; d <= 9; d++) {
            if (String(d) === ref[i]) continue;
            const typo = `${ref.slice(0, i)}${d}${ref.slice(i + 1)}`;
            expect(isValidIntentReference(typo)).toBe(false);
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it("refuses what is not 12 digits", () => {
    for (const bad of ["", "12345678903", "1234567890300", "12345678903a", " 23456789030"])
      expect(isValidIntentReference(bad)).toBe(false);
  });
});

describe("top-up intents", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let customer: CustomerView;
  let walletUid: string;

  const ctx = (tenant = acme) => core.ctxFor(tenant);
  const input = (overrides: Partial<CreateTopupIntentInput> = {}): CreateTopupIntentInput => ({
    walletUid,
    amountMinor: 25_000,
    currency: "KES",
    railCode: "sandbox_mobile",
    clientReference: "tu-1",
    ...overrides,
  });
  const intent = (i: CreateTopupIntentInput, tenant = acme) =>
    core.run((tx) => createTopupIntent(core.deps, ctx(tenant), tx, i));
  const topups = () => [...core.store.state.operations.values()].filter((o) => o.type === "topup_c2b");
  const secondsBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;

  beforeEach(async () => {
    core = createCore();
    core.deps.catalog = railsCatalog();
    acme = tenantFixture("acme", { approvedRails: APPROVED });
    await core.run((tx) => tx.tenants.upsert(acme));
    await core.run((tx) => tx.tenants.upsert(tenantFixture("other", { approvedRails: APPROVED })));
    customer = await core.run((tx) => onboardCustomer(core.deps, ctx(), tx, onboardingInput()));
    walletUid = customer.walletUid;
  });

  it("issues a pending_provider intent with a Luhn reference, an expiry and payer instructions; no money moves", async () => {
    const journals = core.store.state.journals.length;
    const op = await intent(input());
    expect(op).toMatchObject({
      type: "topup_c2b",
      state: "pending_provider",
      amountMinor: 25_000,
      feeMinor: 0,
      taxMinor: 0,
      currency: "KES",
      clientReference: "tu-1",
      completedAt: null,
      railCode: "sandbox_mobile",
    });
    expect(op.intentReference).toMatch(/^[0-9]{12}$/);
    expect(isValidIntentReference(op.intentReference!)).toBe(true);
    expect(secondsBetween(op.createdAt, op.expiresAt!)).toBe(3600); // the rail's lifetime
    expect(op.payerInstructions).toBe(`Pay with reference ${op.intentReference}`);
    expect(core.store.state.journals.length).toBe(journals);

    const detail = await core.run((tx) => getOperationDetail(core.deps, ctx(), tx, op.uid));
    expect(detail.provider).toEqual({ state: "pending", reference: null, lastUpdatedAt: op.createdAt });
    expect(detail.timeline.map((t) => [t.fromState, t.toState])).toEqual([
      [null, "created"],
      ["created", "pending_provider"],
    ]);
    expect(core.store.state.operations.get(op.uid)).toMatchObject({
      destinationWalletUid: walletUid,
      sourceWalletUid: null,
      customerUid: customer.uid,
      fundsMovedAt: null,
    });
    // no receipt before money moves, and no event for issuing an intent
    expect((await refusal(core.run((tx) => getReceipt(core.deps, ctx(), tx, op.uid)))).code).toBe("NotFound");
    expect(core.store.state.outbox.filter((e) => e.type.startsWith("topup."))).toHaveLength(0);
  });

  it("GET /topup-intents/{uid} returns the detail with intentReference and expiresAt; 404 otherwise", async () => {
    const op = await intent(input());
    const read = await core.run((tx) => getTopupIntent(core.deps, ctx(), tx, op.uid));
    expect(read).toMatchObject({
      uid: op.uid,
      intentReference: op.intentReference,
      expiresAt: op.expiresAt,
      railCode: "sandbox_mobile",
      provider: { state: "pending" },
    });
    expect(read.timeline).toHaveLength(2);
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 100, currency: "KES" }),
    );
    const credit = await core.run((tx) =>
      creditWallet(core.deps, ctx(), tx, {
        walletUid,
        amountMinor: 1,
        currency: "KES",
        clientReference: "c",
      }),
    );
    for (const [uid, tenant] of [
      [credit.uid, acme],
      ["op_missing", acme],
      [op.uid, tenantFixture("other")],
    ] as const) {
      const e = await refusal(core.run((tx) => getTopupIntent(core.deps, ctx(tenant), tx, uid)));
      expect(e.code).toBe("NotFound");
    }
  });

  it("expiresInSeconds: 60..86400 accepted, outside refused, default the rail's lifetime else 3600", async () => {
    const a = await intent(input({ clientReference: "min", expiresInSeconds: 60 }));
    expect(secondsBetween(a.createdAt, a.expiresAt!)).toBe(60);
    const b = await intent(input({ clientReference: "max", expiresInSeconds: 86_400 }));
    expect(secondsBetween(b.createdAt, b.expiresAt!)).toBe(86_400);
    for (const bad of [59, 86_401, 90.5, 0, -60]) {
      const e = await refusal(intent(input({ clientReference: `bad-${bad}`, expiresInSeconds: bad })));
      expect(e.code, String(bad)).toBe("InvalidRequest");
    }
    // sandbox_bank sets no lifetime and no instructions
    const c = await intent(input({ clientReference: "dflt", railCode: "sandbox_bank" }));
    expect(secondsBetween(c.createdAt, c.expiresAt!)).toBe(3600);
    expect(c.payerInstructions).toBeNull();
    core.deps.catalog = railsCatalog({
      rails: railsCatalog().rails.map((r) =>
        r.code === "sandbox_bank" ? { ...r, intentLifetimeSeconds: 900 } : r,
      ),
    });
    const d = await intent(input({ clientReference: "rail", railCode: "sandbox_bank" }));
    expect(secondsBetween(d.createdAt, d.expiresAt!)).toBe(900);
    const e = await intent(
      input({ clientReference: "asked", railCode: "sandbox_bank", expiresInSeconds: 120 }),
    );
    expect(secondsBetween(e.createdAt, e.expiresAt!)).toBe(120);
  });

  it("refusals in order: 404 wallet, 409 clientReference, currency, generic rail 422, wallet and customer status", async () => {
    const other = tenantFixture("other", { approvedRails: APPROVED });
    expect((await refusal(intent(input({ currency: "USD" }), other))).code).toBe("NotFound");
    await intent(input({ clientReference: "dup" }));
    expect((await refusal(intent(input({ clientReference: "dup", currency: "USD" })))).code).toBe("Conflict");
    expect((await refusal(intent(input({ currency: "USD", railCode: "nope" })))).code).toBe(
      "CurrencyMismatch",
    );

    await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "credit_blocked"));
    const messages = new Set<string>();
    for (const railCode of ["nope", "sandbox_off", "sandbox_collect_off", "sandbox_usd"]) {
      const e = await refusal(intent(input({ clientReference: railCode, railCode })));
      expect(e.code, railCode).toBe("UnprocessableEntity");
      messages.add(e.message);
    }
    expect(messages.size).toBe(1);
    const narrow = { ...acme, approvedRails: ["sandbox_bank"] };
    expect((await refusal(intent(input({ clientReference: "unapproved" }), narrow))).message).toBe(
      [...messages][0],
    );

    expect((await refusal(intent(input({ clientReference: "blocked" })))).code).toBe("WalletNotActive");
    for (const status of ["frozen", "closed", "pending"] as const) {
      await core.run((tx) => tx.wallets.setStatus("acme", walletUid, status));
      expect((await refusal(intent(input({ clientReference: status })))).code).toBe("WalletNotActive");
    }
    await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "debit_blocked"));
    await intent(input({ clientReference: "debit-blocked-can-receive" }));
    await core.run((tx) => tx.customers.setStatus("acme", customer.uid, "suspended"));
    expect((await refusal(intent(input({ clientReference: "susp" })))).code).toBe("CustomerNotActive");
    await core.run((tx) => tx.customers.setStatus("acme", customer.uid, "restricted"));
    await intent(input({ clientReference: "restricted-can-receive" }));
    expect(
      topups()
        .map((o) => o.clientReference)
        .sort(),
    ).toEqual(["debit-blocked-can-receive", "dup", "restricted-can-receive"]);
  });

  it("refuses an intent for a payment the wallet could not receive now (KYC limits, 422); nothing is created", async () => {
    // tier_1: at most 7_000_000 a movement, a balance of at most 10_000_000.
    expect((await refusal(intent(input({ clientReference: "big", amountMinor: 7_000_001 })))).code).toBe(
      "LimitExceeded",
    );
    await intent(input({ clientReference: "at-limit", amountMinor: 7_000_000 }));
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 9_000_000, currency: "KES" }),
    );
    await core.run((tx) =>
      creditWallet(core.deps, ctx(), tx, {
        walletUid,
        amountMinor: 6_000_000,
        currency: "KES",
        clientReference: "c1",
      }),
    );
    expect((await refusal(intent(input({ clientReference: "over", amountMinor: 4_000_001 })))).code).toBe(
      "MaxBalanceExceeded",
    );
    await intent(input({ clientReference: "fits", amountMinor: 4_000_000 }));
    expect(
      topups()
        .map((o) => o.clientReference)
        .sort(),
    ).toEqual(["at-limit", "fits"]);
  });

  it("refuses (422) an intent whose charges exceed its amount: a top-up never takes money out of the wallet", async () => {
    core.deps.catalog = railsCatalog({
      feeSchedules: [
        {
          ruleCode: "topup_dear",
          versionNo: 1,
          operationType: "topup_c2b",
          railCode: "sandbox_mobile",
          currency: "KES",
          components: [{ label: "Fee", type: "flat", amountMinor: 500, refundable: false }],
        },
      ],
    });
    const e = await refusal(intent(input({ clientReference: "small", amountMinor: 499 })));
    expect([e.code, e.details]).toEqual([
      "UnprocessableEntity",
      [{ field: "amountMinor", issue: "must be at least the charges of 500" }],
    ]);
    expect(topups()).toHaveLength(0);
    await intent(input({ clientReference: "even", amountMinor: 500 }));
    expect(topups().map((o) => o.clientReference)).toEqual(["even"]);
  });

  it("issues distinct references to many intents", async () => {
    const refs = new Set<string>();
    for (let i = 0; i < 50; i++)
      refs.add((await intent(input({ clientReference: `many-${i}` }))).intentReference!);
    expect(refs.size).toBe(50);
  });

  it("cannot be worked out from the operation uid: it is keyed by the service's secret", async () => {
    const first = await intent(input({ clientReference: "keyed-1" }));
    const unkeyed = intentReferenceFromHex(nodeHasher.sha256Hex(`intent-reference:${first.uid}:0`));
    expect(first.intentReference).not.toBe(unkeyed);
    // The same uid under another key (another deployment) draws another reference.
    const keyed = core.deps.vault.blindIndex("acme", "intent-reference", `${first.uid}:0`);
    expect(first.intentReference).toBe(
      intentReferenceFromHex(nodeHasher.sha256Hex(`intent-reference:${keyed}`)),
    );
  });

  describe("at exactly expiresAt", () => {
    // The expiry job lists intents with expiresAt <= asOf; its check under the lock must agree.
    it("the expiry job expires the intent", async () => {
      const op = await intent(input({ clientReference: "exp-1" }));
      expect(await core.run((tx) => expireTopups(core.deps, tx, op.expiresAt!, 100))).toBe(1);
      expect(core.store.state.operations.get(op.uid)!.state).toBe("failed");
    });

    // ...and a payment arriving at that instant finds it expired, whichever runs first.
    it("a payment goes to suspense as expired", async () => {
      const op = await intent(input({ clientReference: "exp-2" }));
      core.deps.clock = createFixedClock(op.expiresAt!);
      const result = await core.run((tx) =>
        receiveRailPayment(core.deps, tx, {
          railCode: "sandbox_mobile",
          reference: op.intentReference!,
          amountMinor: 25_000,
          currency: "KES",
          providerReference: "prov-at-expiry",
        }),
      );
      expect(result.matched).toBe(false);
      const item = [...core.store.state.suspense.values()].find((i) => i.uid === result.suspenseUid);
      expect(item?.reason).toBe("expired");
    });
  });

  describe("reference collisions", () => {
    /** A vault and hasher whose first draw for every intent is the same digest: forces collisions. */
    const collide = (always = false) => {
      const vault = core.deps.vault;
      core.deps.vault = {
        ...vault,
        blindIndex: (tenantId, kind, value) =>
          kind === "intent-reference" && (always || value.endsWith(":0"))
            ? "colliding"
            : vault.blindIndex(tenantId, kind, value),
      };
      core.deps.hasher = {
        sha256Hex: (d: string) =>
          d === "intent-reference:colliding" ? "ab".repeat(32) : nodeHasher.sha256Hex(d),
      };
    };
    const fixedRef = intentReferenceFromHex("ab".repeat(32));

    it("draws again while a live intent holds the reference, and reuses it once that intent is over", async () => {
      collide();
      const first = await intent(input({ clientReference: "c1" }));
      expect(first.intentReference).toBe(fixedRef);
      const second = await intent(input({ clientReference: "c2" }));
      expect(second.intentReference).not.toBe(fixedRef);
      expect(isValidIntentReference(second.intentReference!)).toBe(true);

      // another tenant's live intent blocks the reference too: a payment names no tenant
      const otherTenant = tenantFixture("other", { approvedRails: APPROVED });
      const otherCustomer = await core.run((tx) =>
        onboardCustomer(core.deps, ctx(otherTenant), tx, onboardingInput()),
      );
      const third = await intent(
        input({ clientReference: "c3", walletUid: otherCustomer.walletUid }),
        otherTenant,
      );
      expect(third.intentReference).not.toBe(fixedRef);

      await core.run((tx) => expireTopups(core.deps, tx, "2026-11-22T12:00:00.000Z", 100));
      const fourth = await intent(input({ clientReference: "c4" }));
      expect(fourth.intentReference).toBe(fixedRef);
    });

    it("gives up after a bounded number of draws (a broken generator, not bad luck)", async () => {
      collide(true);
      await intent(input({ clientReference: "c1" }));
      await expect(intent(input({ clientReference: "c2" }))).rejects.toThrow(/no free intent reference/);
      expect(topups()).toHaveLength(1);
    });
  });
});
