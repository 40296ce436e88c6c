import { beforeEach, describe, expect, it } from "vitest";
import type { CustomerView, Tenant } from "../src/index.js";
import {
  addAgreement,
  addIdentifier,
  changeCustomerStatus,
  changeWalletStatus,
  creditWallet,
  decideKycVersion,
  fundPrefund,
  getCustomerSummary,
  listAgreements,
  listIdentifiers,
  onboardCustomer,
  reverseOperation,
  submitKycVersion,
  updateIdentifier,
} from "../src/index.js";
import { createCore, onboardingInput, refusal, tenantFixture } from "./support/core.js";

const kyc = (
  tierCode: string,
  reviewType: "upgrade" | "downgrade" | "periodic_review" | "event_driven_review",
  riskRating: "low" | "medium" | "high" | "prohibited" = "low",
) => ({
  tierCode,
  reviewType,
  verificationSource: "acme-kyc",
  sourceReference: "ref-2",
  evidence: { doc: "passport" },
  riskRating,
});

describe("customer lifecycle", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let customer: CustomerView;
  const ctx = () => core.ctxFor(acme);

  beforeEach(async () => {
    core = createCore();
    acme = tenantFixture("acme", { approvedKycLevels: ["tier_1", "tier_2"] });
    await core.run((tx) => tx.tenants.upsert(acme));
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 1e9, currency: "KES" }),
    );
    customer = await core.run((tx) => onboardCustomer(core.deps, ctx(), tx, onboardingInput()));
  });

  describe("identifiers", () => {
    it("a new primary demotes the previous primary of the same class only", async () => {
      const added = await core.run((tx) =>
        addIdentifier(core.deps, ctx(), tx, customer.uid, {
          class: "contact",
          type: "email",
          value: "amina@example.com",
          isPrimary: true,
          verificationStatus: "pending",
        }),
      );
      expect(added).toMatchObject({
        maskedValue: "a***@example.com",
        isPrimary: true,
        payoutEligible: false,
        validTo: null,
      });
      const { data } = await core.run((tx) => listIdentifiers(core.deps, ctx(), tx, customer.uid));
      expect(data.filter((i) => i.isPrimary).map((i) => [i.class, i.type])).toEqual([
        ["identity_document", "national_id"],
        ["contact", "email"],
      ]);
    });

    it("verifies with verifiedAt, refuses verified without it, and retires with validTo", async () => {
      const added = await core.run((tx) =>
        addIdentifier(core.deps, ctx(), tx, customer.uid, {
          class: "contact",
          type: "msisdn",
          value: "+254700000001",
          verificationStatus: "pending",
        }),
      );
      const bad = await refusal(
        core.run((tx) =>
          updateIdentifier(core.deps, ctx(), tx, customer.uid, added.uid, {
            verificationStatus: "verified",
            verifiedAt: null,
          }),
        ),
      );
      expect(bad.code).toBe("InvalidRequest");
      const ok = await core.run((tx) =>
        updateIdentifier(core.deps, ctx(), tx, customer.uid, added.uid, {
          verificationStatus: "verified",
          verifiedAt: "2026-11-22T10:00:00.000Z",
        }),
      );
      expect(ok).toMatchObject({ verificationStatus: "verified", payoutEligible: true });
      const retired = await core.run((tx) =>
        updateIdentifier(core.deps, ctx(), tx, customer.uid, added.uid, {
          verificationStatus: "verified",
          verifiedAt: "2026-11-22T10:00:00.000Z",
          validTo: added.validFrom,
        }),
      );
      expect(retired.payoutEligible).toBe(false);
    });

    it("refuses a verified duplicate within the tenant on add and on verification", async () => {
      const dup = await refusal(
        core.run((tx) =>
          addIdentifier(core.deps, ctx(), tx, customer.uid, {
            class: "contact",
            type: "msisdn",
            value: "+254712345678",
            verificationStatus: "verified",
          }),
        ),
      );
      expect(dup.code).toBe("Conflict");
      const other = await core.run((tx) =>
        onboardCustomer(core.deps, ctx(), tx, onboardingInput({ identifiers: [] })),
      );
      const pending = await core.run((tx) =>
        addIdentifier(core.deps, ctx(), tx, other.uid, {
          class: "contact",
          type: "msisdn",
          value: "+254712345678",
          verificationStatus: "pending",
        }),
      );
      const e = await refusal(
        core.run((tx) =>
          updateIdentifier(core.deps, ctx(), tx, other.uid, pending.uid, {
            verificationStatus: "verified",
            verifiedAt: "2026-11-22T10:00:00.000Z",
          }),
        ),
      );
      expect(e.code).toBe("Conflict");
    });

    it("a retired identifier gives its value up (a recycled number): the next holder verifies it, the retired one reads expired", async () => {
      const phone = customer.identifiers.find((i) => i.type === "msisdn")!;
      const msisdnOnly = onboardingInput().identifiers.filter((i) => i.type === "msisdn");
      const onboardSecond = () =>
        core.run((tx) => onboardCustomer(core.deps, ctx(), tx, onboardingInput({ identifiers: msisdnOnly })));
      const retire = (customerUid: string, uid: string, validTo: string) =>
        core.run((tx) =>
          updateIdentifier(core.deps, ctx(), tx, customerUid, uid, {
            verificationStatus: "verified",
            verifiedAt: "2026-11-22T10:00:00.000Z",
            validTo,
          }),
        );
      /** Retired at the identifier's validFrom: already past. */
      const retireNow = (customerUid: string, uid: string) =>
        retire(customerUid, uid, core.store.state.identifiers.get(uid)!.validFrom);
      const statusOf = async (customerUid: string, uid: string) =>
        (await core.run((tx) => listIdentifiers(core.deps, ctx(), tx, customerUid))).data.find(
          (i) => i.uid === uid,
        )?.verificationStatus;

      // Retiring later still holds the value.
      await retire(customer.uid, phone.uid, "2027-01-01T00:00:00.000Z");
      expect((await refusal(onboardSecond())).code).toBe("Conflict");

      // Retired now: onboarding takes the value, and the holder is expired.
      await retireNow(customer.uid, phone.uid);
      expect(await statusOf(customer.uid, phone.uid)).toBe("verified");
      const second = await onboardSecond();
      expect(second.identifiers[0]!.verificationStatus).toBe("verified");
      expect(await statusOf(customer.uid, phone.uid)).toBe("expired");

      // The new holder blocks the value again, until it retires too; then verifying takes it.
      const third = await core.run((tx) =>
        onboardCustomer(core.deps, ctx(), tx, onboardingInput({ identifiers: [] })),
      );
      const pending = await core.run((tx) =>
        addIdentifier(core.deps, ctx(), tx, third.uid, {
          class: "contact",
          type: "msisdn",
          value: "+254712345678",
          verificationStatus: "pending",
        }),
      );
      const verify = () =>
        core.run((tx) =>
          updateIdentifier(core.deps, ctx(), tx, third.uid, pending.uid, {
            verificationStatus: "verified",
            verifiedAt: "2026-11-22T10:05:00.000Z",
          }),
        );
      expect((await refusal(verify())).code).toBe("Conflict");
      const secondPhone = second.identifiers[0]!;
      await retireNow(second.uid, secondPhone.uid);
      expect(await verify()).toMatchObject({ verificationStatus: "verified", payoutEligible: true });
      expect(await statusOf(second.uid, secondPhone.uid)).toBe("expired");
    });

    it("a refused request gives nothing up: the retired holder stays verified", async () => {
      const phone = customer.identifiers.find((i) => i.type === "msisdn")!;
      await core.run((tx) =>
        updateIdentifier(core.deps, ctx(), tx, customer.uid, phone.uid, {
          verificationStatus: "verified",
          verifiedAt: "2026-11-22T10:00:00.000Z",
          validTo: core.store.state.identifiers.get(phone.uid)!.validFrom,
        }),
      );
      // The msisdn is free to take, but the national id is still held: 409, and nothing changes.
      expect(
        (await refusal(core.run((tx) => onboardCustomer(core.deps, ctx(), tx, onboardingInput())))).code,
      ).toBe("Conflict");
      expect(core.store.state.identifiers.get(phone.uid)?.verificationStatus).toBe("verified");
    });

    it("hides another tenant's customer and a foreign identifier", async () => {
      const other = tenantFixture("other");
      expect(
        (await refusal(core.run((tx) => listIdentifiers(core.deps, core.ctxFor(other), tx, customer.uid))))
          .code,
      ).toBe("NotFound");
      const second = await core.run((tx) =>
        onboardCustomer(core.deps, ctx(), tx, onboardingInput({ identifiers: [] })),
      );
      const e = await refusal(
        core.run((tx) =>
          updateIdentifier(core.deps, ctx(), tx, second.uid, customer.identifiers[0]!.uid, {
            verificationStatus: "revoked",
            verifiedAt: null,
          }),
        ),
      );
      expect(e.code).toBe("NotFound");
    });
  });

  describe("agreements", () => {
    it("records and lists with the evidence hash, refusing the portal channel", async () => {
      const input = {
        ...onboardingInput().agreements[0]!,
        agreementType: "privacy" as const,
        evidence: { b: 2, a: 1 },
      };
      const a = await core.run((tx) => addAgreement(core.deps, ctx(), tx, customer.uid, input));
      expect(a).toMatchObject({
        status: "accepted",
        agreementType: "privacy",
        evidenceHash: core.deps.hasher.sha256Hex('{"a":1,"b":2}'),
      });
      expect(a).not.toHaveProperty("evidence");
      expect((await core.run((tx) => listAgreements(core.deps, ctx(), tx, customer.uid))).data).toHaveLength(
        2,
      );
      const e = await refusal(
        core.run((tx) =>
          addAgreement(core.deps, ctx(), tx, customer.uid, { ...input, acceptedChannel: "portal" }),
        ),
      );
      expect(e.code).toBe("UnprocessableEntity");
    });
  });

  describe("KYC versions", () => {
    it("an upgrade to a non-tier_1 level waits for the operator; approval supersedes and moves the wallets", async () => {
      const v = await core.run((tx) =>
        submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_2", "upgrade")),
      );
      expect(v).toMatchObject({ state: "pending", effectiveFrom: null, tierCode: "tier_2" });
      expect(
        (
          await refusal(
            core.run((tx) =>
              submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_2", "periodic_review")),
            ),
          )
        ).code,
      ).toBe("Conflict");
      const approved = await core.run((tx) => decideKycVersion(core.deps, tx, v.uid, "approved", null));
      expect(approved.state).toBe("approved");
      const summary = await core.run((tx) =>
        getCustomerSummary(core.deps, ctx(), tx, customer.uid, { unmask: false }),
      );
      expect(summary.kyc?.tierCode).toBe("tier_2");
      const versions = [...core.store.state.kycVersions.values()].map((x) => x.state);
      expect(versions).toEqual(["superseded", "approved"]);
      expect(core.store.state.wallets.get(customer.walletUid)?.kycTierCode).toBe("tier_2");
      const changed = core.store.state.outbox
        .filter((e) => e.type === "customer.kyc_changed")
        .map((e) => JSON.parse(e.body).data.customer);
      expect(changed).toEqual([
        {
          uid: customer.uid,
          status: "active",
          kycVersionUid: v.uid,
          kycTierCode: "tier_2",
          kycVersionState: "approved",
          reviewType: "upgrade",
          rejectionReason: null,
        },
      ]);
      expect(
        (await refusal(core.run((tx) => decideKycVersion(core.deps, tx, v.uid, "rejected", "x")))).code,
      ).toBe("Conflict");
    });

    it("refuses a level of another currency than the customer's wallets (generic 422), even if approved", async () => {
      const both = tenantFixture("acme", { approvedKycLevels: ["tier_1", "tier_2", "tier_usd"] });
      await core.run((tx) => tx.tenants.upsert(both));
      const before = core.store.state.kycVersions.size;
      const refused = await refusal(
        core.run((tx) =>
          submitKycVersion(
            core.deps,
            core.ctxFor(both),
            tx,
            customer.uid,
            kyc("tier_usd", "periodic_review"),
          ),
        ),
      );
      expect(refused.code).toBe("UnprocessableEntity");
      expect(core.store.state.kycVersions.size).toBe(before);
      expect(core.store.state.wallets.get(customer.walletUid)?.kycTierCode).toBe("tier_1");
    });

    it("an upgrade or downgrade must move the maximum balance in its direction", async () => {
      expect(
        (
          await refusal(
            core.run((tx) => submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_1", "upgrade"))),
          )
        ).code,
      ).toBe("UnprocessableEntity");
      expect(
        (
          await refusal(
            core.run((tx) =>
              submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_2", "downgrade")),
            ),
          )
        ).code,
      ).toBe("UnprocessableEntity");
    });

    it("a downgrade to tier_1 is approved at once and blocks credits on a wallet above the new maximum", async () => {
      const up = await core.run((tx) =>
        submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_2", "upgrade")),
      );
      await core.run((tx) => decideKycVersion(core.deps, tx, up.uid, "approved", null));
      await core.run((tx) =>
        creditWallet(core.deps, ctx(), tx, {
          walletUid: customer.walletUid,
          amountMinor: 6_000_000,
          currency: "KES",
          clientReference: "a",
        }),
      );
      await core.run((tx) =>
        creditWallet(core.deps, ctx(), tx, {
          walletUid: customer.walletUid,
          amountMinor: 6_000_000,
          currency: "KES",
          clientReference: "b",
        }),
      );
      const down = await core.run((tx) =>
        submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_1", "downgrade")),
      );
      expect(down.state).toBe("approved");
      expect(core.store.state.wallets.get(customer.walletUid)?.status).toBe("credit_blocked");
      expect(
        core.store.state.outbox
          .filter((e) => e.type === "wallet.status_changed")
          .map((e) => JSON.parse(e.body).data.wallet),
      ).toEqual([{ uid: customer.walletUid, customerUid: customer.uid, status: "credit_blocked" }]);
      const e = await refusal(
        core.run((tx) =>
          creditWallet(core.deps, ctx(), tx, {
            walletUid: customer.walletUid,
            amountMinor: 1,
            currency: "KES",
            clientReference: "c",
          }),
        ),
      );
      expect(e.code).toBe("WalletNotActive");
    });

    it("a rejected version leaves the level and reports the reason", async () => {
      const v = await core.run((tx) =>
        submitKycVersion(core.deps, ctx(), tx, customer.uid, kyc("tier_2", "upgrade", "high")),
      );
      const r = await core.run((tx) =>
        decideKycVersion(core.deps, tx, v.uid, "rejected", "documents unreadable"),
      );
      expect(r.state).toBe("rejected");
      expect(core.store.state.wallets.get(customer.walletUid)?.kycTierCode).toBe("tier_1");
      const last = core.store.state.outbox.at(-1)!;
      expect(JSON.parse(last.body).data.customer).toMatchObject({
        kycVersionState: "rejected",
        rejectionReason: "documents unreadable",
      });
    });
  });

  describe("statuses", () => {
    /** A credit of 1 to the customer's wallet. */
    const creditOne = (clientReference: string) =>
      core.run((tx) =>
        creditWallet(core.deps, ctx(), tx, {
          walletUid: customer.walletUid,
          amountMinor: 1,
          currency: "KES",
          clientReference,
        }),
      );

    it("a suspended customer cannot receive; restricted can receive; events fire for the listed statuses", async () => {
      await core.run((tx) => changeCustomerStatus(core.deps, tx, customer.uid, "suspended"));
      const e = await refusal(creditOne("s"));
      expect(e.code).toBe("CustomerNotActive");
      await core.run((tx) => changeCustomerStatus(core.deps, tx, customer.uid, "restricted"));
      await creditOne("r");
      await core.run((tx) => changeCustomerStatus(core.deps, tx, customer.uid, "active"));
      expect(
        core.store.state.outbox
          .filter((x) => x.type === "customer.status_changed")
          .map((x) => JSON.parse(x.body).data.customer.status),
      ).toEqual(["suspended", "restricted"]);
      await core.run((tx) => changeWalletStatus(core.deps, tx, customer.walletUid, "frozen"));
      expect((await refusal(creditOne("f"))).code).toBe("WalletNotActive");
    });

    it("closes only an empty wallet: 409 while it holds funds", async () => {
      const credit = await creditOne("one");
      const close = () => core.run((tx) => changeWalletStatus(core.deps, tx, customer.walletUid, "closed"));
      const e = await refusal(close());
      expect([e.code, e.message]).toEqual([
        "Conflict",
        "The wallet still holds funds: move them out (and settle its payouts) before closing it",
      ]);
      expect(core.store.state.wallets.get(customer.walletUid)!.status).toBe("active");
      expect(core.store.state.outbox.filter((x) => x.type === "wallet.status_changed")).toEqual([]);
      // Emptied (here, by taking the credit back), it closes; closing again answers as it is.
      await core.run((tx) => reverseOperation(core.deps, tx, credit.uid));
      expect((await close()).status).toBe("closed");
      expect((await close()).status).toBe("closed");
    });

    it("closes only a customer whose wallets are empty: 409 while one holds funds; deceased is recorded at once", async () => {
      const credit = await creditOne("one");
      const set = (status: "closed" | "deceased" | "active") =>
        core.run((tx) => changeCustomerStatus(core.deps, tx, customer.uid, status));
      const e = await refusal(set("closed"));
      expect([e.code, e.message]).toEqual([
        "Conflict",
        "The customer's wallets still hold funds: move them out (and settle its payouts) before closing it",
      ]);
      expect(core.store.state.customers.get(customer.uid)!.status).toBe("active");
      expect(core.store.state.outbox.filter((x) => x.type === "customer.status_changed")).toEqual([]);
      // A death is a fact, not a decision: recorded whatever the wallets hold (movements stop).
      expect((await set("deceased")).status).toBe("deceased");
      await set("active");
      await core.run((tx) => reverseOperation(core.deps, tx, credit.uid));
      expect((await set("closed")).status).toBe("closed");
      expect((await set("closed")).status).toBe("closed");
    });
  });
});
