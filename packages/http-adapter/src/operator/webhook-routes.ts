import { type DeliverySummary, invariant, retryWebhookEvent, toDeliveryLogRow } from "@wallet/ledger-core";
import { operatorRoute, type RouteEntry } from "../routes/route-entry.js";
import {
  deliveryListQuerySchema,
  deliveryLogRowSchema,
  deliveryLogSchema,
  eventParamsSchema,
} from "./webhook-schemas.js";

const toLogRow = (d: DeliverySummary) => ({
  ...toDeliveryLogRow(d),
  tenantId: d.tenantId,
  occurredAt: d.occurredAt,
  lastError: d.lastError,
  nextAttemptAt: d.nextAttemptAt,
  lastAttemptAt: d.lastAttemptAt,
  deliveredAt: d.deliveredAt,
});

/** Operator API (DESIGN.md section 9): the webhook delivery log and "retry a failed event". */
export const operatorWebhookRoutes: readonly RouteEntry[] = [
  operatorRoute({
    method: "GET",
    path: "/webhook-deliveries",
    operationId: "listWebhookDeliveries",
    summary: "The webhook delivery log, newest first, optionally of one tenant or one status",
    tag: "Operator",
    query: deliveryListQuerySchema,
    success: { status: 200, description: "The delivery log", schema: deliveryLogSchema },
    errorStatuses: [400, 401, 500, 503],
    run: async (tx, { query }) => ({
      data: (await tx.deliveries.list(query)).map(toLogRow),
    }),
  }),
  operatorRoute({
    method: "POST",
    path: "/webhook-events/{eventId}/retry",
    operationId: "retryWebhookEvent",
    summary: "Re-queue a failed event with the whole retry schedule (409 unless it is failed)",
    tag: "Operator",
    params: eventParamsSchema,
    success: { status: 200, description: "The delivery, re-queued", schema: deliveryLogRowSchema },
    errorStatuses: [400, 401, 404, 409, 500, 503],
    run: async (tx, { deps, params }) => {
      await retryWebhookEvent(tx, params.eventId, deps.core.clock.now().toISOString());
      const requeued = await tx.deliveries.get(params.eventId);
      invariant(requeued, "a re-queued event is still there");
      return toLogRow(requeued);
    },
  }),
];
