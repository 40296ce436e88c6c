import { describe, expect, it } from "vitest";
import { iteratePages, type Page } from "../src/index.js";

/** A list of `total` items, `limit` a page, as the service answers it. */
const listOf = (total: number, limit: number) => {
  let fetched = 0;
  const fetchPage = async (page: number): Promise<Page<{ id: string }>> => {
    fetched++;
    const start = (page - 1) * limit;
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => ({
      id: `op_${start + i}`,
    }));
    return { data, meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
  };
  return { fetchPage, fetched: () => fetched };
};

const collect = async (it: AsyncIterable<{ id: string }>) => {
  const ids: string[] = [];
  for await (const x of it) ids.push(x.id);
  return ids;
};

describe("iteratePages", () => {
  it("walks every page, however many (no silent cap)", async () => {
    const list = listOf(1_500, 1);
    const ids = await collect(iteratePages(list.fetchPage, (x) => x.id, 1));
    expect(ids).toHaveLength(1_500);
    expect(new Set(ids).size).toBe(1_500);
    expect(list.fetched()).toBe(1_500);
  });

  it("stops after maxPages when the caller sets it, and refuses a nonsensical one", async () => {
    const list = listOf(50, 10);
    expect(await collect(iteratePages(list.fetchPage, (x) => x.id, 1, { maxPages: 2 }))).toHaveLength(20);
    for (const maxPages of [0, -1, 1.5, Number.POSITIVE_INFINITY]) {
      await expect(collect(iteratePages(list.fetchPage, (x) => x.id, 1, { maxPages }))).rejects.toThrow(
        TypeError,
      );
    }
  });

  it("yields an item pushed onto the next page by a newer one only once", async () => {
    let calls = 0;
    const fetchPage = async (page: number): Promise<Page<{ id: string }>> => {
      calls++;
      // Page 1 is read before op_new arrives; page 2 then starts with op_2 again.
      const rows = calls === 1 ? ["op_3", "op_2", "op_1"] : ["op_new", "op_3", "op_2", "op_1"];
      const data = rows.slice((page - 1) * 2, page * 2).map((id) => ({ id }));
      return { data, meta: { total: rows.length, page, limit: 2, totalPages: Math.ceil(rows.length / 2) } };
    };
    expect(await collect(iteratePages(fetchPage, (x) => x.id, 1))).toEqual(["op_3", "op_2", "op_1"]);
  });
});
