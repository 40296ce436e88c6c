import { Validator } from "@seriousme/openapi-schema-validator";
import { createMemoryStore } from "@wallet/ledger-core/memory";
import * as v from "valibot";
import { beforeAll, describe, expect, it } from "vitest";
import { creditWalletBodySchema } from "../src/credits/schemas.js";
import { tenantOpenApiDocument, tenantRouteGroups } from "../src/index.js";
import { jsonSchemaOf } from "../src/openapi/openapi-document.js";
import { createHarness, type Harness, type SeededTenant, seedTenant, TENANT } from "./support/fixture.js";

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { securitySchemes: Record<string, { name: string; in: string }> };
};

describe("GET /openapi.json: OpenAPI 3.1 generated from the validating schemas", () => {
  let h: Harness;
  let noScopes: SeededTenant;
  let doc: Doc;

  beforeAll(async () => {
    const { uow } = createMemoryStore();
    h = createHarness(uow);
    noScopes = await seedTenant(uow, { id: "bare", scopes: [] });
    const res = await h.call(noScopes, "GET", `${TENANT}/openapi.json`);
    expect(res.status).toBe(200);
    doc = (await res.json()) as Doc;
  });

  it("is served to any authenticated caller, without scope, and to nobody else", async () => {
    expect(doc.openapi).toBe("3.1.0");
    expect((await h.app.request(`${TENANT}/openapi.json`)).status).toBe(401);
    // A query (a cache buster) changes nothing, as on /health.
    expect((await h.call(noScopes, "GET", `${TENANT}/openapi.json?v=2`)).status).toBe(200);
  });

  it("publishes every instant of an answer as format date-time", () => {
    const instants: string[] = [];
    const walk = (schema: unknown, path: string) => {
      if (typeof schema !== "object" || schema === null) return;
      const node = schema as Record<string, unknown>;
      for (const [key, value] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
        if (/(At|From|^validTo|^validUntil|^timestamp)$/.test(key)) {
          const options = ((value as { anyOf?: unknown[] }).anyOf ?? [value]) as {
            type?: string;
            format?: string;
          }[];
          const text = options.find((o) => o.type === "string");
          expect(text?.format, `${path}.${key}`).toBe("date-time");
          instants.push(`${path}.${key}`);
        }
        walk(value, `${path}.${key}`);
      }
      if (node.items) walk(node.items, `${path}[]`);
      for (const option of (node.anyOf ?? []) as unknown[]) walk(option, path);
    };
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const ok = Object.entries(operation.responses as Record<string, { content?: unknown }>).find(([s]) =>
          s.startsWith("2"),
        );
        const content = ok?.[1].content as { "application/json"?: { schema?: unknown } } | undefined;
        walk(content?.["application/json"]?.schema, `${method} ${path}`);
      }
    }
    expect(instants.length).toBeGreaterThan(20);
  });

  it("declares what any route may answer before its handler: 408 and 431 everywhere, 413 on every signed route", () => {
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const statuses = Object.keys(operation.responses as Record<string, unknown>);
        const signed = (operation.security as unknown[]).length > 0;
        expect(statuses, `${method} ${path}`).toEqual(
          expect.arrayContaining(["408", "431", ...(signed ? ["413"] : [])]),
        );
      }
    }
    const responses = (doc.components as unknown as { responses: Record<string, { description: string }> })
      .responses;
    expect(responses.Error408?.description).toMatch(/30 s/);
    expect(responses.Error431?.description).toMatch(/headers/);
  });

  it("is a valid OpenAPI 3.1 document according to a real validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("lists exactly the registered routes", () => {
    const registered = Object.values(tenantRouteGroups())
      .flat()
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(documented).toEqual(registered);
    expect(registered).toEqual([
      "GET /customers/{uid}",
      "GET /customers/{uid}/agreements",
      "GET /customers/{uid}/identifiers",
      "GET /health",
      "GET /mandates",
      "GET /mandates/{uid}",
      "GET /openapi.json",
      "GET /operations",
      "GET /operations/{uid}",
      "GET /operations/{uid}/receipt",
      "GET /topup-intents/{uid}",
      "GET /wallets/{uid}/balance",
      "GET /wallets/{uid}/transactions",
      "PATCH /customers/{uid}/identifiers/{iid}",
      "POST /customers",
      "POST /customers/{uid}/agreements",
      "POST /customers/{uid}/identifiers",
      "POST /customers/{uid}/kyc-versions",
      "POST /fees/quote",
      "POST /mandates",
      "POST /mandates/{uid}/debits",
      "POST /mandates/{uid}/revoke",
      "POST /payouts",
      "POST /topup-intents",
      "POST /wallet-credits",
      "POST /wallet-debits",
    ]);
  });

  it("uses the very schema the route validates with (strict, integer amounts)", () => {
    const op = doc.paths["/wallet-credits"]?.post as {
      requestBody: { content: { "application/json": { schema: unknown } } };
      parameters: { $ref?: string }[];
      security: unknown[];
    };
    const schema = op.requestBody.content["application/json"].schema as {
      additionalProperties: boolean;
      required: string[];
      properties: Record<string, { type?: string; minimum?: number; maximum?: number }>;
    };
    expect(schema).toEqual(jsonSchemaOf(creditWalletBodySchema));
    expect(schema.additionalProperties).toBe(false);
    expect([...schema.required].sort()).toEqual(["amountMinor", "clientReference", "currency", "walletUid"]);
    expect(schema.properties.amountMinor).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(schema.properties.metadata).toMatchObject({ type: "object" });
    // Characters are code points on both sides: JSON Schema's minLength/maxLength, our check.
    expect(schema.properties.clientReference).toEqual({ type: "string", minLength: 1, maxLength: 200 });
    expect(op.parameters).toContainEqual({ $ref: "#/components/parameters/IdempotencyKey" });
    expect(op.security).toEqual([{ ApiKey: [], KeyId: [], Timestamp: [], Signature: [] }]);
    // The document changes when the schema does: it is derived, not written by hand.
    const loosened = v.strictObject({ ...creditWalletBodySchema.entries, note: v.optional(v.string()) });
    expect(jsonSchemaOf(loosened)).not.toEqual(schema);
  });

  it("publishes the exact timestamp profile the server reads: format date-time narrowed by a pattern", async () => {
    const op = doc.paths["/customers/{uid}/agreements"]?.post as {
      requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } };
    };
    const acceptedAt = op.requestBody.content["application/json"].schema.properties.acceptedAt as {
      type: string;
      format: string;
      pattern: string;
    };
    expect(acceptedAt).toMatchObject({ type: "string", format: "date-time" });
    const pattern = new RegExp(acceptedAt.pattern);
    // What RFC 3339 allows but the profile does not (the server answers 400) fails the pattern too.
    for (const refused of ["2026-11-22t09:00:00z", "2026-11-22T09:00:00.1234567891Z", "2026-11-22T09:00Z"])
      expect(pattern.test(refused), refused).toBe(false);
    for (const read of ["2026-11-22T09:00:00Z", "2026-11-22T09:00:00.123456789+03:00"])
      expect(pattern.test(read), read).toBe(true);
  });

  it("declares Idempotent-Replayed on the refusals a write stores and replays (404, 409, 422)", () => {
    const responses = (doc.components as unknown as { responses: Record<string, { headers: object }> })
      .responses;
    for (const s of [404, 409, 422])
      expect(Object.keys(responses[`Error${s}`]!.headers)).toContain("Idempotent-Replayed");
    for (const s of [400, 401, 429])
      expect(Object.keys(responses[`Error${s}`]!.headers)).not.toContain("Idempotent-Replayed");
  });

  it("describes the four authentication headers; /health is unauthenticated", () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.values(schemes).map((s) => [s.in, s.name])).toEqual([
      ["header", "X-Api-Key"],
      ["header", "X-Key-Id"],
      ["header", "X-Timestamp"],
      ["header", "X-Signature"],
    ]);
    expect(doc.paths["/health"]?.get?.security).toEqual([]);
    expect(doc.paths["/customers/{uid}"]?.get?.parameters).toContainEqual(
      expect.objectContaining({ name: "uid", in: "path", required: true }),
    );
  });

  it("is the same document the package builds directly", () => {
    expect(doc).toEqual(JSON.parse(JSON.stringify(tenantOpenApiDocument())));
  });
});
