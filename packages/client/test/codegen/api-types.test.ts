import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tenantOpenApiDocument } from "@wallet/http-adapter";
import { describe, expect, it } from "vitest";
import { tenantRoutes } from "../../src/generated/api-types.js";
import { generateApiTypes, type OpenApiDocument } from "./generate-api-types.js";

// The SDK's types are generated from the server's OpenAPI document. This test regenerates them in
// memory and fails when the committed file differs, so they never drift from what the server
// accepts and answers. `pnpm gen:client` runs it with WALLET_UPDATE_GENERATED=1 to rewrite the file.

const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const committedPath = fileURLToPath(new URL("../../src/generated/api-types.ts", import.meta.url));
const document = tenantOpenApiDocument() as unknown as OpenApiDocument;

/** Biome's formatting of `source`, as `pnpm format` would leave the file. */
function formatWithBiome(source: string): string {
  const result = spawnSync(
    process.execPath,
    [
      fileURLToPath(new URL("node_modules/@biomejs/biome/bin/biome", `file://${repoRoot}`)),
      "format",
      "--stdin-file-path=packages/client/src/generated/api-types.ts",
    ],
    { cwd: repoRoot, input: source, encoding: "utf8", timeout: 60_000 },
  );
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr || result.error}`);
  return result.stdout;
}

describe("generated API types", () => {
  it("match the server's OpenAPI document (run `pnpm gen:client` after changing a route)", () => {
    const generated = formatWithBiome(generateApiTypes(document));
    if (process.env.WALLET_UPDATE_GENERATED === "1") {
      writeFileSync(committedPath, generated);
      return;
    }
    const committed = readFileSync(committedPath, "utf8");
    expect(committed === generated, "src/generated/api-types.ts is stale: run `pnpm gen:client`").toBe(true);
  });

  it("list every operation of the document with its method, path and success status", () => {
    const expected = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, op]) => ({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        status: Number(Object.keys(op.responses).find((s) => s.startsWith("2"))),
      })),
    );
    const actual = Object.entries(tenantRoutes).map(([id, r]) => ({
      id,
      method: r.method,
      path: r.path,
      status: r.status,
    }));
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
    expect(actual.sort(byId)).toEqual(expected.sort(byId));
  });

  it("refuse a JSON Schema construct they do not know instead of widening it to unknown", () => {
    const bad: OpenApiDocument = {
      openapi: "3.1.0",
      info: { title: "t", version: "v1" },
      paths: {
        "/x": {
          get: {
            operationId: "getX",
            responses: {
              "200": { content: { "application/json": { schema: { type: "object", allOf: [] } } } },
            },
          },
        },
      },
    };
    expect(() => generateApiTypes(bad)).toThrow(/unsupported JSON Schema keyword "allOf"/);
  });

  it("type bodies, queries and responses as the schema says", () => {
    const text = generateApiTypes({
      openapi: "3.1.0",
      info: { title: "t", version: "v9" },
      paths: {
        "/things/{uid}": {
          post: {
            operationId: "makeThing",
            summary: "Make a thing",
            security: [{ ApiKey: [] }],
            parameters: [
              { name: "uid", in: "path", required: true, schema: { type: "string" } },
              { name: "page", in: "query", schema: { type: "string", pattern: "^[1-9][0-9]{0,8}$" } },
              { name: "includePending", in: "query", schema: { type: "string", enum: ["true", "false"] } },
              { $ref: "#/components/parameters/RequestId" },
            ],
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: {
                      amountMinor: { type: "integer", description: "Minor units." },
                      note: { anyOf: [{ type: "string" }, { type: "null" }] },
                      tags: { type: "array", items: { enum: ["a", "b"], type: "string" } },
                      "odd-name": { type: "boolean" },
                      metadata: { type: "object" },
                    },
                    required: ["amountMinor"],
                    additionalProperties: false,
                  },
                },
              },
            },
            responses: {
              "201": {
                content: {
                  "application/json": {
                    schema: {
                      type: "object",
                      properties: { ok: { const: true }, note: { type: "string" } },
                      required: ["ok"],
                    },
                  },
                },
              },
              "404": { $ref: "#/components/responses/Error404" },
            },
          },
        },
      },
    });
    expect(text).toContain('export const apiVersion = "v9";');
    expect(text).toContain("/** Minor units. */\n  amountMinor: number;");
    expect(text).toContain("note?: string | null | undefined;");
    expect(text).toContain('tags?: Array<"a" | "b"> | undefined;');
    expect(text).toContain('"odd-name"?: boolean | undefined;');
    expect(text).toContain("metadata?: Record<string, unknown> | undefined;");
    expect(text).toContain("page?: number | string | undefined;");
    expect(text).toContain("includePending?: boolean | undefined;");
    // An input's optional field also takes undefined (exactOptionalPropertyTypes); a response's does not.
    expect(text).toContain(
      "/** Make a thing */\nexport interface MakeThingResponse {\n  ok: true;\n  note?: string;\n}",
    );
    expect(text).toContain(
      'makeThing: { method: "POST", path: "/things/{uid}", status: 201, signed: true, pathParams: ["uid"] }',
    );
  });
});
