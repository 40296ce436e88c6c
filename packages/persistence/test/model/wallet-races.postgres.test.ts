import { changeWalletStatus, fundPrefund, type WalletStatus } from "@wallet/ledger-core";
import { beforeAll, describe, expect, it } from "vitest";
import { send } from "../../../ledger-core/test/model/requests.js";
import { CURRENCY, modelCatalog, TENANT_ID } from "../../../ledger-core/test/model/world.js";
import {
  creditBody,
  firstStopsAt,
  fundedCustomer,
  outcomeOf,
  postgresUrlFor,
  raceSuite,
  valueOrCode,
} from "./postgres-real.js";

/**
 * Changes to one wallet at once on Postgres (read committed), each interleaving forced with
 * `firstStopsAt`:
 * - A KYC decision moves the customer's wallets to the new level and marks credit_blocked a wallet
 *   whose balance is already above the new maximum; a credit checks the maximum of the level it
 *   read. A credit read the wallet's level before locking anything, so a downgrade approved while
 *   the credit was in flight left the wallet above its new maximum and still active. A movement
 *   now reads its wallet share-locked (`wallets.getWithCustomer`): the decision's update of the
 *   wallet waits for the movement, and a movement that reads the wallet after the decision's
 *   update waits for it and sees the new level.
 * - A status change (operator) and a KYC decision decided on the wallet's status as they had read
 *   it, unlocked: a downgrade racing a freeze overwrote `frozen` with `credit_blocked` (debits
 *   allowed again), and of two status changes the second could answer its status while the first
 *   one's stayed. Both now read the wallet locked (`wallets.getForUpdate`).
 */
const pgUrl = postgresUrlFor("wallet races");

const tier1Max = modelCatalog.kycLevels.find((l) => l.code === "tier_1")?.maxBalanceMinor ?? 0;

describe.skipIf(pgUrl === null)("changes to one wallet at once (Postgres)", () => {
  const suite = raceSuite(pgUrl ?? "", { poolSize: 6 });
  let onboarded = 0;

  // Enough for every wallet the tests fund (the world starts with 3,000,000).
  beforeAll(() =>
    suite.real.uow.run((tx) =>
      fundPrefund(suite.real.deps, tx, { tenantId: TENANT_ID, amountMinor: 10_000_000, currency: CURRENCY }),
    ),
  );

  /** A tier_2 customer whose wallet holds a little under tier_1's maximum. */
  async function walletNearTier1Max(): Promise<{ customerUid: string; walletUid: string }> {
    onboarded++;
    const msisdn = `+2547580000${String(onboarded).padStart(2, "0")}`;
    return fundedCustomer(suite.real, `level-race-${onboarded}`, msisdn, 900_000);
  }

  /** tier_1 is approved on submission (no review): the submission applies the decision. */
  const downgradeBody = (customerUid: string) =>
    JSON.stringify({
      customerUid,
      input: {
        tierCode: "tier_1",
        reviewType: "downgrade",
        verificationSource: "race",
        sourceReference: `down-${customerUid}`,
        evidence: {},
        riskRating: "low",
      },
    });

  async function walletState(walletUid: string) {
    const wallet = await suite.sql.query("select status, kyc_tier_code from wallets where uid = $1", [
      walletUid,
    ]);
    const balance = await suite.sql.query(
      "select coalesce(sum(balance_minor), 0) as b from accounts where account_key in ($1, $2)",
      [`wallet:${walletUid}`, `wallet:${walletUid}:hold`],
    );
    return {
      status: wallet.rows[0].status as string,
      tier: wallet.rows[0].kyc_tier_code as string,
      balanceMinor: Number(balance.rows[0].b),
    };
  }

  it("the credit reads the wallet first: the downgrade waits for it, then blocks the wallet", async () => {
    const { customerUid, walletUid } = await walletNearTier1Max();
    // The credit stops at inserting its operation, the wallet read; the downgrade runs meanwhile.
    const [credit, downgrade] = await firstStopsAt(
      suite.url,
      "operations",
      () =>
        send(suite.real, "credit", `level-race-credit-a-${walletUid}`, creditBody(walletUid, 200_000, "a")),
      () => send(suite.real, "kyc", `level-race-down-a-${customerUid}`, downgradeBody(customerUid)),
    );
    expect([credit, downgrade].map(outcomeOf)).toEqual(["ok", "ok"]);
    const state = await walletState(walletUid);
    expect(state.tier).toBe("tier_1");
    expect(state.balanceMinor).toBeGreaterThan(tier1Max);
    expect(state.status).toBe("credit_blocked");
  });

  it("the downgrade updates the wallet first: the credit waits for it and meets the new maximum", async () => {
    const { customerUid, walletUid } = await walletNearTier1Max();
    // The downgrade stops at its customer.kyc_changed event, the wallet updated; the credit runs.
    const [downgrade, credit] = await firstStopsAt(
      suite.url,
      "outbox_events",
      () => send(suite.real, "kyc", `level-race-down-b-${customerUid}`, downgradeBody(customerUid)),
      () =>
        send(suite.real, "credit", `level-race-credit-b-${walletUid}`, creditBody(walletUid, 200_000, "b")),
    );
    expect(outcomeOf(downgrade)).toBe("ok");
    expect(outcomeOf(credit)).toBe("MaxBalanceExceeded");
    const state = await walletState(walletUid);
    expect(state).toMatchObject({ tier: "tier_1", status: "active" });
    expect(state.balanceMinor).toBeLessThanOrEqual(tier1Max);
  });

  const setStatus = (walletUid: string, status: WalletStatus) => () =>
    valueOrCode(
      async () =>
        (await suite.real.uow.run((tx) => changeWalletStatus(suite.real.deps, tx, walletUid, status)))
          .status as string,
    );

  it("a freeze and a downgrade that would block the wallet: the wallet stays frozen", async () => {
    const { customerUid, walletUid } = await walletNearTier1Max();
    const topped = await send(
      suite.real,
      "credit",
      `level-race-top-${walletUid}`,
      creditBody(walletUid, 200_000, "top"),
    );
    if (topped.kind !== "answer" || topped.status !== 201) throw new Error("credit refused");
    // The freeze stops at its wallet.status_changed event, the wallet updated; the downgrade runs.
    const [frozen, downgrade] = await firstStopsAt(
      suite.url,
      "outbox_events",
      setStatus(walletUid, "frozen"),
      () => send(suite.real, "kyc", `level-race-down-c-${customerUid}`, downgradeBody(customerUid)),
    );
    expect([frozen, outcomeOf(downgrade)]).toEqual(["frozen", "ok"]);
    expect(await walletState(walletUid)).toMatchObject({ tier: "tier_1", status: "frozen" });
  });

  it("two status changes: the wallet ends as the later one answered", async () => {
    const { walletUid } = await walletNearTier1Max();
    // The freeze stops at its event, the wallet updated; the reactivation reads the wallet then.
    const [first, second] = await firstStopsAt(
      suite.url,
      "outbox_events",
      setStatus(walletUid, "frozen"),
      setStatus(walletUid, "active"),
    );
    expect([first, second]).toEqual(["frozen", "active"]);
    expect((await walletState(walletUid)).status).toBe("active");
  });
});
