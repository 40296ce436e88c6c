import { readFileSync } from "node:fs";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ConfigError, configSchema, parseConfig, toCatalog } from "../src/config/index.js";
import { designExample, type RawConfig } from "./fixtures.js";

/** Every key of the config schema as `tenants[].webhook.url`, with how it defaults. */
type KeyInfo = { mode: "required" } | { mode: "optional" } | { mode: "default"; value: unknown };

// biome-ignore lint/suspicious/noExplicitAny: walking valibot's schema objects generically
type AnySchema = any;

function schemaKeys(schema: AnySchema, prefix = "", out = new Map<string, KeyInfo>()): Map<string, KeyInfo> {
  const s = unwrap(schema);
  if (s.type === "strict_object" || s.type === "object") {
    for (const [key, entry] of Object.entries(s.entries as Record<string, AnySchema>)) {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      out.set(path, infoOf(entry));
      schemaKeys(entry, path, out);
    }
  } else if (s.type === "array") {
    schemaKeys(s.item, `${prefix}[]`, out);
  } else if (s.type === "variant" || s.type === "union") {
    for (const option of s.options) schemaKeys(option, prefix, out);
  }
  return out;
}

function unwrap(schema: AnySchema): AnySchema {
  let s = schema;
  while (s.type === "optional" || s.type === "nullable" || s.type === "nullish") s = s.wrapped;
  return s;
}

function infoOf(entry: AnySchema): KeyInfo {
  if (entry.type !== "optional") return { mode: "required" };
  return entry.default === undefined ? { mode: "optional" } : { mode: "default", value: v.getDefault(entry) };
}

const operationsDoc = readFileSync(new URL("../../../docs/operations.md", import.meta.url), "utf8");

/** Rows of the table between the config-reference markers: key -> default cell. */
function documentedKeys(): Map<string, string> {
  const start = operationsDoc.indexOf("<!-- config-reference:start -->");
  const end = operationsDoc.indexOf("<!-- config-reference:end -->");
  expect(start, "docs/operations.md has the config-reference markers").toBeGreaterThan(-1);
  expect(end).toBeGreaterThan(start);
  const rows = new Map<string, string>();
  for (const line of operationsDoc.slice(start, end).split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    const key = /^`([^`]+)`$/.exec(cells[1] ?? "")?.[1];
    if (key === undefined) continue;
    expect(rows.has(key), `${key} is documented once`).toBe(false);
    rows.set(key, cells[3] ?? "");
  }
  return rows;
}

describe("docs/operations.md config reference", () => {
  const keys = schemaKeys(configSchema);

  it("documents every key of the schema and no other", () => {
    const documented = documentedKeys();
    expect([...documented.keys()].sort()).toEqual([...keys.keys()].sort());
  });

  it("states each key's default exactly as the schema applies it", () => {
    const documented = documentedKeys();
    for (const [key, info] of keys) {
      const cell = documented.get(key) ?? "";
      if (info.mode === "required") expect(cell, key).toBe("required");
      else if (info.mode === "optional") expect(cell, key).toBe("optional");
      else {
        const json = /^`(.+)`$/.exec(cell)?.[1];
        expect(json, `${key}: default cell is a JSON value in backticks`).toBeDefined();
        expect(JSON.parse(json ?? "undefined"), key).toEqual(info.value);
      }
    }
  });
});

const messageOf = (input: RawConfig): string => {
  try {
    parseConfig(input);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error("expected the config to be refused");
};

const edited = (edit: (c: RawConfig) => void) => {
  const c = designExample();
  edit(c);
  return c;
};

describe("scheduler settings in the config", () => {
  it("defaults a rail to no automatic outcome and keeps the rule out of the core's catalog", () => {
    const config = parseConfig(designExample());
    expect(config.rails[0]).toMatchObject({ autoPayoutOutcome: null, autoOutcomeDelaySeconds: 0 });
    const withRule = parseConfig(
      edited((c) => {
        c.rails[0].autoPayoutOutcome = "uncertain";
        c.rails[0].autoOutcomeDelaySeconds = 30;
      }),
    );
    expect(withRule.rails[0]).toMatchObject({ autoPayoutOutcome: "uncertain", autoOutcomeDelaySeconds: 30 });
    expect(Object.keys(toCatalog(withRule).rails[0] ?? {})).not.toContain("autoPayoutOutcome");
    expect(Object.keys(toCatalog(withRule).rails[0] ?? {})).not.toContain("autoOutcomeDelaySeconds");
  });

  it.each<[string, (c: RawConfig) => void, string]>([
    [
      "an unknown automatic outcome",
      (c) => (c.rails[0].autoPayoutOutcome = "reversed"),
      "config: rails[0].autoPayoutOutcome: expected one of confirmed, failed, uncertain",
    ],
    [
      "a negative delay",
      (c) => (c.rails[0].autoOutcomeDelaySeconds = -1),
      "config: rails[0].autoOutcomeDelaySeconds: expected an integer from 0 to 86400",
    ],
    [
      "a retry schedule that does not start at 0",
      (c) => (c.webhooks.retryScheduleSeconds = [5, 60]),
      "config: webhooks.retryScheduleSeconds: the first entry must be 0 (the first attempt is immediate)",
    ],
    [
      "a webhook timeout above the dispatcher's bound",
      (c) => (c.webhooks.timeoutMs = 120_001),
      "config: webhooks.timeoutMs: expected an integer from 1 to 120000",
    ],
    [
      "more deliveries in flight than the dispatcher allows",
      (c) => (c.webhooks.maxInFlight = 65),
      "config: webhooks.maxInFlight: expected an integer from 1 to 64",
    ],
  ])("refuses %s", (_name, edit, message) => {
    expect(messageOf(edited(edit))).toBe(message);
  });

  it("accepts a compressed retry schedule for tests (fractions of a second)", () => {
    const config = parseConfig(edited((c) => (c.webhooks.retryScheduleSeconds = [0, 0.2, 0.5])));
    expect(config.webhooks.retryScheduleSeconds).toEqual([0, 0.2, 0.5]);
  });
});
