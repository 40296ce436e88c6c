import { beforeEach, describe, expect, it } from "vitest";
import type { DomainError, Page, Tenant } from "../src/index.js";
import {
  canonicalJson,
  creditWallet,
  fundPrefund,
  getReceipt,
  getWalletBalance,
  listOperations,
  listWalletTransactions,
  onboardCustomer,
  reverseOperation,
} from "../src/index.js";
import { createCore, feeSchedule, onboardingInput, tenantFixture } from "./support/core.js";

const page = (p = 1, limit = 20, sort: Page["sort"] = [{ field: "createdAt", direction: "DESC" }]): Page => ({
  page: p,
  limit,
  sort,
});

describe("operations, statements and receipts", () => {
  let core: ReturnType<typeof createCore>;
  let acme: Tenant;
  let walletUid: string;
  let customerUid: string;

  beforeEach(async () => {
    core = createCore();
    acme = tenantFixture("acme");
    await core.run((tx) => tx.tenants.upsert(acme));
    await core.run((tx) =>
      fundPrefund(core.deps, tx, { tenantId: "acme", amountMinor: 10_000_000, currency: "KES" }),
    );
    const c = await core.run((tx) => onboardCustomer(core.deps, core.ctxFor(acme), tx, onboardingInput()));
    walletUid = c.walletUid;
    customerUid = c.uid;
    for (let i = 0; i < 5; i++) {
      await core.run((tx) =>
        creditWallet(core.deps, core.ctxFor(acme), tx, {
          walletUid,
          amountMinor: 100 + i,
          currency: "KES",
          clientReference: `cr-${i}`,
        }),
      );
    }
  });

  it("lists newest first with meta, and pages", async () => {
    const all = await core.run((tx) => listOperations(core.deps, core.ctxFor(acme), tx, {}, page()));
    expect(all.meta).toEqual({ total: 5, page: 1, limit: 20, totalPages: 1 });
    expect(all.data.map((o) => o.amountMinor)).toEqual([104, 103, 102, 101, 100]);
    const p2 = await core.run((tx) =>
      listOperations(core.deps, core.ctxFor(acme), tx, {}, page(2, 2, [{ field: "id", direction: "ASC" }])),
    );
    expect(p2.data.map((o) => o.amountMinor)).toEqual([102, 103]);
    expect(p2.meta.totalPages).toBe(3);
  });

  it("filters within the tenant; inclusive time bounds on the exact createdAt", async () => {
    const all = await core.run((tx) => listOperations(core.deps, core.ctxFor(acme), tx, {}, page()));
    const one = all.data[2]!;
    const exact = await core.run((tx) =>
      listOperations(core.deps, core.ctxFor(acme), tx, { from: one.createdAt, to: one.createdAt }, page()),
    );
    expect(exact.data.map((o) => o.uid)).toEqual([one.uid]);
    const byCustomer = await core.run((tx) =>
      listOperations(core.deps, core.ctxFor(acme), tx, { customerUid }, page()),
    );
    expect(byCustomer.meta.total).toBe(5);
    const other = tenantFixture("other");
    const none = await core.run((tx) =>
      listOperations(core.deps, core.ctxFor(other), tx, { walletUid }, page()),
    );
    expect(none.meta.total).toBe(0);
  });

  it("statement items are inbound for credits and link their receipt", async () => {
    const st = await core.run((tx) =>
      listWalletTransactions(core.deps, core.ctxFor(acme), tx, walletUid, {}, page()),
    );
    expect(st.meta.total).toBe(5);
    expect(st.data[0]).toMatchObject({
      direction: "inbound",
      state: "completed",
      amountMinor: 104,
      receipt: expect.stringMatching(/\/receipt$/),
    });
    await expect(
      core.run((tx) =>
        listWalletTransactions(core.deps, core.ctxFor(tenantFixture("other")), tx, walletUid, {}, page()),
      ),
    ).rejects.toMatchObject({
      code: "NotFound",
    });
  });

  it("a reversed row says all its charges went back (chargesRefundedMinor = fee + tax); the rows add up", async () => {
    core.deps.catalog = {
      ...core.deps.catalog,
      feeSchedules: [
        feeSchedule(
          "wallet_credit",
          { label: "Fee", type: "flat", amountMinor: 10, refundable: false },
          { label: "VAT", type: "vat", rateBps: 1600, appliesToLabel: "Fee", refundable: false },
        ),
      ],
    };
    const charged = await core.run((tx) =>
      creditWallet(core.deps, core.ctxFor(acme), tx, {
        walletUid,
        amountMinor: 1_000,
        currency: "KES",
        clientReference: "charged",
      }),
    );
    await core.run((tx) => reverseOperation(core.deps, tx, charged.uid));
    const st = await core.run((tx) =>
      listWalletTransactions(core.deps, core.ctxFor(acme), tx, walletUid, {}, page()),
    );
    expect(st.data[0]).toMatchObject({
      state: "reversed",
      feeMinor: 10,
      taxMinor: 2,
      chargesRefundedMinor: 12,
    });
    expect(st.data.slice(1).every((i) => i.chargesRefundedMinor === 0)).toBe(true);
    // A reversed row nets to zero; the others are completed credits.
    const net = st.data
      .filter((i) => i.state !== "reversed")
      .reduce((sum, i) => sum + i.amountMinor - i.feeMinor - i.taxMinor, 0);
    expect(net).toBe(100 + 101 + 102 + 103 + 104);
    const balance = await core.run((tx) => getWalletBalance(core.deps, core.ctxFor(acme), tx, walletUid));
    expect(balance.currentMinor).toBe(net);
  });

  it("an operator reversal is 409 while the operation's wallet is closed, and moves nothing", async () => {
    const st = await core.run((tx) =>
      listWalletTransactions(core.deps, core.ctxFor(acme), tx, walletUid, {}, page()),
    );
    await core.run((tx) => tx.wallets.setStatus("acme", walletUid, "closed"));
    const journals = core.store.state.journals.length;
    const e = (await core
      .run((tx) => reverseOperation(core.deps, tx, st.data[0]!.operationUid))
      .catch((x: unknown) => x)) as DomainError;
    expect([e.code, e.message]).toEqual([
      "Conflict",
      "The operation's wallet is closed: reopen it before reversing the operation",
    ]);
    expect(core.store.state.journals.length).toBe(journals);
  });

  it("receipts hash their canonical form and read back byte-identical", async () => {
    const [op] = (await core.run((tx) => listOperations(core.deps, core.ctxFor(acme), tx, {}, page()))).data;
    const r1 = await core.run((tx) => getReceipt(core.deps, core.ctxFor(acme), tx, op!.uid));
    const r2 = await core.run((tx) => getReceipt(core.deps, core.ctxFor(acme), tx, op!.uid));
    expect(JSON.stringify(r1)).toBe(JSON.stringify(r2));
    const { receiptHash, ...rest } = r1;
    expect(receiptHash).toBe(core.deps.hasher.sha256Hex(canonicalJson(rest)));
    expect(r1).toMatchObject({
      totalDebitedMinor: 104,
      references: { clientReference: "cr-4", providerReference: null },
    });
    expect(r1.references.journalUids).toHaveLength(1);
  });

  it("has no receipt before funds move", async () => {
    const e = (await core
      .run((tx) => getReceipt(core.deps, core.ctxFor(acme), tx, "op_missing"))
      .catch((x) => x)) as DomainError;
    expect(e.code).toBe("NotFound");
  });
});
