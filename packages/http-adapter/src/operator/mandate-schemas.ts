import * as v from "valibot";
import { boundedString, isoTimestampSchema } from "../validation/common-schemas.js";

/** PATCH /admin/mandates/{uid}: suspend an active mandate or resume a suspended one. */
export const mandateStatusBodySchema = v.strictObject({ status: v.picklist(["suspended", "active"]) });

/** The job is looked up, not enumerated: a job nobody can run is 404, like any unknown resource. */
export const jobParamsSchema = v.strictObject({
  job: v.pipe(
    boundedString(1, 64),
    v.description("activate-mandates, expire-mandates, expire-topups or deliver-webhooks."),
  ),
});

/** POST /admin/jobs/{job}/run body; optional as a whole, so a bare POST runs the job as of now. */
export const runJobBodySchema = v.optional(
  v.strictObject({
    asOf: v.pipe(
      v.optional(isoTimestampSchema),
      v.description("Run as if it were this instant; sandbox mode only (400 otherwise)."),
    ),
  }),
);

export const jobRunViewSchema = v.object({
  job: v.string(),
  processed: v.pipe(v.number(), v.safeInteger()),
});
