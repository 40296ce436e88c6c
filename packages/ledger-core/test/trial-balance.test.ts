import { describe, expect, it } from "vitest";
import { exactMinor, fundPrefund, getTrialBalance } from "../src/index.js";
import { createCore, tenantFixture } from "./support/core.js";

describe("the trial balance", () => {
  it("sums exactly past 2^53 - 1: the totals become decimal strings, the net and the flag stay exact", async () => {
    const core = createCore();
    const max = Number.MAX_SAFE_INTEGER;
    for (const id of ["acme", "other"]) {
      await core.run((tx) => tx.tenants.upsert(tenantFixture(id)));
      // The largest funding the ledger allows a tenant; two of them outgrow the safe integers.
      await core.run((tx) => fundPrefund(core.deps, tx, { tenantId: id, amountMinor: max, currency: "KES" }));
    }
    const total = (2n * BigInt(max)).toString();
    expect(await core.run((tx) => getTrialBalance(tx))).toEqual({
      currencies: [{ currency: "KES", debitsMinor: total, creditsMinor: total, netMinor: 0 }],
      balanced: true,
    });
  });

  it("writes a sum as a number while it is a safe integer, as digits beyond", () => {
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    expect(exactMinor(0n)).toBe(0);
    expect(exactMinor(max)).toBe(Number.MAX_SAFE_INTEGER);
    expect(exactMinor(-max)).toBe(-Number.MAX_SAFE_INTEGER);
    expect(exactMinor(max + 1n)).toBe("9007199254740992");
    expect(exactMinor(-max - 2n)).toBe("-9007199254740993");
  });
});
