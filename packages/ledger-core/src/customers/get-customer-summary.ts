import type { CoreDeps, RequestContext } from "../app/context.js";
import { invariant, notFound } from "../shared/errors.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { findKycLevel } from "../tenants/catalog.js";
import { readWalletBalance } from "../wallets/get-wallet-balance.js";
import type { CustomerSummaryView } from "./views.js";
import { kycSummaryOf, toIdentifierSummaryView } from "./views.js";

/**
 * GET /customers/{uid}. With `unmask` (scope customers:pii) contact values are returned in clear
 * text and the read is audited; identity documents are never unmasked.
 */
export async function getCustomerSummary(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  uid: string,
  opts: { unmask: boolean },
): Promise<CustomerSummaryView> {
  const tenantId = ctx.tenant.id;
  const customer = (await tx.customers.get(tenantId, uid)) ?? notFound("Customer");
  const [identifiers, agreements, versions, wallets, mandatesCount] = await Promise.all([
    tx.identifiers.listByCustomer(tenantId, uid),
    tx.agreements.listByCustomer(tenantId, uid),
    tx.kycVersions.listByCustomer(tenantId, uid),
    tx.wallets.listByCustomer(tenantId, uid),
    tx.mandates.countByCustomer(tenantId, uid),
  ]);
  const approved = versions.filter((v) => v.state === "approved").at(-1) ?? null;
  const level = approved ? findKycLevel(deps.catalog, approved.tierCode) : null;
  invariant(!approved || level, "an approved KYC version names a level of the catalog");

  const unmasked = opts.unmask ? identifiers.filter((i) => i.class === "contact") : [];
  if (unmasked.length > 0) {
    await tx.audit.append({
      at: iso(deps.clock.now()),
      tenantId,
      kid: ctx.kid,
      action: "customer.pii_read",
      customerUid: uid,
      identifierUids: unmasked.map((i) => i.uid),
      requestId: ctx.requestId,
    });
  }
  const clear = new Set(unmasked.map((i) => i.uid));

  return {
    uid: customer.uid,
    status: customer.status,
    customerType: customer.customerType,
    displayName: customer.displayName,
    kyc: approved && level ? kycSummaryOf(approved, level) : null,
    wallets: await Promise.all(
      wallets.map(async (w) => {
        const { walletUid: _w, status: _s, ...balance } = await readWalletBalance(tx, w);
        return {
          walletUid: w.uid,
          purpose: w.purpose,
          status: w.status,
          currency: w.currency,
          rulesProfileKey: w.rulesProfileKey,
          balance,
        };
      }),
    ),
    identifiers: identifiers.map((i) => ({
      ...toIdentifierSummaryView(i),
      value: clear.has(i.uid) ? deps.vault.open(i.sealedValue) : null,
    })),
    agreements: agreements.map((a) => ({
      agreementType: a.agreementType,
      documentVersion: a.documentVersion,
      acceptedAt: a.acceptedAt,
    })),
    // Every mandate the tenant holds on the customer, whatever its status (as GET /mandates?customerUid).
    mandatesCount,
    clientReference: customer.clientReference,
    createdAt: customer.createdAt,
  };
}
