import { describe, expect, it } from "vitest";
import { mutate } from "./support/request-arbitrary.js";

describe("the fuzz's body mutations", () => {
  it("copy what they insert: a value handed out again (fast-check's constants) is never written into", () => {
    const shared = { k: 1 };
    // Paths of `{a, extra: {k}}` in order: the root, a, extra, extra.k. An "add" writes into the
    // parent of the path it picks: pick 1 adds `extra` to the root, pick 3 adds into `extra`.
    const add = (pick: number) => ({ kind: "add" as const, pick, value: shared, key: "" });
    const once = mutate({ a: 1 }, [add(1), add(3)]);
    expect(shared).toEqual({ k: 1 });
    expect(JSON.stringify(once)).toBe('{"a":1,"extra":{"k":1,"extra":{"k":1}}}');
    expect(mutate({ a: 1 }, [add(1), add(3)])).toEqual(once);
  });

  it("leave the value they start from alone", () => {
    const body = { amountMinor: 5, nested: { x: [1] } };
    mutate(body, [{ kind: "set", pick: 3, value: "z", key: "" }]);
    expect(body).toEqual({ amountMinor: 5, nested: { x: [1] } });
  });
});
