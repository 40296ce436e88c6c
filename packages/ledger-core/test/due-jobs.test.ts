import { beforeEach, describe, expect, it } from "vitest";
import type { UnitOfWork } from "../src/index.js";
import {
  createMandate,
  DomainError,
  defaultDueJobLimits,
  dueJobNames,
  isDueJobName,
  runDueJob,
} from "../src/index.js";
import type { MandateWorld } from "./support/mandate-fixtures.js";
import { createMandateWorld } from "./support/mandate-fixtures.js";

const DUE = "2026-12-01T00:00:00.000Z";

describe("runDueJob", () => {
  let w: MandateWorld;
  beforeEach(async () => {
    w = await createMandateWorld();
    for (const ref of ["a", "b", "c", "d", "e"]) {
      await w.core.run((tx) =>
        createMandate(
          w.core.deps,
          w.core.ctxFor(w.acme),
          tx,
          w.mandateInput(w.alice, { clientReference: ref, validFrom: DUE }),
        ),
      );
    }
  });
  const pending = () =>
    [...w.core.store.state.mandates.values()].filter((m) => m.status === "pending").length;

  it("runs batches until one comes back short, or until batchesMax ran", async () => {
    const limits = { batchSize: 2, batchesMax: 2 };
    expect(await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", DUE, limits)).toBe(4);
    expect(pending()).toBe(1);
    expect(await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", DUE, limits)).toBe(1);
    expect(await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", DUE, limits)).toBe(0);
    expect(pending()).toBe(0);
  });

  it("moves nothing before it is due, and everything at once within the default limits", async () => {
    expect(
      await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", "2026-11-30T23:59:59.999Z"),
    ).toBe(0);
    expect(defaultDueJobLimits).toEqual({ batchSize: 100, batchesMax: 20 });
    expect(await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", DUE)).toBe(5);
  });

  it("stops at a batch that lost a race (Conflict), keeping what the batches before it moved", async () => {
    let runs = 0;
    const racing: UnitOfWork = {
      ...w.core.store.uow,
      run: (work) =>
        ++runs === 2
          ? Promise.reject(new DomainError("Conflict", "another process moved these rows"))
          : w.core.store.uow.run(work),
    };
    const limits = { batchSize: 2, batchesMax: 10 };
    expect(await runDueJob(racing, w.core.deps, "activate-mandates", DUE, limits)).toBe(2);
    expect(runs).toBe(2);
    expect(pending()).toBe(3);
  });

  it("lets any other failure through", async () => {
    const failing: UnitOfWork = {
      ...w.core.store.uow,
      run: () => Promise.reject(new Error("store unavailable")),
    };
    await expect(runDueJob(failing, w.core.deps, "expire-mandates", DUE)).rejects.toThrow(
      "store unavailable",
    );
  });

  it("knows the three due jobs by name, and no name an object inherits", () => {
    expect([...dueJobNames]).toEqual(["activate-mandates", "expire-mandates", "expire-topups"]);
    for (const name of dueJobNames) expect(isDueJobName(name)).toBe(true);
    for (const name of ["constructor", "toString", "__proto__", "deliver-webhooks", ""])
      expect(isDueJobName(name)).toBe(false);
  });

  it("refuses (400, naming the field) a job, instant or limit from untyped input before any batch runs", async () => {
    const uow = w.core.store.uow;
    const run = (name: unknown, asOf: unknown, limits: unknown) =>
      runDueJob(
        uow,
        w.core.deps,
        name as "activate-mandates",
        asOf as string,
        limits as typeof defaultDueJobLimits,
      )
        .then(() => null)
        .catch((e: DomainError) => [e.code, e.details?.[0]?.field]);
    const ok = { batchSize: 2, batchesMax: 2 };
    expect(await run("constructor", DUE, ok)).toEqual(["InvalidRequest", "job"]);
    expect(await run("activate-mandates", "next tuesday", ok)).toEqual(["InvalidRequest", "asOf"]);
    expect(await run("activate-mandates", 1_764_547_200_000, ok)).toEqual(["InvalidRequest", "asOf"]);
    expect(await run("activate-mandates", "2026-12-01", ok)).toEqual(["InvalidRequest", "asOf"]);
    for (const batchSize of [0, -1, 1.5, Number.NaN, "2", null])
      expect(await run("expire-topups", DUE, { batchSize, batchesMax: 1 })).toEqual([
        "InvalidRequest",
        "limit",
      ]);
    expect(await run("expire-topups", DUE, { batchSize: 1001, batchesMax: 1 })).toEqual([
      "InvalidRequest",
      "limit",
    ]);
    for (const batchesMax of [0, Number.POSITIVE_INFINITY, undefined])
      expect(await run("expire-mandates", DUE, { batchSize: 2, batchesMax })).toEqual([
        "InvalidRequest",
        "batchesMax",
      ]);
    expect(await run("activate-mandates", DUE, null)).toEqual(["InvalidRequest", "batchesMax"]);
    expect(pending()).toBe(5);
  });

  it("reads an instant with an offset as the instant it names, not as text", async () => {
    // 2026-12-01T02:00+02:00 is DUE: every mandate is due; as text it would sort after DUE anyway,
    // so check the other side too: 01:59:59+02:00 is a millisecond before DUE and moves nothing.
    expect(
      await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", "2026-12-01T01:59:59.999+02:00"),
    ).toBe(0);
    expect(
      await runDueJob(w.core.store.uow, w.core.deps, "activate-mandates", "2026-12-01T02:00:00+02:00"),
    ).toBe(5);
  });
});
