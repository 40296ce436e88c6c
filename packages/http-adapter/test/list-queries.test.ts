import * as core from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { listQuerySchemas, parseListQuery } from "../src/list-queries.js";
import { tenantRouteGroups } from "../src/tenant-api.js";
import { refusalOf } from "./support/refusal.js";

describe("parseListQuery: the API's list queries, for callers of the core in-process", () => {
  it("names a core function for each query, and each is the query of the tenant route of that name", () => {
    const routes = Object.values(tenantRouteGroups()).flat();
    for (const [name, schema] of Object.entries(listQuerySchemas)) {
      expect([name, typeof (core as Record<string, unknown>)[name]]).toEqual([name, "function"]);
      expect([name, routes.find((r) => r.operationId === name)?.query]).toEqual([name, schema]);
    }
  });

  it("gives the core's filter and Page with the API's defaults", () => {
    expect(parseListQuery("listOperations", new URLSearchParams(""))).toEqual({
      filter: {},
      page: {
        page: 1,
        limit: 20,
        sort: [
          { field: "createdAt", direction: "DESC" },
          { field: "id", direction: "DESC" },
        ],
      },
    });
  });

  it("reads filters, clamps the limit, keeps repeated sort terms and rewrites time bounds in UTC", () => {
    const query = new URLSearchParams(
      "type=payout_b2c&from=2026-11-22T13:00:00%2B03:00&limit=500&page=2&sortBy=createdAt:ASC&sortBy=id:ASC",
    );
    expect(parseListQuery("listWalletTransactions", query)).toEqual({
      filter: { type: "payout_b2c", from: "2026-11-22T10:00:00.000Z" },
      page: {
        page: 2,
        limit: 100,
        sort: [
          { field: "createdAt", direction: "ASC" },
          { field: "id", direction: "ASC" },
        ],
      },
    });
    expect(parseListQuery("listMandates", { status: "active", sortBy: ["createdAt:ASC"] }).filter).toEqual({
      status: "active",
    });
    // No sort term is the default sort, not none.
    expect(parseListQuery("listMandates", { sortBy: [] })).toEqual(parseListQuery("listMandates", {}));
  });

  it("refuses what the API refuses 400, with the same details", () => {
    const unknown = refusalOf(() => parseListQuery("listOperations", new URLSearchParams("colour=red")));
    expect([unknown.code, unknown.details]).toEqual([
      "InvalidRequest",
      [{ field: "colour", issue: "unknown field" }],
    ]);
    const twice = refusalOf(() => parseListQuery("listOperations", new URLSearchParams("type=a&type=b")));
    expect(twice.code).toBe("InvalidRequest");
    expect(twice.details?.[0]?.field).toBe("type");
    expect(refusalOf(() => parseListQuery("listMandates", { limit: "0" })).details).toEqual([
      { field: "limit", issue: "limit must be a positive integer" },
    ]);
  });
});
