import {
  accountKeys,
  getTrialBalance,
  type Operation,
  type OutboxEvent,
  payoutDetailsOf,
  type TrialBalanceView,
} from "@wallet/ledger-core";
import { openStore } from "@wallet/persistence";
import { expect } from "vitest";
import { RAIL, TENANT_ID } from "./wallet-http.js";

/** What the database holds after a load, read through a store of its own (the servers may be dead). */
export interface LedgerAudit {
  trial: TrialBalanceView;
  /** Balances of every account the tenant's money can be in, by account key (KES). */
  balances: Map<string, number>;
  operations: Operation[];
  outbox: OutboxEvent[];
}

const fixedKeys = [
  accountKeys.deposits(TENANT_ID),
  accountKeys.prefund(TENANT_ID),
  accountKeys.fees(TENANT_ID),
  accountKeys.tax(TENANT_ID),
  accountKeys.beneficiary("POWERCO"),
  accountKeys.railClearing(RAIL),
  accountKeys.suspense(RAIL),
];

export async function auditLedger(databaseUrl: string, walletUids: readonly string[]): Promise<LedgerAudit> {
  const store = openStore(databaseUrl);
  try {
    return await store.uow.run(async (tx) => {
      const keys = [
        ...fixedKeys,
        ...walletUids.flatMap((w) => [accountKeys.wallet(w), accountKeys.walletHold(w)]),
      ];
      const balances = await tx.ledger.balances("KES", keys);
      const operations: Operation[] = [];
      for (let page = 1; page <= 1_000; page++) {
        const { data } = await tx.operations.list(
          { tenantId: TENANT_ID },
          { page, limit: 100, sort: [{ field: "id", direction: "ASC" }] },
        );
        operations.push(...data);
        if (data.length < 100) break;
      }
      return {
        trial: await getTrialBalance(tx),
        balances,
        operations,
        outbox: await tx.outbox.list(TENANT_ID),
      };
    });
  } finally {
    await store.close();
  }
}

/**
 * Conservation: the trial balance is balanced; the deposits mirror exactly what the operator
 * funded; all of it sits in the prefund, wallets, holds, fees, tax, the beneficiary and the rail's
 * clearing (sum = funded); no wallet, hold or prefund is negative.
 */
export function expectConservation(
  audit: LedgerAudit,
  fundedMinor: number,
  walletUids: readonly string[],
): void {
  expect(audit.trial.balanced, JSON.stringify(audit.trial)).toBe(true);
  const b = (key: string) => audit.balances.get(key) ?? 0;
  expect(b(accountKeys.deposits(TENANT_ID))).toBe(-fundedMinor);
  let held = 0;
  for (const key of fixedKeys.slice(1)) held += b(key);
  for (const w of walletUids) {
    expect(b(accountKeys.wallet(w)), `wallet ${w} available`).toBeGreaterThanOrEqual(0);
    expect(b(accountKeys.walletHold(w)), `wallet ${w} held`).toBeGreaterThanOrEqual(0);
    held += b(accountKeys.wallet(w)) + b(accountKeys.walletHold(w));
  }
  expect(b(accountKeys.prefund(TENANT_ID))).toBeGreaterThanOrEqual(0);
  expect(held, "prefund + wallets + holds + fees + tax + beneficiary + clearing = funded").toBe(fundedMinor);
}

/**
 * The ledger agrees with the operations table: folding every operation's expected postings (by
 * its final state) gives exactly the balances of every wallet, hold, fee, tax, beneficiary and
 * clearing account, and the prefund. Money moved by an operation nobody can see, or an operation
 * whose money never moved, breaks it.
 */
export function expectLedgerMatchesOperations(audit: LedgerAudit, fundedMinor: number): void {
  const expected = new Map<string, number>();
  const add = (key: string, amount: number) => expected.set(key, (expected.get(key) ?? 0) + amount);
  add(accountKeys.deposits(TENANT_ID), -fundedMinor);
  add(accountKeys.prefund(TENANT_ID), fundedMinor);
  const fees = accountKeys.fees(TENANT_ID);
  const tax = accountKeys.tax(TENANT_ID);
  for (const op of audit.operations) {
    const total = op.amountMinor + op.feeMinor + op.taxMinor;
    if (op.type === "wallet_credit" && op.state === "completed") {
      // The wallet pays a credit's charges (if a wallet_credit schedule exists) out of the amount.
      add(accountKeys.prefund(TENANT_ID), -op.amountMinor);
      add(accountKeys.wallet(op.destinationWalletUid ?? ""), op.amountMinor - op.feeMinor - op.taxMinor);
      add(fees, op.feeMinor);
      add(tax, op.taxMinor);
    } else if (op.type === "wallet_debit" && op.state === "completed") {
      add(accountKeys.wallet(op.sourceWalletUid ?? ""), -total);
      add(accountKeys.beneficiary("POWERCO"), op.amountMinor);
      add(fees, op.feeMinor);
      add(tax, op.taxMinor);
    } else if (op.type === "payout_b2c") {
      const w = op.sourceWalletUid ?? "";
      add(accountKeys.wallet(w), -total);
      add(fees, op.feeMinor);
      add(tax, op.taxMinor);
      if (op.state === "processing") add(accountKeys.walletHold(w), op.amountMinor);
      if (op.state === "completed") add(accountKeys.railClearing(RAIL), op.amountMinor);
      if (op.state === "failed") {
        add(accountKeys.wallet(w), op.amountMinor);
        for (const line of payoutDetailsOf(op).charges.filter((l) => l.refundable)) {
          add(accountKeys.wallet(w), line.amountMinor);
          add(line.type === "vat" ? tax : fees, -line.amountMinor);
        }
      }
    } else if (op.type !== "wallet_debit") {
      throw new Error(`the load sends no ${op.type} (${op.state})`);
    }
  }
  for (const key of new Set([...expected.keys(), ...audit.balances.keys()])) {
    expect(audit.balances.get(key) ?? 0, `balance of ${key} vs the operations`).toBe(expected.get(key) ?? 0);
  }
}
