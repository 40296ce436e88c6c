import { addIdentifier, changeCustomerStatus, decideKycVersion } from "@wallet/ledger-core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { onboardingBody, send } from "../../../ledger-core/test/model/requests.js";
import { firstStopsAt, outcomeOf, postgresUrlFor, raceSuite, valueOrCode } from "./postgres-real.js";

/**
 * Changes to a customer's KYC versions and identifiers are decided by reading them: a customer
 * holds one pending KYC version at a time, a decision applies to a pending version only, and a
 * class has one primary identifier. On Postgres (read committed) two requests at once both passed
 * those reads: two submissions left two pending versions, an approval racing a rejection applied
 * both (the wallets moved to the new level, the version ended rejected, two customer.kyc_changed
 * events), and two new primary identifiers both stayed primary; of two status changes (operator),
 * the second could answer its status while the first one's stayed. The use cases now lock the
 * customer's row first (`customers.getForUpdate`).
 *
 * The interleaving is forced: a separate transaction holds the table in SHARE mode, which lets
 * reads (and row locks) through but stops every insert and update, so both requests are past
 * whatever reads they do unlocked before either writes; then it lets go.
 */
const pgUrl = postgresUrlFor("customer races");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(pgUrl === null)("changes to one customer at once (Postgres)", () => {
  const suite = raceSuite(pgUrl ?? "", { poolSize: 6 });
  let onboarded = 0;

  async function onboard(): Promise<string> {
    onboarded++;
    const body = onboardingBody(`+2547560000${String(onboarded).padStart(2, "0")}`, "tier_1", "low");
    const o = await send(suite.real, "onboard", `kyc-race-onboard-${onboarded}`, JSON.stringify(body));
    if (o.kind !== "answer") throw new Error(o.code);
    return JSON.parse(o.body).uid;
  }

  const submitBody = (customerUid: string, ref: string) =>
    JSON.stringify({
      customerUid,
      input: {
        tierCode: "tier_2",
        reviewType: "upgrade",
        verificationSource: "race",
        sourceReference: ref,
        evidence: {},
        riskRating: "low",
      },
    });

  /** Runs `contenders` at once while `table` takes no writes; their outcomes, in order. */
  async function whileWritesWait<T>(table: string, contenders: (() => Promise<T>)[]): Promise<T[]> {
    const blocker = new pg.Client({ connectionString: suite.url });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query(`lock table ${table} in share mode`);
      const running = contenders.map((c) => c());
      await sleep(500);
      await blocker.query("commit");
      return await Promise.all(running);
    } finally {
      await blocker.end();
    }
  }

  const versionsOf = async (customerUid: string) =>
    (
      await suite.sql.query(
        "select state, tier_code from kyc_versions where customer_uid = $1 order by created_at",
        [customerUid],
      )
    ).rows as { state: string; tier_code: string }[];

  const eventsOf = async (customerUid: string, type: string) =>
    Number(
      (
        await suite.sql.query(
          "select count(*) as n from outbox_events where resource_uid = $1 and type = $2",
          [customerUid, type],
        )
      ).rows[0].n,
    );

  it("two submissions: one is pending, the other is a 409", async () => {
    const customerUid = await onboard();
    const answers = await whileWritesWait(
      "kyc_versions",
      [0, 1].map(
        (i) => () =>
          send(suite.real, "kyc", `kyc-race-submit-${customerUid}-${i}`, submitBody(customerUid, `ref-${i}`)),
      ),
    );
    expect(answers.map(outcomeOf).sort()).toEqual(["Conflict", "ok"]);
    expect((await versionsOf(customerUid)).filter((v) => v.state === "pending")).toHaveLength(1);
  });

  it("an approval and a rejection: one decides, the other is a 409, and the wallet follows the one", async () => {
    const customerUid = await onboard();
    const submitted = await send(
      suite.real,
      "kyc",
      `kyc-race-one-${customerUid}`,
      submitBody(customerUid, "one"),
    );
    if (submitted.kind !== "answer") throw new Error(submitted.code);
    const versionUid = JSON.parse(submitted.body).uid as string;
    const decide = (decision: "approved" | "rejected") => () =>
      valueOrCode(
        async () =>
          (
            await suite.real.uow.run((tx) =>
              decideKycVersion(suite.real.deps, tx, versionUid, decision, "race"),
            )
          ).state as string,
      );
    const answers = await whileWritesWait("kyc_versions", [decide("approved"), decide("rejected")]);
    expect(answers.filter((a) => a === "Conflict")).toHaveLength(1);
    const winner = answers.find((a) => a !== "Conflict");
    const final = (await versionsOf(customerUid)).at(-1);
    expect(final?.state).toBe(winner);
    const tiers = (
      await suite.sql.query("select kyc_tier_code from wallets where customer_uid = $1", [customerUid])
    ).rows.map((r) => r.kyc_tier_code);
    expect(tiers).toEqual([winner === "approved" ? "tier_2" : "tier_1"]);
    expect(await eventsOf(customerUid, "customer.kyc_changed")).toBe(1);
  });

  it("two new primary identifiers of one class: one primary is left", async () => {
    const customerUid = await onboard();
    const add = (n: number) => () =>
      suite.real.uow.run((tx) =>
        addIdentifier(suite.real.deps, suite.real.ctx, tx, customerUid, {
          class: "contact",
          type: "msisdn",
          value: `+25475700000${n}`,
          isPrimary: true,
          verificationStatus: "unverified",
        }),
      );
    await whileWritesWait("identifiers", [add(1), add(2)]);
    const primaries = await suite.sql.query(
      "select count(*) as n from identifiers where customer_uid = $1 and class = 'contact' and is_primary = 1",
      [customerUid],
    );
    expect(Number(primaries.rows[0].n)).toBe(1);
  });

  it("two status changes: the customer ends as the later one answered", async () => {
    const customerUid = await onboard();
    const setStatus = (status: "suspended" | "active") => async () =>
      (await suite.real.uow.run((tx) => changeCustomerStatus(suite.real.deps, tx, customerUid, status)))
        .status;
    // The suspension stops at its customer.status_changed event, the customer updated; the
    // reactivation reads the customer then.
    const answers = await firstStopsAt(
      suite.url,
      "outbox_events",
      setStatus("suspended"),
      setStatus("active"),
    );
    expect(answers).toEqual(["suspended", "active"]);
    const row = await suite.sql.query("select status from customers where uid = $1", [customerUid]);
    expect(row.rows[0].status).toBe("active");
  });
});
