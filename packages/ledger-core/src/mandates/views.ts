import type { AmountRule, Mandate, MandateFrequency, MandateStatus } from "./model.js";

/** The Mandate resource (spec: Mandate): POST/GET /mandates, revoke. */
export interface MandateView {
  uid: string;
  customerUid: string;
  walletUid: string;
  beneficiaryEntityCode: string;
  clientReference: string | null;
  amountRule: AmountRule;
  fixedOrMaxAmountMinor: number | null;
  frequency: MandateFrequency;
  currency: string;
  validFrom: string;
  validTo: string | null;
  status: MandateStatus;
  agreementUid: string | null;
  replacesMandateUid: string | null;
  /** Null unless the status is revoked. */
  revokedAt: string | null;
  createdAt: string;
}

/** `data.mandate` of the mandate.* events: the spec's guaranteed fields, no personal data. */
export interface MandateEventData {
  uid: string;
  status: MandateStatus;
  customerUid: string;
  walletUid: string;
  clientReference: string | null;
}

export const toMandateView = (m: Mandate): MandateView => ({
  uid: m.uid,
  customerUid: m.customerUid,
  walletUid: m.walletUid,
  beneficiaryEntityCode: m.beneficiaryEntityCode,
  clientReference: m.clientReference,
  amountRule: m.amountRule,
  fixedOrMaxAmountMinor: m.fixedOrMaxAmountMinor,
  frequency: m.frequency,
  currency: m.currency,
  validFrom: m.validFrom,
  validTo: m.validTo,
  status: m.status,
  agreementUid: m.agreementUid,
  replacesMandateUid: m.replacesMandateUid,
  revokedAt: m.revokedAt,
  createdAt: m.createdAt,
});

export const mandateEventData = (m: Mandate): MandateEventData => ({
  uid: m.uid,
  status: m.status,
  customerUid: m.customerUid,
  walletUid: m.walletUid,
  clientReference: m.clientReference,
});
