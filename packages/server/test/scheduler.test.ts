import { StoreUnavailableError } from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/server/logger.js";
import { startScheduler } from "../src/server/scheduler.js";

const clock = { now: () => new Date("2026-03-01T00:00:00.000Z") };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("startScheduler", () => {
  it("runs jobs repeatedly without overlap, survives a failing run, and stops cleanly", async () => {
    const lines: string[] = [];
    const logger = createLogger((l) => lines.push(l));
    let running = 0;
    let maxConcurrent = 0;
    let runs = 0;
    let failures = 0;
    const scheduler = startScheduler(
      [
        {
          name: "slow",
          intervalMs: 10,
          run: async (now) => {
            expect(now.toISOString()).toBe("2026-03-01T00:00:00.000Z");
            running++;
            maxConcurrent = Math.max(maxConcurrent, running);
            await sleep(25);
            running--;
            runs++;
            return 1;
          },
        },
        {
          name: "broken",
          intervalMs: 10,
          run: async () => {
            failures++;
            // A driver's message may carry a row's values: the log keeps name, code and frames.
            // Over several lines too: the stack repeats every line of it before the frames.
            throw new Error("duplicate key value: (value)=(+254712345678)\nDETAIL: row (+254700000999)");
          },
        },
      ],
      { clock, logger },
    );
    await sleep(200);
    await scheduler.stop();
    const runsAtStop = runs;
    expect(running).toBe(0);
    expect(runs).toBeGreaterThanOrEqual(2);
    expect(maxConcurrent).toBe(1);
    expect(failures).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.includes('"job":"broken"') && l.includes("job failed"))).toBe(true);
    expect(lines.join("\n")).not.toContain("+254712345678");
    expect(lines.join("\n")).not.toContain("+254700000999");
    expect(lines.some((l) => l.includes('"job":"broken"') && /"frames":\["at /.test(l))).toBe(true);
    await sleep(60);
    expect(runs).toBe(runsAtStop);
  });

  it("refuses a zero interval", () => {
    const logger = createLogger(() => {});
    expect(() =>
      startScheduler([{ name: "x", intervalMs: 0, run: async () => 0 }], { clock, logger }),
    ).toThrow("intervalMs");
  });

  it("logs the ledger's own message of a failure (the store unavailable), and the code of any", async () => {
    const lines: string[] = [];
    const logger = createLogger((line) => lines.push(line));
    const scheduler = startScheduler(
      [
        {
          name: "offline",
          intervalMs: 10,
          run: async () => {
            throw new StoreUnavailableError("The store is unavailable: connect ECONNREFUSED 127.0.0.1:5432");
          },
        },
      ],
      { clock, logger },
    );
    await sleep(50);
    await scheduler.stop();
    const failed = lines.map((l) => JSON.parse(l)).find((l) => l.job === "offline");
    expect(failed?.err).toMatchObject({
      name: "StoreUnavailableError",
      message: expect.stringContaining("ECONNREFUSED"),
    });
  });
});
