import { describe, expect, it } from "vitest";
import { redactDatabaseUrl } from "../src/server/database-url.js";

describe("redactDatabaseUrl", () => {
  it("hides a password in the user part and in the query, which node-postgres reads too", () => {
    expect(redactDatabaseUrl("postgres://wallet:hunter2@db:5432/wallet")).toBe(
      "postgres://wallet:***@db:5432/wallet",
    );
    expect(redactDatabaseUrl("postgres://wallet@db/wallet?password=hunter2&sslmode=require")).toBe(
      "postgres://wallet@db/wallet?password=***&sslmode=require",
    );
    expect(redactDatabaseUrl("postgres://db/wallet?sslpassword=k3y&PASSWORD=x")).not.toMatch(/k3y|=x\b/);
    expect(redactDatabaseUrl("postgres://db/wallet?sslmode=disable")).toBe(
      "postgres://db/wallet?sslmode=disable",
    );
    expect(redactDatabaseUrl("sqlite:./data/wallet.db")).toBe("sqlite:./data/wallet.db");
  });

  it("hides them as well when a password's unencoded # / ? : or @ breaks the URL's parse", () => {
    // Including those a URL parser takes without complaint, into the port or the path.
    for (const password of [
      "S3cr#tPassw0rd",
      "a/b?c",
      "p@ss#1",
      "x:y#z",
      "1234/abcd",
      "/s3cret",
      "p@ss/word",
      "12?34",
    ]) {
      const shown = redactDatabaseUrl(`postgres://wallet:${password}@127.0.0.1:1/wallet?sslpassword=k3y`);
      expect(shown).toBe("postgres://wallet:***@127.0.0.1:1/wallet?sslpassword=***");
    }
    expect(redactDatabaseUrl("postgres://wallet@db:port/wallet")).toBe("postgres://wallet@db:port/wallet");
  });

  it("hides a query password whose name is percent-encoded, and all of one holding an unencoded #", () => {
    // node-postgres decodes the parameters' names: pass%77ord is its password.
    expect(redactDatabaseUrl("postgres://app@db/wallet?pass%77ord=hunter2&%70assword=x2")).toBe(
      "postgres://app@db/wallet?pass%77ord=***&%70assword=***",
    );
    expect(redactDatabaseUrl("postgres://app@db/wallet?password=hun#ter2&sslmode=require")).toBe(
      "postgres://app@db/wallet?password=***&sslmode=require",
    );
    // A name that does not decode is judged as written.
    expect(redactDatabaseUrl("postgres://app@db/wallet?%zzpassword=x3")).toBe(
      "postgres://app@db/wallet?%zzpassword=***",
    );
  });
});
