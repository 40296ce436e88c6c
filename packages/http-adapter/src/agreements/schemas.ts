import { agreementStatuses, agreementTypes } from "@wallet/ledger-core";
import * as v from "valibot";
import { instantViewSchema } from "../validation/common-schemas.js";

/** Spec, Agreement (response): the evidence is never returned; `evidenceHash` stands in. */
export const agreementViewSchema = v.object({
  uid: v.string(),
  agreementType: v.picklist(agreementTypes),
  documentType: v.string(),
  documentVersion: v.string(),
  documentUri: v.string(),
  documentHash: v.string(),
  status: v.picklist(agreementStatuses),
  acceptedAt: instantViewSchema,
  acceptedChannel: v.string(),
  evidenceHash: v.pipe(v.string(), v.description("SHA-256 hex of the canonical (RFC 8785) evidence JSON.")),
});

export const agreementListSchema = v.object({ data: v.array(agreementViewSchema) });
