import type { Tenant } from "@wallet/ledger-core";
import * as v from "valibot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agreementListSchema, agreementViewSchema } from "../src/agreements/schemas.js";
import { customerSummaryViewSchema, customerViewSchema } from "../src/customers/schemas.js";
import { identifierListSchema, identifierViewSchema } from "../src/identifiers/schemas.js";
import { kycVersionViewSchema } from "../src/kyc-versions/schemas.js";
import { customerStatusViewSchema, walletStatusViewSchema } from "../src/operator/customer-schemas.js";
import { walletBalanceSchema } from "../src/wallets/schemas.js";
import {
  ADMIN,
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  START,
  seedTenant,
  sha256Hex,
  TENANT,
} from "./support/fixture.js";
import { type OpenedStore, storeKinds } from "./support/stores.js";

/** Every event type, to an URL nobody listens on: events are only read from the outbox here. */
const WEBHOOK: Tenant["webhook"] = {
  url: "http://127.0.0.1:9/hooks",
  enabled: true,
  events: [],
  secrets: [{ kid: "wh1", secret: "webhook-secret-for-tests-only", createdAt: START }],
};

/** Clear values used in this suite: none may ever appear in an event or an identifier route. */
const MSISDN = "+254712345678";
const NATIONAL_ID = "12345678";
const EMAIL = "amina.otieno@example.com";
const SECOND_MSISDN = "+254733111222";
const THIRD_MSISDN = "+254799888777";

