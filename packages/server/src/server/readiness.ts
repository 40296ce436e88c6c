import { type ErrorBody, NO_STORE_HEADERS, newRequestId } from "@wallet/http-adapter";

type Fetch = (request: Request, ...rest: never[]) => Response | Promise<Response>;

export const READY_PATH = "/ready";

/** How long one probe's answer is reused: a flood of GET /ready costs one store round trip a second. */
const probeReuseMs = 1_000;

/**
 * Wraps the app's fetch so GET/HEAD `/ready` answers whether this process can serve: 200
 * `{"status":"ready"}` when `probe` (the store's `ping`, a trivial query) succeeds, 503 in the one error body
 * (with `Retry-After`) when it fails or the process is shutting down. `GET /api/v1/tenant/health`
 * stays what the spec makes it, a liveness answer that does not touch the store. Unauthenticated,
 * like health, for load balancers and orchestrators; a probe's answer is reused for a second and
 * concurrent requests share one probe.
 */
export function withReadiness<F extends Fetch>(
  fetch: F,
  probe: () => Promise<unknown>,
  options: { draining: () => boolean; now?: () => number },
): F {
  const now = options.now ?? Date.now;
  let last: { at: number; ready: Promise<boolean> } | null = null;
  const ready = (): Promise<boolean> => {
    const t = now();
    if (last === null || t - last.at >= probeReuseMs) {
      last = {
        at: t,
        ready: probe().then(
          () => true,
          () => false,
        ),
      };
    }
    return last.ready;
  };
  const wrapped = async (request: Request, ...rest: never[]) => {
    if (request.method !== "GET" && request.method !== "HEAD") return fetch(request, ...rest);
    if (new URL(request.url).pathname !== READY_PATH) return fetch(request, ...rest);
    const ok = !options.draining() && (await ready());
    const body: { status: "ready" } | ErrorBody = ok
      ? { status: "ready" }
      : {
          error: "ServiceUnavailable",
          message: options.draining() ? "The server is shutting down" : "The database is not reachable",
        };
    return new Response(request.method === "HEAD" ? null : JSON.stringify(body), {
      status: ok ? 200 : 503,
      headers: {
        "Content-Type": "application/json",
        ...NO_STORE_HEADERS,
        "X-Request-Id": newRequestId(),
        ...(ok ? {} : { "Retry-After": "1" }),
      },
    });
  };
  return wrapped as F;
}
