import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { queryValues } from "../src/routes/mount-routes.js";
import { paginationEntries, toPage } from "../src/validation/pagination.js";

const schema = v.strictObject(paginationEntries);
const parse = (q: Record<string, string[]>) => {
  const r = v.safeParse(schema, queryValues(q));
  return r.success ? toPage(r.output) : null;
};

describe("pagination parameters", () => {
  it("defaults to page 1, limit 20, createdAt:DESC,id:DESC", () => {
    expect(parse({})).toEqual({
      page: 1,
      limit: 20,
      sort: [
        { field: "createdAt", direction: "DESC" },
        { field: "id", direction: "DESC" },
      ],
    });
  });

  it("clamps a large limit to 100 and keeps repeated and comma-separated sortBy terms in order", () => {
    expect(parse({ limit: ["5000"], page: ["3"], sortBy: ["id:ASC", "createdAt:DESC"] })).toMatchObject({
      page: 3,
      limit: 100,
      sort: [
        { field: "id", direction: "ASC" },
        { field: "createdAt", direction: "DESC" },
      ],
    });
    expect(parse({ sortBy: ["createdAt:ASC,id:ASC"] })?.sort).toHaveLength(2);
    // However many digits (spec: "larger values are clamped, not rejected").
    expect(parse({ limit: [`1${"0".repeat(400)}`] })?.limit).toBe(100);
  });

  it.each([
    { sortBy: ["amountMinor:ASC"] },
    { sortBy: ["createdAt"] },
    { sortBy: ["createdAt:asc"] },
    { page: ["0"] },
    { page: ["-1"] },
    { page: ["1.5"] },
    { limit: ["0"] },
    { limit: ["ten"] },
    { page: ["1", "2"] },
    { other: ["x"] },
  ] as Record<string, string[]>[])("refuses %j", (q) => {
    expect(parse(q)).toBeNull();
  });
});
