/** What one POST came to: the receiver's status, or why there was none. */
export type TransportResult = { status: number } | { error: "timeout" | "connection"; detail?: string };

/**
 * Sends one webhook request. Implementations never throw for network trouble: they report it as
 * `timeout` or `connection`, which the dispatcher retries.
 *
 * @example
 *   const r = await transport.post(url, headers, body, 10_000);
 *   if ("status" in r && r.status < 300) ...
 */
export interface WebhookTransport {
  post(
    url: string,
    headers: Readonly<Record<string, string>>,
    body: string,
    timeoutMs: number,
  ): Promise<TransportResult>;
}

const isTimeout = (e: unknown): boolean =>
  e instanceof Error &&
  (e.name === "TimeoutError" || (e.name === "AbortError" && /timeout/i.test(e.message)));

/** Error names and codes only: messages may carry the URL, which may hold a token. */
const describe = (e: unknown): string => {
  const cause = e instanceof Error ? (e.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  return code ?? (e instanceof Error ? e.name : "unknown");
};

/**
 * The default transport: global `fetch` (Node 20's undici) with `AbortSignal.timeout`. Redirects
 * are not followed (a 3xx is the receiver's answer, and not a success), and the response body is
 * discarded unread: only the status matters.
 */
export function createFetchTransport(): WebhookTransport {
  return {
    async post(url, headers, body, timeoutMs) {
      try {
        const res = await fetch(url, {
          method: "POST",
          headers,
          body,
          redirect: "manual",
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.body?.cancel().catch(() => undefined);
        return { status: res.status };
      } catch (e) {
        if (isTimeout(e)) return { error: "timeout" };
        return { error: "connection", detail: describe(e) };
      }
    },
  };
}
