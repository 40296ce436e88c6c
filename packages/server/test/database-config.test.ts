import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../src/config/index.js";
import { toStoreOptions } from "../src/server/open-ledger.js";
import { designExample } from "./fixtures.js";

const withDatabase = (database: unknown) => parseConfig({ ...designExample(), database });

describe("database section of the config", () => {
  it("is optional: SQLite commits in groups, Postgres one transaction per request", () => {
    const config = parseConfig(designExample());
    expect(config.database).toEqual({});
    expect(toStoreOptions("sqlite:./data/wallet.db", config.database)).toEqual({ groupCommit: {} });
    expect(toStoreOptions("postgres://db/wallet", config.database)).toEqual({ groupCommit: false });
  });

  it("switches group commit either way and passes its tuning and the pool size through", () => {
    const on = withDatabase({
      poolSize: 16,
      preparedStatements: false,
      groupCommit: { enabled: true, maxBatch: 32, maxWaitMs: 2, writers: 4 },
    });
    expect(toStoreOptions("postgres://db/wallet", on.database)).toEqual({
      poolSize: 16,
      preparedStatements: false,
      groupCommit: { maxBatch: 32, maxWaitMs: 2, writers: 4 },
    });
    const off = withDatabase({ sqliteSynchronous: "normal", groupCommit: { enabled: false, maxBatch: 32 } });
    expect(toStoreOptions("sqlite:./data/wallet.db", off.database)).toEqual({
      sqliteSynchronous: "normal",
      groupCommit: false,
    });
    // Tuning alone keeps the engine's choice: it tunes SQLite's batches, and leaves Postgres off.
    const tuned = withDatabase({ groupCommit: { maxWaitMs: 1 } });
    expect(toStoreOptions("sqlite:./data/wallet.db", tuned.database)).toEqual({
      groupCommit: { maxWaitMs: 1 },
    });
    expect(toStoreOptions("postgres://db/wallet", tuned.database)).toEqual({ groupCommit: false });
  });

  it.each([
    [{ poolSize: 0 }, "config: database.poolSize: expected an integer from 1 to 1000"],
    [{ preparedStatements: "yes" }, "config: database.preparedStatements"],
    [{ sqliteSynchronous: "off" }, "config: database.sqliteSynchronous: expected one of full, normal"],
    [
      { groupCommit: { maxBatch: 0 } },
      "config: database.groupCommit.maxBatch: expected an integer from 1 to 10000",
    ],
    [
      { groupCommit: { maxWaitMs: 5000 } },
      "config: database.groupCommit.maxWaitMs: expected an integer from 0 to 1000",
    ],
    [
      { groupCommit: { writers: 65 } },
      "config: database.groupCommit.writers: expected an integer from 1 to 64",
    ],
    [{ groupCommit: { batch: 10 } }, "config: database.groupCommit.batch"],
  ])("refuses %j", (database, message) => {
    let thrown: unknown;
    try {
      withDatabase(database);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message.startsWith(message)).toBe(true);
  });
});
