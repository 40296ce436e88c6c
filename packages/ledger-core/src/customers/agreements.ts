import type { CoreDeps, RequestContext } from "../app/context.js";
import { assertStorableStrings } from "../shared/text.js";
import { iso } from "../shared/time.js";
import type { Tx } from "../store/unit-of-work.js";
import { loadCustomer } from "./identifiers.js";
import type { Agreement } from "./model.js";
import type { AgreementInput } from "./records.js";
import { newAgreement } from "./records.js";
import { assertAgreementChannel } from "./rules.js";

/** An agreement as returned: the evidence itself never is; its hash stands in. */
export interface AgreementView {
  uid: string;
  agreementType: Agreement["agreementType"];
  documentType: string;
  documentVersion: string;
  documentUri: string;
  documentHash: string;
  status: Agreement["status"];
  acceptedAt: string;
  acceptedChannel: string;
  evidenceHash: string;
}

export const toAgreementView = (a: Agreement): AgreementView => ({
  uid: a.uid,
  agreementType: a.agreementType,
  documentType: a.documentType,
  documentVersion: a.documentVersion,
  documentUri: a.documentUri,
  documentHash: a.documentHash,
  status: a.status,
  acceptedAt: a.acceptedAt,
  acceptedChannel: a.acceptedChannel,
  evidenceHash: a.evidenceHash,
});

/** POST /customers/{uid}/agreements. */
export async function addAgreement(
  deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  customerUid: string,
  input: AgreementInput,
): Promise<AgreementView> {
  assertStorableStrings(input);
  const customer = await loadCustomer(tx, ctx, customerUid);
  assertAgreementChannel(input.acceptedChannel, "acceptedChannel");
  const agreement = newAgreement(deps, ctx.tenant.id, customer.uid, input, iso(deps.clock.now()));
  await tx.agreements.insert(agreement);
  return toAgreementView(agreement);
}

/** GET /customers/{uid}/agreements: `{ data }`. */
export async function listAgreements(
  _deps: CoreDeps,
  ctx: RequestContext,
  tx: Tx,
  customerUid: string,
): Promise<{ data: AgreementView[] }> {
  const customer = await loadCustomer(tx, ctx, customerUid);
  return { data: (await tx.agreements.listByCustomer(ctx.tenant.id, customer.uid)).map(toAgreementView) };
}
