/**
 * The rows of one page of an operator list (the audit log, suspense items): `limit` whole, at
 * least 1 and at most `max` (`fallback` when absent); `page` 1-based (1 when absent).
 */
export function listWindow(
  query: { limit?: number; page?: number },
  bounds: { fallback: number; max: number },
): { limit: number; offset: number } {
  const limit = Math.min(Math.max(1, Math.trunc(query.limit ?? bounds.fallback)), bounds.max);
  const page = Math.max(1, Math.trunc(query.page ?? 1));
  return { limit, offset: (page - 1) * limit };
}
