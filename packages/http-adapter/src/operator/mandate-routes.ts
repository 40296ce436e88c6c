import type { CoreDeps, Tx } from "@wallet/ledger-core";
import { activateDueMandates, expireDueMandates, expireTopups, setMandateStatus } from "@wallet/ledger-core";
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

/** Items one transaction of a job moves: short transactions, so a run never holds locks for long. */
export const JOB_BATCH_LIMIT = 500;
/** Batches one call runs at most (100 000 items); past it the scheduler's next run takes the rest. */
export const JOB_BATCHES_MAX = 200;

type BatchJob = (deps: CoreDeps, tx: Tx, asOfIso: string, limit: number) => Promise<number>;

/**
 * The jobs this adapter runs itself, through the core; others go to `deps.runJob`. A Map, so a
 * job named after an Object.prototype key (`constructor`) is simply unknown.
 */
const adapterJobs: ReadonlyMap<string, BatchJob> = new Map([
  ["activate-mandates", activateDueMandates],
  ["expire-mandates", expireDueMandates],
  ["expire-topups", expireTopups],
]);

const jobNotFound = () => new HttpError(404, { error: "NotFound", message: "Job not found" });

/**
 * Runs a job now: in batches of `JOB_BATCH_LIMIT`, each its own transaction, until a batch comes
 * back short (or `JOB_BATCHES_MAX`). Each job is idempotent and selects only what is due at `asOf`,
 * so a second run at the same instant processes nothing, and concurrent runs (several processes)
 * each move distinct items.
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
  const batch = adapterJobs.get(job);
  if (batch === undefined) {
    const processed = deps.runJob ? await deps.runJob(job, asOfIso) : null;
    if (processed === null) throw jobNotFound();
    return { job, processed };
  }
  const at = asOfIso ?? deps.core.clock.now().toISOString();
  let processed = 0;
  for (let i = 0; i < JOB_BATCHES_MAX; i++) {
    const moved = await deps.uow.run((tx) => batch(deps.core, tx, at, JOB_BATCH_LIMIT));
    processed += moved;
    if (moved < JOB_BATCH_LIMIT) break;
  }
  return { job, processed };
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
  return { ...doc, auth: "bearer", scopes: [], write: false, respond: respond as RouteEntry["respond"] };
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
