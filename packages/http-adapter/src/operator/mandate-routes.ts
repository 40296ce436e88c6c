import type { DueJobLimits } from "@wallet/ledger-core";
import { isDueJobName, runDueJob, setMandateStatus } from "@wallet/ledger-core";
import type * as v from "valibot";
import type { ApiDeps } from "../app/api-deps.js";
import { HttpError, invalidRequest } from "../errors/http-error.js";
import { mandateViewSchema } from "../mandates/schemas.js";
import {
  operatorRoute,
  type ParamsSchema,
  type RouteCall,
  type RouteDoc,
  type RouteEntry,
} from "../routes/route-entry.js";
import { uidParamsSchema } from "../validation/common-schemas.js";
import {
  jobParamsSchema,
  jobRunViewSchema,
  mandateStatusBodySchema,
  runJobBodySchema,
} from "./mandate-schemas.js";

/**
 * What one call of the route moves at most: batches of 500, each its own transaction, so a run
 * never holds locks for long, and 200 of them (100 000 items); the scheduler's next run takes the
 * rest.
 */
export const runNowLimits: DueJobLimits = { batchSize: 500, batchesMax: 200 };

const jobNotFound = () => new HttpError(404, { error: "NotFound", message: "Job not found" });

/**
 * Runs a job now: the core's due jobs here (`runDueJob`, with `runNowLimits`), others through
 * `deps.runJob`. Each job is idempotent and selects only what is due at `asOf`, so a second run at
 * the same instant processes nothing, and concurrent runs (several processes) each move distinct
 * items.
 */
export async function runJobNow(
  deps: ApiDeps,
  job: string,
  asOf: string | undefined,
): Promise<{ job: string; processed: number }> {
  // Validation (400) before lookup (404), the order of checks everywhere.
  if (asOf !== undefined && !deps.sandbox) {
    throw invalidRequest("asOf is accepted only in sandbox mode", [
      { field: "asOf", issue: "accepted only in sandbox mode" },
    ]);
  }
  const asOfIso = asOf === undefined ? null : new Date(Date.parse(asOf)).toISOString();
  if (!isDueJobName(job)) {
    const processed = deps.runJob ? await deps.runJob(job, asOfIso) : null;
    if (processed === null) throw jobNotFound();
    return { job, processed };
  }
  const at = asOfIso ?? deps.core.clock.now().toISOString();
  return { job, processed: await runDueJob(deps.uow, deps.core, job, at, runNowLimits) };
}

/**
 * An operator route answered without the one-transaction `run`: the job runner opens a
 * transaction per batch (nesting them would deadlock SQLite's single writer), and a job the
 * server runs never touches the store here.
 */
function operatorAction<PS extends ParamsSchema, BS extends v.GenericSchema>(
  def: RouteDoc & {
    params: PS;
    body: BS;
    respond: (call: RouteCall<v.InferOutput<PS>, undefined, v.InferOutput<BS>>) => Promise<unknown>;
  },
): RouteEntry {
  const { respond, ...doc } = def;
  return {
    ...doc,
    auth: "bearer",
    scopes: [],
    write: false,
    respond: respond as NonNullable<RouteEntry["respond"]>,
  };
}

/** Operator API (DESIGN.md sections 4 and 9): mandate suspension and running a scheduled job now. */
export const operatorMandateRoutes: readonly RouteEntry[] = [
  operatorRoute({
    method: "PATCH",
    path: "/mandates/{uid}",
    operationId: "setMandateStatus",
    summary: "Suspend an active or pending mandate, or resume a suspended one (409 otherwise)",
    tag: "Operator",
    params: uidParamsSchema,
    body: mandateStatusBodySchema,
    success: { status: 200, description: "The mandate", schema: mandateViewSchema },
    errorStatuses: [400, 401, 404, 409, 413, 500, 503],
    run: (tx, { deps, params, body }) => setMandateStatus(deps.core, tx, params.uid, body.status),
  }),
  operatorAction({
    method: "POST",
    path: "/jobs/{job}/run",
    operationId: "runJob",
    summary: "Run a scheduled job now (asOf in sandbox mode only); 404 for a job nobody here can run",
    tag: "Operator",
    params: jobParamsSchema,
    body: runJobBodySchema,
    success: { status: 200, description: "How many items the job processed", schema: jobRunViewSchema },
    errorStatuses: [400, 401, 404, 413, 500, 503],
    respond: ({ deps, params, body }) => runJobNow(deps, params.job, body?.asOf),
  }),
];