/**
 * RFC 8785 canonical JSON for what these tests hash (string keys, strings, integers, booleans,
 * null, arrays, objects): keys sorted by UTF-16 code units, no whitespace. Written here, apart from
 * the core's implementation, so the test can disagree with it.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const kycBody = (tierCode: string, reviewType: string, riskRating = "low") => ({
  tierCode,
  reviewType,
  verificationSource: "acme-kyc",
  sourceReference: "kyc-ref-2",
  evidence: { checks: ["address"], score: 91 },
  riskRating,
});

const agreementBody = (overrides: Record<string, unknown> = {}) => ({
  agreementType: "privacy",
  documentType: "privacy_notice",
  documentVersion: "v3",
  documentUri: "https://acme.example/privacy/v3",
  documentHash: "b".repeat(64),
  acceptedAt: "2026-11-22T09:30:00.000Z",
  acceptedChannel: "mobile_app",
  evidence: { userAgent: "AcmeApp/5.1", ip: "198.51.100.23", consent: { tick: true, seconds: 12 } },
  ...overrides,
});

/** One suite, every store: memory, SQLite and, when configured, Postgres. */
describe.each(storeKinds())("customer lifecycle (issue 3) on the $name store", (kind) => {
  let store: OpenedStore;
  let h: Harness;
  let acme: SeededTenant;
  let globex: SeededTenant;

  beforeEach(async () => {
    store = await kind.open();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, {
      id: "acme",
      approvedKycLevels: ["tier_1", "tier_2"],
      webhook: WEBHOOK,
    });
    globex = await seedTenant(store.uow, { id: "globex", webhook: WEBHOOK });
  });
  afterEach(async () => {
    await store.close();
  });

  const errorOf = async (res: Response) =>
    (await res.json()) as { error: string; message: string; details?: { field: string; issue: string }[] };
  const onboard = async (t: SeededTenant, msisdn = MSISDN, nationalId = NATIONAL_ID) => {
    const body = onboardingBody({}, msisdn);
    (body.identifiers[1] as { value: string }).value = nationalId;
    const res = await h.call(t, "POST", `${TENANT}/customers`, { body });
    expect(res.status).toBe(201);
    return v.parse(customerViewSchema, await res.json());
  };
  const addIdentifier = (t: SeededTenant, customerUid: string, body: unknown) =>
    h.call(t, "POST", `${TENANT}/customers/${customerUid}/identifiers`, { body });
  const listIdentifiers = async (t: SeededTenant, customerUid: string) => {
    const res = await h.call(t, "GET", `${TENANT}/customers/${customerUid}/identifiers`);
    expect(res.status).toBe(200);
    return v.parse(identifierListSchema, await res.json()).data;
  };
  const patchIdentifier = (t: SeededTenant, customerUid: string, iid: string, body: unknown) =>
    h.call(t, "PATCH", `${TENANT}/customers/${customerUid}/identifiers/${iid}`, { body });
  const submitKyc = (t: SeededTenant, customerUid: string, body: unknown) =>
    h.call(t, "POST", `${TENANT}/customers/${customerUid}/kyc-versions`, { body });
  const decide = (uid: string, body: unknown) =>
    h.admin("POST", `${ADMIN}/kyc-versions/${uid}/decision`, body);
  const summary = async (t: SeededTenant, customerUid: string) => {
    const res = await h.call(t, "GET", `${TENANT}/customers/${customerUid}`);
    expect(res.status).toBe(200);
    return v.parse(customerSummaryViewSchema, await res.json());
  };
  const credit = (t: SeededTenant, walletUid: string, amountMinor: number, clientReference: string) =>
    h.call(t, "POST", `${TENANT}/wallet-credits`, {
      body: { walletUid, amountMinor, currency: "KES", clientReference },
    });
  const fund = async (tenantId: string, amountMinor: number) => {
    const res = await h.admin("POST", `${ADMIN}/tenants/${tenantId}/prefund`, {
      amountMinor,
      currency: "KES",
    });
    expect(res.status).toBe(200);
  };
  const walletStatus = async (t: SeededTenant, walletUid: string) => {
    const res = await h.call(t, "GET", `${TENANT}/wallets/${walletUid}/balance`);
    expect(res.status).toBe(200);
    return v.parse(walletBalanceSchema, await res.json()).status;
  };
  /** The tenant's outbox, read through the store, bodies parsed. */
  const events = async (tenantId: string) =>
    (await store.uow.run((tx) => tx.outbox.list(tenantId))).map((e) => ({
      type: e.type,
      dedupKey: e.dedupKey,
      raw: e.body,
      body: JSON.parse(e.body) as {
        type: string;
        dedupKey: string;
        apiVersion: string;
        data: Record<string, unknown>;
      },
    }));
  const kycVersionStates = async (tenantId: string, customerUid: string) =>
    (await store.uow.run((tx) => tx.kycVersions.listByCustomer(tenantId, customerUid))).map((k) => [
      k.tierCode,
      k.state,
    ]);

  describe("identifiers", () => {
    it("POST: isPrimary true demotes the previous primary of the same class only; GET lists {data}", async () => {
      const customer = await onboard(acme);
      const res = await addIdentifier(acme, customer.uid, {
        class: "contact",
        type: "email",
        value: EMAIL,
        isPrimary: true,
        verificationStatus: "pending",
      });
      expect(res.status).toBe(201);
      expect(res.headers.get("Idempotent-Replayed")).toBe("false");
      const added = v.parse(identifierViewSchema, await res.json());
      expect(added).toMatchObject({
        class: "contact",
        type: "email",
        maskedValue: "a***@example.com",
        isPrimary: true,
        verificationStatus: "pending",
        verifiedAt: null,
        issuingCountry: null,
        validTo: null,
        payoutEligible: false,
      });
      expect(added.uid).toMatch(/^idn_/);

      const listed = await listIdentifiers(acme, customer.uid);
      expect(listed.map((i) => [i.type, i.isPrimary])).toEqual([
        ["msisdn", false],
        ["national_id", true],
        ["email", true],
      ]);
      expect(listed[0]).toMatchObject({ verificationStatus: "verified", payoutEligible: true });
      // The identity document stays primary of its own class and never is a payout destination.
      expect(listed[1]).toMatchObject({ issuingCountry: "KE", payoutEligible: false });

      // isPrimary left out means not primary: the email stays primary.
      const second = await addIdentifier(acme, customer.uid, {
        class: "contact",
        type: "msisdn",
        value: SECOND_MSISDN,
        verificationStatus: "unverified",
      });
      expect(second.status).toBe(201);
      expect(v.parse(identifierViewSchema, await second.json()).isPrimary).toBe(false);
      expect(
        (await listIdentifiers(acme, customer.uid)).filter((i) => i.isPrimary).map((i) => i.type),
      ).toEqual(["national_id", "email"]);
    });

    it("POST is idempotent: a replay returns the same identifier and adds nothing", async () => {
      const customer = await onboard(acme);
      const body = { class: "contact", type: "email", value: EMAIL, verificationStatus: "pending" };
      const first = await h.call(acme, "POST", `${TENANT}/customers/${customer.uid}/identifiers`, {
        body,
        idempotencyKey: "idn-replay",
      });
      const again = await h.call(acme, "POST", `${TENANT}/customers/${customer.uid}/identifiers`, {
        body,
        idempotencyKey: "idn-replay",
      });
      expect(again.status).toBe(201);
      expect(again.headers.get("Idempotent-Replayed")).toBe("true");
      expect(await again.text()).toBe(await first.text());
      expect(await listIdentifiers(acme, customer.uid)).toHaveLength(3);
    });

    it("POST validates the body: strict, enums, ISO timestamps, country code", async () => {
      const customer = await onboard(acme);
      const base = { class: "contact", type: "email", value: EMAIL, verificationStatus: "pending" };
      for (const [body, field] of [
        [{ ...base, extra: 1 }, "extra"],
        [{ ...base, class: "phone" }, "class"],
        [{ ...base, verificationStatus: "ok" }, "verificationStatus"],
        [{ ...base, verifiedAt: "yesterday" }, "verifiedAt"],
        [{ ...base, verifiedAt: "2026-02-30T00:00:00Z" }, "verifiedAt"],
        [{ ...base, issuingCountry: "KEN" }, "issuingCountry"],
        [{ ...base, value: undefined }, "value"],
        [{ ...base, isPrimary: "yes" }, "isPrimary"],
      ] as const) {
        const res = await addIdentifier(acme, customer.uid, body);
        expect(res.status).toBe(400);
        const err = await errorOf(res);
        expect(err.error).toBe("InvalidRequest");
        expect(err.details?.map((d) => d.field)).toEqual([field]);
        // Validation messages never echo what was sent.
        expect(JSON.stringify(err)).not.toContain(EMAIL);
      }
    });

    it("PATCH: the verifiedAt key is required, non-null when verified; validTo retires the identifier", async () => {
      const customer = await onboard(acme);
      const added = v.parse(
        identifierViewSchema,
        await (
          await addIdentifier(acme, customer.uid, {
            class: "contact",
            type: "msisdn",
            value: SECOND_MSISDN,
            verificationStatus: "pending",
          })
        ).json(),
      );

      const missing = await patchIdentifier(acme, customer.uid, added.uid, {
        verificationStatus: "verified",
      });
      expect(missing.status).toBe(400);
      expect((await errorOf(missing)).details).toEqual([{ field: "verifiedAt", issue: "required" }]);

      const nullVerified = await patchIdentifier(acme, customer.uid, added.uid, {
        verificationStatus: "verified",
        verifiedAt: null,
      });
      expect(nullVerified.status).toBe(400);
      expect((await errorOf(nullVerified)).details?.map((d) => d.field)).toEqual(["verifiedAt"]);

      const nullPending = await patchIdentifier(acme, customer.uid, added.uid, {
        verificationStatus: "pending",
        verifiedAt: null,
      });
      expect(nullPending.status).toBe(200);
      expect(v.parse(identifierViewSchema, await nullPending.json())).toMatchObject({
        verificationStatus: "pending",
        verifiedAt: null,
        payoutEligible: false,
      });

      const verifiedAt = "2026-11-22T10:05:00.000Z";
      const verified = await patchIdentifier(acme, customer.uid, added.uid, {
        verificationStatus: "verified",
        verifiedAt,
      });
      expect(verified.status).toBe(200);
      expect(v.parse(identifierViewSchema, await verified.json())).toMatchObject({
        uid: added.uid,
        verificationStatus: "verified",
        verifiedAt,
        validTo: null,
        payoutEligible: true,
      });

      // A validTo in the future keeps it eligible until that instant.
      const validTo = new Date(h.clock.now().getTime() + 60 * 60 * 1000).toISOString();
      const scheduled = await patchIdentifier(acme, customer.uid, added.uid, {
        verificationStatus: "verified",
        verifiedAt,
        validTo,
      });
      expect(scheduled.status).toBe(200);
      expect(v.parse(identifierViewSchema, await scheduled.json())).toMatchObject({
        validTo,
        payoutEligible: true,
      });
      h.clock.advanceMs(60 * 60 * 1000);
      const later = (await listIdentifiers(acme, customer.uid)).find((i) => i.uid === added.uid);
      expect(later).toMatchObject({ verificationStatus: "verified", validTo, payoutEligible: false });

      // validTo now: retired at once.
      const other = (await listIdentifiers(acme, customer.uid)).find(
        (i) => i.type === "msisdn" && i.isPrimary,
      );
      const retireAt = h.clock.now().toISOString();
      const retired = await patchIdentifier(acme, customer.uid, other!.uid, {
        verificationStatus: "verified",
        verifiedAt,
        validTo: retireAt,
      });
      expect(retired.status).toBe(200);
      expect(v.parse(identifierViewSchema, await retired.json())).toMatchObject({
        validTo: retireAt,
        payoutEligible: false,
      });

      // An offset is rewritten to UTC with milliseconds, as every timestamp the API returns.
      const offset = await patchIdentifier(acme, customer.uid, added.uid, {
        verificationStatus: "verified",
        verifiedAt: "2026-11-22T13:05:00+03:00",
        validTo: "2027-12-01T03:00:00+03:00",
      });
      expect(offset.status).toBe(200);
      expect(v.parse(identifierViewSchema, await offset.json())).toMatchObject({
        verifiedAt: "2026-11-22T10:05:00.000Z",
        validTo: "2027-12-01T00:00:00.000Z",
        payoutEligible: true,
      });

      for (const body of [
        { verificationStatus: "verified", verifiedAt, validTo: "tomorrow" },
        // Not a calendar date, or not RFC 3339 (the offset needs its minutes): 400, never a
        // date rolled into the next month or a text no comparison can read.
        { verificationStatus: "verified", verifiedAt: "2026-02-30T10:00:00Z" },
        { verificationStatus: "verified", verifiedAt, validTo: "2027-12-01T00:00:00+03" },
        { verificationStatus: "done", verifiedAt: null },
        { verifiedAt: null },
        { verificationStatus: "pending", verifiedAt: null, isPrimary: true },
      ]) {
        expect((await patchIdentifier(acme, customer.uid, added.uid, body)).status).toBe(400);
      }
    });

    it("409 for a verified identifier the tenant already holds (add and verify); another tenant may hold it", async () => {
      const first = await onboard(acme);
      const second = await onboard(acme, SECOND_MSISDN, "87654321");

      const dup = await addIdentifier(acme, second.uid, {
        class: "contact",
        type: "msisdn",
        value: "+254 712 345 678", // the same number, written differently
        verificationStatus: "verified",
      });
      expect(dup.status).toBe(409);
      expect((await errorOf(dup)).error).toBe("Conflict");
      // The type is compared without case, an email without case: still the same identifiers.
      for (const [type, value] of [
        ["MSISDN", MSISDN],
        [" Msisdn ", MSISDN],
      ] as const) {
        const res = await addIdentifier(acme, second.uid, {
          class: "contact",
          type,
          value,
          verificationStatus: "verified",
        });
        expect([type, res.status]).toEqual([type, 409]);
      }

      const pending = await addIdentifier(acme, second.uid, {
        class: "contact",
        type: "msisdn",
        value: MSISDN,
        verificationStatus: "pending",
      });
      expect(pending.status).toBe(201);
      const pendingUid = v.parse(identifierViewSchema, await pending.json()).uid;
      const verify = await patchIdentifier(acme, second.uid, pendingUid, {
        verificationStatus: "verified",
        verifiedAt: "2026-11-22T10:05:00.000Z",
      });
      expect(verify.status).toBe(409);
      expect((await errorOf(verify)).error).toBe("Conflict");
      expect(
        (await listIdentifiers(acme, second.uid)).find((i) => i.uid === pendingUid)?.verificationStatus,
      ).toBe("pending");

      // Another tenant: the same person is invisible, not a conflict.
      const elsewhere = await onboard(globex, SECOND_MSISDN, "87654321");
      const same = await addIdentifier(globex, elsewhere.uid, {
        class: "contact",
        type: "msisdn",
        value: MSISDN,
        verificationStatus: "verified",
      });
      expect(same.status).toBe(201);
      expect(first.uid).not.toBe(elsewhere.uid);
    });

    it("a retired holder gives its value up (a recycled number): one of two racing customers takes it, the other is 409", async () => {
      const first = await onboard(acme);
      const phone = (await listIdentifiers(acme, first.uid)).find((i) => i.type === "msisdn")!;
      const others = [
        await onboard(acme, SECOND_MSISDN, "87654321"),
        await onboard(acme, THIRD_MSISDN, "11223344"),
      ];
      const pendings: string[] = [];
      for (const other of others) {
        const res = await addIdentifier(acme, other.uid, {
          class: "contact",
          type: "msisdn",
          value: MSISDN,
          verificationStatus: "pending",
        });
        expect(res.status).toBe(201);
        pendings.push(v.parse(identifierViewSchema, await res.json()).uid);
      }
      const retire = await patchIdentifier(acme, first.uid, phone.uid, {
        verificationStatus: "verified",
        verifiedAt: "2026-11-22T10:05:00.000Z",
        validTo: phone.validFrom,
      });
      expect(retire.status).toBe(200);

      const answers = await Promise.all(
        others.map((other, n) =>
          patchIdentifier(acme, other.uid, pendings[n]!, {
            verificationStatus: "verified",
            verifiedAt: "2026-11-22T10:05:00.000Z",
          }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const statuses = await Promise.all(
        [first, ...others].map(async (c) =>
          (await listIdentifiers(acme, c.uid))
            .filter((i) => i.type === "msisdn" && i.maskedValue === phone.maskedValue)
            .map((i) => i.verificationStatus),
        ),
      );
      expect(statuses[0]).toEqual(["expired"]);
      expect([...statuses[1]!, ...statuses[2]!].sort()).toEqual(["pending", "verified"]);
    });

    it("never returns a clear value from the identifier routes, even with customers:pii", async () => {
      const customer = await onboard(acme);
      const texts: string[] = [];
      const post = await addIdentifier(acme, customer.uid, {
        class: "contact",
        type: "email",
        value: EMAIL,
        verificationStatus: "pending",
      });
      texts.push(await post.clone().text());
      const uid = ((await post.json()) as { uid: string }).uid;
      const patch = await patchIdentifier(acme, customer.uid, uid, {
        verificationStatus: "verified",
        verifiedAt: "2026-11-22T10:05:00.000Z",
      });
      expect(patch.status).toBe(200);
      texts.push(await patch.text());
      const list = await h.call(acme, "GET", `${TENANT}/customers/${customer.uid}/identifiers`);
      texts.push(await list.text());
      for (const text of texts) {
        for (const clear of [EMAIL, "amina.otieno", MSISDN, "712345678", NATIONAL_ID])
          expect(text).not.toContain(clear);
        expect(text).not.toMatch(/"value"/);
      }
      expect(texts[2]).toContain("a***@example.com");
    });
  });

  describe("agreements", () => {
    it("POST records the acceptance (evidence hashed, never returned); GET lists {data}", async () => {
      const customer = await onboard(acme);
      const body = agreementBody({ documentHash: "C".repeat(64) });
      const res = await h.call(acme, "POST", `${TENANT}/customers/${customer.uid}/agreements`, { body });
      expect(res.status).toBe(201);
      const text = await res.clone().text();
      const agreement = v.parse(agreementViewSchema, await res.json());
      expect(agreement).toEqual({
        uid: expect.stringMatching(/^agr_/),
        agreementType: "privacy",
        documentType: "privacy_notice",
        documentVersion: "v3",
        documentUri: "https://acme.example/privacy/v3",
        documentHash: "c".repeat(64),
        status: "accepted",
        acceptedAt: "2026-11-22T09:30:00.000Z",
        acceptedChannel: "mobile_app",
        evidenceHash: sha256Hex(canonical(body.evidence)),
      });
      // Canonical form: key order in the request does not change the hash.
      expect(canonical(body.evidence)).toBe(
        '{"consent":{"seconds":12,"tick":true},"ip":"198.51.100.23","userAgent":"AcmeApp/5.1"}',
      );
      expect(text).not.toContain('evidence"');
      expect(text).not.toContain("198.51.100.23");

      const listRes = await h.call(acme, "GET", `${TENANT}/customers/${customer.uid}/agreements`);
      expect(listRes.status).toBe(200);
      const listText = await listRes.clone().text();
      const { data } = v.parse(agreementListSchema, await listRes.json());
      expect(data.map((a) => [a.agreementType, a.status])).toEqual([
        ["wallet_opening", "accepted"],
        ["privacy", "accepted"],
      ]);
      expect(data[0]?.evidenceHash).toBe(sha256Hex(canonical({ ip: "203.0.113.7" })));
      expect(data[1]).toEqual(agreement);
      expect(listText).not.toContain("203.0.113.7");
      expect(listText).not.toContain("198.51.100.23");
      expect((await summary(acme, customer.uid)).agreements.map((a) => a.documentVersion)).toEqual([
        "v1",
        "v3",
      ]);
    });

    it("acceptedAt is stored in the API's one format: UTC with milliseconds, whatever offset was sent", async () => {
      const customer = await onboard(acme);
      const res = await h.call(acme, "POST", `${TENANT}/customers/${customer.uid}/agreements`, {
        body: agreementBody({ acceptedAt: "2026-11-22T12:30:00.123456+03:00" }),
      });
      expect(res.status).toBe(201);
      expect(v.parse(agreementViewSchema, await res.json()).acceptedAt).toBe("2026-11-22T09:30:00.123Z");
    });

    it("acceptedChannel portal is refused 422 naming the field; the body is validated (400)", async () => {
      const customer = await onboard(acme);
      const portal = await h.call(acme, "POST", `${TENANT}/customers/${customer.uid}/agreements`, {
        body: agreementBody({ acceptedChannel: "portal" }),
      });
      expect(portal.status).toBe(422);
      const err = await errorOf(portal);
      expect(err.error).toBe("UnprocessableEntity");
      expect(err.details?.map((d) => d.field)).toEqual(["acceptedChannel"]);

      for (const [overrides, field] of [
        [{ documentHash: "b".repeat(63) }, "documentHash"],
        [{ documentHash: "g".repeat(64) }, "documentHash"],
        [{ agreementType: "loan" }, "agreementType"],
        [{ acceptedAt: "today" }, "acceptedAt"],
        [{ acceptedAt: "2026-02-31T10:00:00Z" }, "acceptedAt"],
        [{ acceptedAt: "2026-11-22 09:30:00Z" }, "acceptedAt"],
        [{ acceptedAt: "2026-11-22T09:30:00+03" }, "acceptedAt"],
        [{ evidence: ["not", "an", "object"] }, "evidence"],
        [{ evidence: undefined }, "evidence"],
        [{ documentUri: undefined }, "documentUri"],
        [{ note: "x" }, "note"],
      ] as const) {
        const res = await h.call(acme, "POST", `${TENANT}/customers/${customer.uid}/agreements`, {
          body: agreementBody(overrides),
        });
        expect(res.status).toBe(400);
        expect((await errorOf(res)).details?.map((d) => d.field)).toEqual([field]);
      }
      const { data } = v.parse(
        agreementListSchema,
        await (await h.call(acme, "GET", `${TENANT}/customers/${customer.uid}/agreements`)).json(),
      );
      expect(data).toHaveLength(1);
    });
  });

  describe("KYC versions", () => {
    it("onboarding is refused here (400); evidence never returned, evidenceHash of the canonical evidence", async () => {
      const customer = await onboard(acme);
      const onboarding = await submitKyc(acme, customer.uid, kycBody("tier_2", "onboarding"));
      expect(onboarding.status).toBe(400);
      expect((await errorOf(onboarding)).details?.map((d) => d.field)).toEqual(["reviewType"]);
      for (const body of [
        { ...kycBody("tier_2", "upgrade"), riskRating: "none" },
        { ...kycBody("tier_2", "upgrade"), evidence: undefined },
        { ...kycBody("tier_2", "upgrade"), extra: true },
      ]) {
        expect((await submitKyc(acme, customer.uid, body)).status).toBe(400);
      }
      const body = kycBody("tier_2", "periodic_review");
      const res = await submitKyc(acme, customer.uid, body);
      expect(res.status).toBe(201);
      const text = await res.clone().text();
      expect(v.parse(kycVersionViewSchema, await res.json())).toEqual({
        uid: expect.stringMatching(/^kyc_/),
        customerUid: customer.uid,
        tierCode: "tier_2",
        reviewType: "periodic_review",
        state: "pending",
        verificationSource: "acme-kyc",
        sourceReference: "kyc-ref-2",
        riskRating: "low",
        evidenceHash: sha256Hex(canonical(body.evidence)),
        effectiveFrom: null,
        createdAt: expect.any(String),
      });
      expect(text).not.toContain("address");
    });

    it("a level outside the account's approval is 422 with the generic message", async () => {
      const customer = await onboard(globex);
      const res = await submitKyc(globex, customer.uid, kycBody("tier_2", "upgrade"));
      expect(res.status).toBe(422);
      const unknown = await submitKyc(globex, customer.uid, kycBody("tier_9", "upgrade"));
      expect(unknown.status).toBe(422);
      expect((await errorOf(unknown)).message).toBe((await errorOf(res)).message);
    });

    it("upgrade to tier_2 waits for the operator; second pending 409; approval supersedes, moves level and limits", async () => {
      const customer = await onboard(acme);
      const res = await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade"));
      expect(res.status).toBe(201);
      const pending = v.parse(kycVersionViewSchema, await res.json());
      expect(pending).toMatchObject({ state: "pending", tierCode: "tier_2", effectiveFrom: null });

      const second = await submitKyc(acme, customer.uid, kycBody("tier_2", "event_driven_review"));
      expect(second.status).toBe(409);
      expect((await errorOf(second)).error).toBe("Conflict");
      expect((await summary(acme, customer.uid)).kyc?.tierCode).toBe("tier_1");
      // Only a decision fires customer.kyc_changed.
      expect((await events("acme")).map((e) => e.type)).toEqual(["customer.created"]);

      const decided = await decide(pending.uid, { decision: "approved" });
      expect(decided.status).toBe(200);
      const approved = v.parse(kycVersionViewSchema, await decided.json());
      expect(approved).toMatchObject({
        uid: pending.uid,
        state: "approved",
        effectiveFrom: h.clock.now().toISOString(),
      });

      const after = await summary(acme, customer.uid);
      expect(after.kyc).toEqual({
        tierCode: "tier_2",
        tierName: "Standard",
        riskRating: "low",
        approvedAt: approved.effectiveFrom,
        limits: {
          currency: "KES",
          maxBalanceMinor: 50_000_000,
          maxSingleTxnMinor: 20_000_000,
          aggregateDailyLimitMinor: 60_000_000,
          monthlyOutLimitMinor: null,
        },
      });
      expect(await kycVersionStates("acme", customer.uid)).toEqual([
        ["tier_1", "superseded"],
        ["tier_2", "approved"],
      ]);
      // The wallet moved to tier_2: a credit above tier_1's maximum is now accepted.
      await fund("acme", 100_000_000);
      expect((await credit(acme, customer.walletUid, 15_000_000, "above-tier-1")).status).toBe(201);

      const changed = (await events("acme")).filter((e) => e.type === "customer.kyc_changed");
      expect(changed.map((e) => e.body.data)).toEqual([
        {
          customer: {
            uid: customer.uid,
            status: "active",
            kycVersionUid: pending.uid,
            kycTierCode: "tier_2",
            kycVersionState: "approved",
            reviewType: "upgrade",
            rejectionReason: null,
          },
        },
      ]);
      expect(changed[0]?.dedupKey).toBe(`${customer.uid}:customer.kyc_changed:2`);

      // Decided once: a second decision is 409; an unknown version 404; the body is strict.
      expect((await decide(pending.uid, { decision: "rejected" })).status).toBe(409);
      expect((await decide("kyc_nope", { decision: "approved" })).status).toBe(404);
      expect((await decide(pending.uid, { decision: "maybe" })).status).toBe(400);
      expect((await decide(pending.uid, { decision: "approved", note: "x" })).status).toBe(400);
      expect((await decide(pending.uid, { decision: "approved", reason: "r".repeat(501) })).status).toBe(400);
    });

    it("an upgrade or downgrade must move the maximum balance in its direction (422)", async () => {
      const customer = await onboard(acme);
      const up = await submitKyc(acme, customer.uid, kycBody("tier_1", "upgrade"));
      expect(up.status).toBe(422);
      expect((await errorOf(up)).error).toBe("UnprocessableEntity");
      const down = await submitKyc(acme, customer.uid, kycBody("tier_2", "downgrade"));
      expect(down.status).toBe(422);
      expect((await errorOf(down)).details?.map((d) => d.field)).toEqual(["tierCode"]);
      expect(await kycVersionStates("acme", customer.uid)).toEqual([["tier_1", "approved"]]);
    });

    it("a downgrade to tier_1 is approved at once; a wallet above the new maximum becomes credit_blocked", async () => {
      const customer = await onboard(acme);
      await fund("acme", 100_000_000);
      const up = v.parse(
        kycVersionViewSchema,
        await (await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade"))).json(),
      );
      expect((await decide(up.uid, { decision: "approved" })).status).toBe(200);
      expect((await credit(acme, customer.walletUid, 12_000_000, "big-1")).status).toBe(201);

      const res = await submitKyc(acme, customer.uid, kycBody("tier_1", "downgrade"));
      expect(res.status).toBe(201);
      const down = v.parse(kycVersionViewSchema, await res.json());
      expect(down).toMatchObject({ state: "approved", reviewType: "downgrade", tierCode: "tier_1" });
      expect(down.effectiveFrom).not.toBeNull();

      expect((await summary(acme, customer.uid)).kyc).toMatchObject({
        tierCode: "tier_1",
        limits: { maxBalanceMinor: 10_000_000, maxSingleTxnMinor: 7_000_000 },
      });
      expect(await kycVersionStates("acme", customer.uid)).toEqual([
        ["tier_1", "superseded"],
        ["tier_2", "superseded"],
        ["tier_1", "approved"],
      ]);
      expect(await walletStatus(acme, customer.walletUid)).toBe("credit_blocked");
      const refused = await credit(acme, customer.walletUid, 1, "after-block");
      expect(refused.status).toBe(422);
      expect((await errorOf(refused)).error).toBe("WalletNotActive");

      const all = await events("acme");
      expect(all.filter((e) => e.type === "wallet.status_changed").map((e) => e.body.data)).toEqual([
        { wallet: { uid: customer.walletUid, customerUid: customer.uid, status: "credit_blocked" } },
      ]);
      expect(
        all
          .filter((e) => e.type === "customer.kyc_changed")
          .map((e) => (e.body.data.customer as { kycTierCode: string }).kycTierCode),
      ).toEqual(["tier_2", "tier_1"]);
    });

    it("a downgrade to tier_1 within the new maximum keeps the wallet active", async () => {
      const customer = await onboard(acme);
      await fund("acme", 100_000_000);
      const up = v.parse(
        kycVersionViewSchema,
        await (await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade"))).json(),
      );
      await decide(up.uid, { decision: "approved" });
      expect((await credit(acme, customer.walletUid, 10_000_000, "at-max")).status).toBe(201);
      const down = await submitKyc(acme, customer.uid, kycBody("tier_1", "downgrade"));
      expect(v.parse(kycVersionViewSchema, await down.json()).state).toBe("approved");
      expect(await walletStatus(acme, customer.walletUid)).toBe("active");
      expect((await events("acme")).some((e) => e.type === "wallet.status_changed")).toBe(false);
    });

    it("a prohibited risk or a review that is not an upgrade/downgrade waits for the operator", async () => {
      const customer = await onboard(acme);
      const up = v.parse(
        kycVersionViewSchema,
        await (await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade"))).json(),
      );
      await decide(up.uid, { decision: "approved" });
      const prohibited = await submitKyc(acme, customer.uid, kycBody("tier_1", "downgrade", "prohibited"));
      expect(v.parse(kycVersionViewSchema, await prohibited.json()).state).toBe("pending");
      expect((await summary(acme, customer.uid)).kyc?.tierCode).toBe("tier_2");
    });

    it("rejection leaves the level, reports the reason in customer.kyc_changed; the pending slot frees up", async () => {
      const customer = await onboard(acme);
      const pending = v.parse(
        kycVersionViewSchema,
        await (await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade", "high"))).json(),
      );
      const res = await decide(pending.uid, { decision: "rejected", reason: "documents unreadable" });
      expect(res.status).toBe(200);
      expect(v.parse(kycVersionViewSchema, await res.json())).toMatchObject({
        state: "rejected",
        effectiveFrom: null,
      });
      expect((await summary(acme, customer.uid)).kyc?.tierCode).toBe("tier_1");
      expect(await kycVersionStates("acme", customer.uid)).toEqual([
        ["tier_1", "approved"],
        ["tier_2", "rejected"],
      ]);
      const changed = (await events("acme")).filter((e) => e.type === "customer.kyc_changed");
      expect(changed.map((e) => e.body.data.customer)).toEqual([
        {
          uid: customer.uid,
          status: "active",
          kycVersionUid: pending.uid,
          kycTierCode: "tier_2",
          kycVersionState: "rejected",
          reviewType: "upgrade",
          rejectionReason: "documents unreadable",
        },
      ]);
      // No longer pending: a new submission is accepted.
      expect((await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade"))).status).toBe(201);
    });
  });

  describe("operator statuses", () => {
    it("PATCH /admin/customers/{uid}: suspended refuses credits (422); active again accepts them; events fire", async () => {
      const customer = await onboard(acme);
      await fund("acme", 1_000_000);
      const res = await h.admin("PATCH", `${ADMIN}/customers/${customer.uid}`, { status: "suspended" });
      expect(res.status).toBe(200);
      expect(v.parse(customerStatusViewSchema, await res.json())).toEqual({
        uid: customer.uid,
        status: "suspended",
      });
      expect((await summary(acme, customer.uid)).status).toBe("suspended");
      const refused = await credit(acme, customer.walletUid, 100, "while-suspended");
      expect(refused.status).toBe(422);
      expect((await errorOf(refused)).error).toBe("CustomerNotActive");

      expect(
        (await h.admin("PATCH", `${ADMIN}/customers/${customer.uid}`, { status: "active" })).status,
      ).toBe(200);
      expect((await credit(acme, customer.walletUid, 100, "after-resume")).status).toBe(201);

      const changed = (await events("acme")).filter((e) => e.type === "customer.status_changed");
      // Back to active is not one of the statuses the event reports.
      expect(changed.map((e) => e.body.data)).toEqual([
        { customer: { uid: customer.uid, status: "suspended" } },
      ]);

      expect((await h.admin("PATCH", `${ADMIN}/customers/${customer.uid}`, { status: "gone" })).status).toBe(
        400,
      );
      expect((await h.admin("PATCH", `${ADMIN}/customers/${customer.uid}`, {})).status).toBe(400);
      expect((await h.admin("PATCH", `${ADMIN}/customers/cus_nope`, { status: "active" })).status).toBe(404);
      expect(
        (await h.admin("PATCH", `${ADMIN}/customers/${customer.uid}`, { status: "active" }, "wrong-token"))
          .status,
      ).toBe(401);
    });

    it("PATCH /admin/wallets/{uid}: frozen refuses credits (422); events fire", async () => {
      const customer = await onboard(acme);
      await fund("acme", 1_000_000);
      const res = await h.admin("PATCH", `${ADMIN}/wallets/${customer.walletUid}`, { status: "frozen" });
      expect(res.status).toBe(200);
      expect(v.parse(walletStatusViewSchema, await res.json())).toEqual({
        uid: customer.walletUid,
        customerUid: customer.uid,
        status: "frozen",
      });
      expect(await walletStatus(acme, customer.walletUid)).toBe("frozen");
      const refused = await credit(acme, customer.walletUid, 100, "while-frozen");
      expect(refused.status).toBe(422);
      expect((await errorOf(refused)).error).toBe("WalletNotActive");

      expect(
        (await h.admin("PATCH", `${ADMIN}/wallets/${customer.walletUid}`, { status: "active" })).status,
      ).toBe(200);
      expect((await credit(acme, customer.walletUid, 100, "after-thaw")).status).toBe(201);
      expect(
        (await events("acme")).filter((e) => e.type === "wallet.status_changed").map((e) => e.body.data),
      ).toEqual([{ wallet: { uid: customer.walletUid, customerUid: customer.uid, status: "frozen" } }]);

      expect(
        (await h.admin("PATCH", `${ADMIN}/wallets/${customer.walletUid}`, { status: "melted" })).status,
      ).toBe(400);
      expect((await h.admin("PATCH", `${ADMIN}/wallets/wal_nope`, { status: "frozen" })).status).toBe(404);
    });
  });

  describe("events", () => {
    it("customer.created on onboarding; no event body holds personal data", async () => {
      const customer = await onboard(acme);
      await fund("acme", 100_000_000);
      const email = await addIdentifier(acme, customer.uid, {
        class: "contact",
        type: "email",
        value: EMAIL,
        verificationStatus: "verified",
        verifiedAt: "2026-11-22T10:05:00.000Z",
      });
      expect(email.status).toBe(201);
      const up = v.parse(
        kycVersionViewSchema,
        await (await submitKyc(acme, customer.uid, kycBody("tier_2", "upgrade"))).json(),
      );
      await decide(up.uid, { decision: "approved" });
      expect((await credit(acme, customer.walletUid, 12_000_000, "big")).status).toBe(201);
      await submitKyc(acme, customer.uid, kycBody("tier_1", "downgrade"));
      await h.admin("PATCH", `${ADMIN}/customers/${customer.uid}`, { status: "restricted" });
      await h.admin("PATCH", `${ADMIN}/wallets/${customer.walletUid}`, { status: "dormant" });

      const all = await events("acme");
      expect(all.map((e) => e.type)).toEqual([
        "customer.created",
        "customer.kyc_changed",
        "wallet_credit.completed",
        "wallet.status_changed",
        "customer.kyc_changed",
        "customer.status_changed",
        "wallet.status_changed",
      ]);
      expect(all[0]?.body).toMatchObject({
        type: "customer.created",
        apiVersion: "v1",
        dedupKey: `${customer.uid}:customer.created:1`,
        data: { customer: { uid: customer.uid, status: "active" } },
      });
      for (const e of all) {
        for (const personal of [
          MSISDN,
          "712345678",
          NATIONAL_ID,
          EMAIL,
          "amina.otieno",
          "Wanjiru",
          "Kamau",
          "203.0.113.7",
          "liveness",
          "address",
        ]) {
          expect(e.raw).not.toContain(personal);
        }
      }
      // Events of another tenant are its own: globex saw nothing.
      expect(await events("globex")).toEqual([]);
    });
  });

  describe("tenancy and scopes", () => {
    it("another tenant's customer or identifier is 404, like one that does not exist", async () => {
      const customer = await onboard(acme);
      const identifierUid = customer.identifiers[0]!.uid;
      const foreign = await onboard(globex);
      const nobody = "cus_01JZZZZZZZZZZZZZZZZZZZZZZZ";
      for (const uid of [customer.uid, nobody]) {
        for (const res of [
          await h.call(globex, "GET", `${TENANT}/customers/${uid}/identifiers`),
          await addIdentifier(globex, uid, {
            class: "contact",
            type: "email",
            value: EMAIL,
            verificationStatus: "pending",
          }),
          await patchIdentifier(globex, uid, identifierUid, {
            verificationStatus: "revoked",
            verifiedAt: null,
          }),
          await h.call(globex, "GET", `${TENANT}/customers/${uid}/agreements`),
          await h.call(globex, "POST", `${TENANT}/customers/${uid}/agreements`, { body: agreementBody() }),
          await submitKyc(globex, uid, kycBody("tier_1", "periodic_review")),
        ]) {
          expect(res.status).toBe(404);
          expect((await errorOf(res)).error).toBe("NotFound");
        }
      }
      // An identifier of acme's customer through globex's own customer, or an unknown one: 404.
      for (const iid of [identifierUid, "idn_nope"]) {
        const res = await patchIdentifier(globex, foreign.uid, iid, {
          verificationStatus: "revoked",
          verifiedAt: null,
        });
        expect(res.status).toBe(404);
      }
      // Another customer's identifier within the same tenant is 404 too.
      const sibling = await onboard(acme, SECOND_MSISDN, "87654321");
      expect(
        (
          await patchIdentifier(acme, sibling.uid, identifierUid, {
            verificationStatus: "revoked",
            verifiedAt: null,
          })
        ).status,
      ).toBe(404);
      // Nothing changed at acme.
      expect((await listIdentifiers(acme, customer.uid))[0]?.verificationStatus).toBe("verified");
      expect((await summary(acme, customer.uid)).agreements).toHaveLength(1);
    });

    it("403 without customers:write on every write (before any lookup); reads need customers:read", async () => {
      const customer = await onboard(acme);
      const iid = customer.identifiers[0]!.uid;
      /** The operator narrows acme's scopes: its own customer is then out of reach for writes. */
      const narrow = (scopes: Tenant["scopes"]) =>
        store.uow.run((tx) =>
          tx.tenants.upsert({
            ...acme.tenant,
            webhook: WEBHOOK,
            approvedKycLevels: ["tier_1", "tier_2"],
            scopes,
          }),
        );

      await narrow(["customers:read"]);
      const writes = (uid: string) => [
        () =>
          addIdentifier(acme, uid, {
            class: "contact",
            type: "email",
            value: EMAIL,
            verificationStatus: "pending",
          }),
        () => patchIdentifier(acme, uid, iid, { verificationStatus: "revoked", verifiedAt: null }),
        () => h.call(acme, "POST", `${TENANT}/customers/${uid}/agreements`, { body: agreementBody() }),
        () => submitKyc(acme, uid, kycBody("tier_1", "periodic_review")),
      ];
      for (const uid of [customer.uid, "cus_nope"]) {
        for (const write of writes(uid)) {
          const res = await write();
          expect(res.status).toBe(403);
          expect((await errorOf(res)).error).toBe("Forbidden");
        }
      }
      // Reads still work with customers:read.
      expect(await listIdentifiers(acme, customer.uid)).toHaveLength(2);
      expect((await h.call(acme, "GET", `${TENANT}/customers/${customer.uid}/agreements`)).status).toBe(200);

      await narrow(["customers:write"]);
      for (const path of ["identifiers", "agreements"]) {
        const res = await h.call(acme, "GET", `${TENANT}/customers/${customer.uid}/${path}`);
        expect(res.status).toBe(403);
      }
      // Nothing was written while the scope was missing.
      await narrow(["customers:read"]);
      expect(await listIdentifiers(acme, customer.uid)).toHaveLength(2);
      expect(await kycVersionStates("acme", customer.uid)).toEqual([["tier_1", "approved"]]);
    });
  });

  it("the OpenAPI document describes the PATCH verifiedAt key as required and nullable", async () => {
    const res = await h.call(acme, "GET", `${TENANT}/openapi.json`);
    const doc = (await res.json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    const schema = doc.paths["/customers/{uid}/identifiers/{iid}"]?.patch?.requestBody?.content[
      "application/json"
    ]?.schema as { required: string[]; properties: Record<string, unknown> };
    expect([...schema.required].sort()).toEqual(["verificationStatus", "verifiedAt"]);
    expect(JSON.stringify(schema.properties.verifiedAt)).toContain('"null"');
    const kyc = doc.paths["/customers/{uid}/kyc-versions"]?.post?.requestBody?.content["application/json"]
      ?.schema as { properties: { reviewType: { enum: string[] } } };
    expect(kyc.properties.reviewType.enum).toEqual([
      "upgrade",
      "downgrade",
      "periodic_review",
      "event_driven_review",
    ]);
  });
});
