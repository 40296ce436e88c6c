import { changeCustomerStatus, isDomainError, updateIdentifier } from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import {
  assertionFor,
  mandateAgreement,
  onboardingBody,
  send,
} from "../../../ledger-core/test/model/requests.js";
import { CURRENCY } from "../../../ledger-core/test/model/world.js";
import { firstStopsAt, outcomeOf, postgresUrlFor, raceSuite } from "./postgres-real.js";

/**
 * Deadlocks a concurrency audit found on Postgres, each answered 503 to one of two valid requests:
 * - POST /mandates share-locks the wallet, and its agreement's and mandate's foreign keys to the
 *   customer are checked at COMMIT (deferred) with FOR KEY SHARE on the customer's row; a change
 *   that locked the customer, then waits for the wallet (a KYC approval, a status change, an
 *   identifier's revocation) closed a cycle while it held the customer FOR UPDATE. Rows locked
 *   for a change are now locked FOR NO KEY UPDATE (no key column ever changes), which a foreign
 *   key's check does not wait for;
 * - two onboardings naming the same two verified identifiers in opposite orders each waited on the
 *   unique index for the other's first insert. Each verified value is now claimed under a lock of
 *   its own, taken in one order (by blind index), so the second waits for the first and is a 409.
 */
const pgUrl = postgresUrlFor("lock cycles");

describe.skipIf(pgUrl === null)("lock cycles between valid requests (Postgres)", () => {
  const suite = raceSuite(pgUrl ?? "", { poolSize: 8 });
  let n = 0;

  async function onboard(tier = "tier_2") {
    n++;
    const body = JSON.stringify(onboardingBody(`+2547650000${String(n).padStart(2, "0")}`, tier, "low"));
    const o = await send(suite.real, "onboard", `cycle-onboard-${n}`, body);
    if (o.kind !== "answer") throw new Error(o.code);
    const v = JSON.parse(o.body) as {
      uid: string;
      walletUid: string;
      identifiers: { uid: string; type: string }[];
    };
    const msisdnUid = v.identifiers.find((i) => i.type === "msisdn")?.uid as string;
    return { customerUid: v.uid, walletUid: v.walletUid, msisdnUid };
  }

  const mandate = (c: { customerUid: string; walletUid: string }, tag: string) => async () =>
    outcomeOf(
      await send(
        suite.real,
        "mandate",
        `cycle-mandate-${tag}`,
        JSON.stringify({
          customerUid: c.customerUid,
          walletUid: c.walletUid,
          beneficiaryEntityCode: "POWERCO",
          clientReference: `cycle-mandate-${tag}`,
          amountRule: "up_to",
          fixedOrMaxAmountMinor: 10_000,
          frequency: "monthly",
          currency: CURRENCY,
          validFrom: suite.real.clock.now().toISOString(),
          validTo: null,
          agreement: mandateAgreement,
          assertion: assertionFor(suite.real, `cycle-session-${tag}`, c.customerUid),
        }),
      ),
    );

  const outcome = (work: () => Promise<unknown>) => async () => {
    try {
      await work();
      return "ok";
    } catch (e) {
      return isDomainError(e) ? e.code : `${(e as Error).name}: ${(e as Error).message}`;
    }
  };

  // The mandate stops at its first write (the agreement), its wallet share-locked; the change then
  // locks the customer and waits for the wallet; then the mandate commits, and the change.
  it("POST /mandates against an auto-approved KYC downgrade of its customer: both answered", async () => {
    const c = await onboard();
    const downgrade = async () =>
      outcomeOf(
        await send(
          suite.real,
          "kyc",
          `cycle-kyc-${c.customerUid}`,
          JSON.stringify({
            customerUid: c.customerUid,
            input: {
              tierCode: "tier_1",
              reviewType: "downgrade",
              verificationSource: "x",
              sourceReference: `cycle-${c.customerUid}`,
              evidence: {},
              riskRating: "low",
            },
          }),
        ),
      );
    expect(await firstStopsAt(suite.url, "agreements", mandate(c, "kyc"), downgrade)).toEqual(["ok", "ok"]);
  });

  it("POST /mandates against the operator's suspension of its customer: both answered", async () => {
    const c = await onboard();
    const suspend = outcome(() =>
      suite.real.uow.run((tx) => changeCustomerStatus(suite.real.deps, tx, c.customerUid, "suspended")),
    );
    expect(await firstStopsAt(suite.url, "agreements", mandate(c, "suspend"), suspend)).toEqual(["ok", "ok"]);
  });

  it("POST /mandates against the revocation of one of its customer's identifiers: both answered", async () => {
    const c = await onboard();
    const revoke = outcome(() =>
      suite.real.uow.run((tx) =>
        updateIdentifier(suite.real.deps, suite.real.ctx, tx, c.customerUid, c.msisdnUid, {
          verificationStatus: "revoked",
          verifiedAt: null,
        }),
      ),
    );
    expect(await firstStopsAt(suite.url, "agreements", mandate(c, "revoke"), revoke)).toEqual(["ok", "ok"]);
  });

  describe("two onboardings naming the same two verified identifiers in opposite orders", () => {
    const body = (first: "msisdn" | "email", k: number) => {
      const b = onboardingBody(`+25476800${String(k).padStart(4, "0")}`, "tier_1", "low");
      const msisdn = {
        class: "contact",
        type: "msisdn",
        value: `+25476800${String(k).padStart(4, "0")}`,
        isPrimary: true,
        verificationStatus: "verified",
      };
      const email = {
        class: "contact",
        type: "email",
        value: `same${k}@example.com`,
        isPrimary: false,
        verificationStatus: "verified",
      };
      b.identifiers = (first === "msisdn" ? [msisdn, email] : [email, msisdn]) as typeof b.identifiers;
      return JSON.stringify(b);
    };
    const onboarding = (first: "msisdn" | "email", k: number) => async () => {
      try {
        return outcomeOf(await send(suite.real, "onboard", `cycle-twins-${first}-${k}`, body(first, k)));
      } catch (e) {
        return `${(e as Error).name}: ${(e as Error).message}`;
      }
    };

    it("forced (both stop at their first identifier): one 201, one 409", async () => {
      const answers = await firstStopsAt(
        suite.url,
        "identifiers",
        onboarding("msisdn", 1),
        onboarding("email", 1),
      );
      expect([...answers].sort()).toEqual(["Conflict", "ok"]);
    });

    it("unforced, 10 pairs at once: always one 201 and one 409", async () => {
      const bad: string[] = [];
      for (let k = 2; k < 12; k++) {
        const answers = await Promise.all([onboarding("msisdn", k)(), onboarding("email", k)()]);
        if ([...answers].sort().join() !== "Conflict,ok") bad.push(answers.join(" | "));
      }
      expect(bad).toEqual([]);
    });
  });
});
