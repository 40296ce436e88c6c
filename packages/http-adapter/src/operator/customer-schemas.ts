import { customerStatuses, walletStatuses } from "@wallet/ledger-core";
import * as v from "valibot";
import { boundedString } from "../validation/common-schemas.js";

/** POST /admin/kyc-versions/{uid}/decision: the compliance review's outcome. */
export const kycDecisionBodySchema = v.strictObject({
  decision: v.picklist(["approved", "rejected"]),
  reason: v.optional(boundedString(1, 500)),
});

export const customerStatusBodySchema = v.strictObject({ status: v.picklist(customerStatuses) });

export const walletStatusBodySchema = v.strictObject({ status: v.picklist(walletStatuses) });

export const customerStatusViewSchema = v.object({
  uid: v.string(),
  status: v.picklist(customerStatuses),
});

export const walletStatusViewSchema = v.object({
  uid: v.string(),
  customerUid: v.string(),
  status: v.picklist(walletStatuses),
});
