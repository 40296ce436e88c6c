import { IDEMPOTENCY_KEY_FORMAT, runIdempotent, type Tx } from "@wallet/ledger-core";
import type { Context } from "hono";
import type { ApiDeps } from "../app/api-deps.js";
import type { AppEnv } from "../app/env.js";
import { sentPathAndQuery } from "../auth/canonical-request.js";
import { domainErrorBody } from "../errors/error-response.js";
import { errorStatus, storedRefusalStatuses } from "../errors/error-status.js";
import { invalidRequest } from "../errors/http-error.js";
import { sha256Hex } from "../middleware/read-body.js";

/** The blind-index kind of a write's request digest (`PiiVault.blindIndex`). */
export const IDEMPOTENCY_REQUEST_KIND = "idempotency-request";

/** The Idempotency-Key of a write, or 400. */
export function readIdempotencyKey(c: Context<AppEnv>): string {
  const key = c.req.header("Idempotency-Key");
  if (key === undefined || !IDEMPOTENCY_KEY_FORMAT.test(key)) {
    throw invalidRequest("A write needs an Idempotency-Key header of 1-255 printable ASCII characters", [
      {
        field: "Idempotency-Key",
        issue: key === undefined ? "required" : "must be 1-255 printable ASCII characters",
      },
    ]);
  }
  return key;
}

/**
 * The one way every write route runs its use case: under the tenant's Idempotency-Key, exactly
 * once, with the response stored and replayed byte for byte (`Idempotent-Replayed: true`).
 * Refusals answered 404/409/422 are stored too, so a retry gets the same answer; anything else is
 * not stored and a retry runs again.
 *
 * The request hash covers method, path and body hash: the same key with another request is 422
 * IdempotencyKeyReused, and while the first is still running 409 IdempotencyKeyInUse.
 */
export async function idempotentWrite(
  c: Context<AppEnv>,
  deps: ApiDeps,
  claim: { tenantId: string; key: string },
  successStatus: number,
  work: (tx: Tx) => Promise<unknown>,
): Promise<Response> {
  const target = sentPathAndQuery(c.env?.incoming?.url, c.req.url);
  const request = `${c.req.method}\n${target}\n${c.var.bodySha256}`;
  const { replayed, response } = await runIdempotent(
    deps.uow,
    deps.core.clock,
    {
      tenantId: claim.tenantId,
      key: claim.key,
      // Keyed, as the blind indexes are: the stored digest of a body holding personal data
      // must not let a reader of the database confirm guesses of it.
      requestHash: deps.core.vault.blindIndex(claim.tenantId, IDEMPOTENCY_REQUEST_KIND, request),
      earlierRequestHash: sha256Hex(request),
    },
    async (tx) => ({ status: successStatus, body: JSON.stringify(await work(tx)) }),
    (e) => {
      const status = errorStatus[e.code];
      return storedRefusalStatuses.has(status) ? { status, body: JSON.stringify(domainErrorBody(e)) } : null;
    },
  );
  return new Response(response.body, {
    status: response.status,
    headers: { "Content-Type": "application/json", "Idempotent-Replayed": String(replayed) },
  });
}
