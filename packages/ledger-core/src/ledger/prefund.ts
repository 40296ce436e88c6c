import type { CoreDeps } from "../app/context.js";
import { notFound, refuse } from "../shared/errors.js";
import { assertCurrencyCode, assertPositiveAmount, MAX_MINOR } from "../shared/money.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { accountKeys } from "./accounts.js";
import { entriesOf } from "./journal.js";

export interface PrefundView {
  tenantId: string;
  currency: string;
  balanceMinor: number;
}

export interface FundPrefundInput {
  tenantId: string;
  amountMinor: number;
  currency: string;
}

/** Operator: records money received from the tenant (deposits -> prefund). */
export async function fundPrefund(deps: CoreDeps, tx: Tx, input: FundPrefundInput): Promise<PrefundView> {
  assertPositiveAmount(input.amountMinor);
  assertCurrencyCode(input.currency);
  (await tx.tenants.get(input.tenantId)) ?? notFound("Tenant");
  // A prefund in a currency no wallet can hold would strand the money (a typo such as KSE for KES
  // posts a journal that nothing can spend, and no route undoes it).
  if (!deps.catalog.walletProfiles.some((p) => p.currency === input.currency)) {
    refuse("UnprocessableEntity", `No wallet profile of the catalog holds ${input.currency}`, [
      { field: "currency", issue: "must be the currency of a wallet profile" },
    ]);
  }
  const prefund = accountKeys.prefund(input.tenantId);
  const deposits = accountKeys.deposits(input.tenantId);
  const balances = await tx.ledger.lockAccounts(input.currency, [deposits, prefund]);
  // The deposits account holds minus everything ever funded, the prefund what is left of it: both
  // must stay exact (within 2^53 - 1 either way), or the posting would overflow.
  const prefundAfter = (balances.get(prefund) ?? 0) + input.amountMinor;
  const depositsAfter = (balances.get(deposits) ?? 0) - input.amountMinor;
  if (prefundAfter > MAX_MINOR || depositsAfter < -MAX_MINOR) {
    refuse("UnprocessableEntity", "Funding this amount would take the tenant past the largest amount", [
      { field: "amountMinor", issue: `all funding of a tenant in a currency must not exceed ${MAX_MINOR}` },
    ]);
  }
  await tx.ledger.post({
    uid: deps.ids.next("journal"),
    tenantId: input.tenantId,
    operationUid: null,
    currency: input.currency,
    kind: "prefund_funding",
    createdAt: iso(deps.clock.now()),
    entries: entriesOf([{ from: deposits, to: prefund, amountMinor: input.amountMinor, label: "amount" }]),
  });
  return {
    tenantId: input.tenantId,
    currency: input.currency,
    balanceMinor: prefundAfter,
  };
}

/** Operator: the tenant's prefunded balance in a currency. */
export async function getPrefund(
  _deps: CoreDeps,
  tx: Tx,
  tenantId: string,
  currency: string,
): Promise<PrefundView> {
  (await tx.tenants.get(tenantId)) ?? notFound("Tenant");
  const key = accountKeys.prefund(tenantId);
  const balances = await tx.ledger.balances(currency, [key]);
  return { tenantId, currency, balanceMinor: balances.get(key) ?? 0 };
}
