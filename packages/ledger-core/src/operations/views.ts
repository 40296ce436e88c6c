import type {
  ActorType,
  Operation,
  OperationState,
  OperationType,
  ProviderState,
  TimelineEvent,
} from "./model.js";

export const TENANT_API_PREFIX = "/api/v1/tenant";
const operationsPath = `${TENANT_API_PREFIX}/operations/`;

/** The operation projection: every money-moving write, GET /operations/{uid} and operation events. */
export interface OperationView {
  uid: string;
  type: OperationType;
  state: OperationState;
  amountMinor: number;
  feeMinor: number;
  taxMinor: number;
  currency: string;
  clientReference: string | null;
  createdAt: string;
  completedAt: string | null;
  links: { self: string; receipt: string };
  /** Top-up fields (topup_c2b only). */
  intentReference?: string;
  expiresAt?: string;
  railCode?: string;
  payerInstructions?: string | null;
}

/** The fields a top-up's view always carries (spec, Operation: "Top-up operation adds"). */
export type TopupFields = Required<
  Pick<OperationView, "intentReference" | "expiresAt" | "railCode" | "payerInstructions">
>;

/** An operation view of a top-up intent: POST /topup-intents. */
export type TopupView = OperationView & TopupFields;

/** The top-up detail read: GET /topup-intents/{uid}. */
export type TopupDetailView = OperationDetailView & TopupFields;

/** Whether the view carries the top-up fields (toOperationView adds them to an intent's view). */
export function isTopupView<V extends OperationView>(view: V): view is V & TopupFields {
  return (
    view.intentReference !== undefined &&
    view.expiresAt !== undefined &&
    view.railCode !== undefined &&
    view.payerInstructions !== undefined
  );
}

export interface TimelineView {
  sequenceNo: number;
  fromState: OperationState | null;
  toState: OperationState;
  occurredAt: string;
  actorType: ActorType | null;
}

export interface OperationDetailView extends OperationView {
  timeline: TimelineView[];
  provider: { state: ProviderState; reference: string | null; lastUpdatedAt: string } | null;
}

export function toOperationView(op: Operation): OperationView {
  const view: OperationView = {
    uid: op.uid,
    type: op.type,
    state: op.state,
    amountMinor: op.amountMinor,
    feeMinor: op.feeMinor,
    taxMinor: op.taxMinor,
    currency: op.currency,
    clientReference: op.clientReference,
    createdAt: op.createdAt,
    completedAt: op.completedAt,
    // Joined: flat strings, which serializing them (every operation event) needs.
    links: {
      self: [operationsPath, op.uid].join(""),
      receipt: [operationsPath, op.uid, "/receipt"].join(""),
    },
  };
  if (op.type === "topup_c2b" && op.intentReference !== null && op.expiresAt !== null) {
    view.intentReference = op.intentReference;
    view.expiresAt = op.expiresAt;
    view.railCode = String(op.details?.railCode ?? op.provider?.railCode ?? "");
    view.payerInstructions = (op.details?.payerInstructions as string | null | undefined) ?? null;
  }
  return view;
}

export function toOperationDetailView(op: Operation, timeline: TimelineEvent[]): OperationDetailView {
  return {
    ...toOperationView(op),
    timeline: timeline.map((t) => ({
      sequenceNo: t.sequenceNo,
      fromState: t.fromState,
      toState: t.toState,
      occurredAt: t.occurredAt,
      actorType: t.actorType,
    })),
    provider: op.provider
      ? {
          state: op.provider.state,
          reference: op.provider.reference,
          lastUpdatedAt: op.provider.lastUpdatedAt,
        }
      : null,
  };
}
