import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import type { RouteEntry } from "../routes/route-entry.js";
import { type CodePointBounds, errorBodySchema, jsonObjectSchema } from "../validation/common-schemas.js";

/** JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of a valibot schema. */
export function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  // A `check` counting code points is JSON Schema's minLength/maxLength (which count code points).
  // Other `check` actions (free-form object caps) have no JSON Schema form; their description says
  // it. `transform` actions (query text to numbers, booleans, normalized times) change the parsed
  // value, not what a client sends, which is what the document describes.
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: "draft-2020-12",
    ignoreActions: ["transform"],
    errorMode: "throw",
    overrideSchema: ({ valibotSchema }) =>
      valibotSchema === jsonObjectSchema ? { type: "object" } : undefined,
    overrideAction: ({ valibotAction, jsonSchema }) => {
      if (valibotAction.type !== "check") return undefined;
      const bounds = (valibotAction as { codePoints?: CodePointBounds }).codePoints;
      return bounds ? { ...jsonSchema, minLength: bounds.min, maxLength: bounds.max } : jsonSchema;
    },
  });
  return rest;
}

const errorDescriptions: Record<number, string> = {
  400: "Invalid request (body, query, path or Idempotency-Key)",
  401: "Authentication failed (one identical body for every cause)",
  403: "A scope is missing",
  404: "Not found, or not the tenant's",
  408: "The request did not arrive in full within 30 s",
  409: "Conflict (or the Idempotency-Key is still in use; retry after Retry-After)",
  413: "Request body larger than 1 MiB",
  422: "Refused by a business rule",
  429: "Too many requests; retry after Retry-After",
  431: "Request headers too large",
  500: "Internal error",
  503: "Service unavailable",
};

/**
 * A route's error statuses, and what any route may answer before its handler runs: the server's
 * 408 (the request did not arrive in time) and 431 (headers too large), and on a signed route the
 * 413 of a body over 1 MiB (a GET's too).
 */
const errorStatusesOf = (entry: RouteEntry): number[] =>
  [...new Set([...entry.errorStatuses, ...(entry.auth === "signature" ? [413] : []), 408, 431])].sort(
    (a, b) => a - b,
  );

/** The refusals a write stores with its Idempotency-Key (decisions.md), and so may replay. */
const storedErrorStatuses = [404, 409, 422];

const SIGNED = [{ ApiKey: [], KeyId: [], Timestamp: [], Signature: [] }];

/**
 * The OpenAPI 3.1 document of a route registry. The request schemas are the very valibot schemas
 * the routes validate with, so the document cannot drift from what the server accepts.
 */
export function buildOpenApiDocument(
  entries: readonly RouteEntry[],
  info: { title: string; version: string; serverUrl: string },
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const entry of entries) {
    const operation: Record<string, unknown> = {
      operationId: entry.operationId,
      summary: entry.summary,
      tags: [entry.tag],
      security: entry.auth === "signature" ? SIGNED : [],
      parameters: [
        ...parametersOf(entry.params, "path"),
        ...parametersOf(entry.query, "query"),
        ...(entry.write ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []),
        { $ref: "#/components/parameters/RequestId" },
      ],
      responses: {
        [String(entry.success.status)]: {
          description: entry.success.description,
          headers: {
            "X-Request-Id": { $ref: "#/components/headers/RequestId" },
            ...(entry.write
              ? { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } }
              : {}),
          },
          content: { "application/json": { schema: jsonSchemaOf(entry.success.schema) } },
        },
        ...Object.fromEntries(
          errorStatusesOf(entry).map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]),
        ),
      },
    };
    if (entry.body !== undefined) {
      operation.requestBody = {
        required: true,
        content: { "application/json": { schema: jsonSchemaOf(entry.body) } },
      };
    }
    paths[entry.path] ??= {};
    paths[entry.path]![entry.method.toLowerCase()] = operation;
  }

  const errorStatuses = [...new Set(entries.flatMap(errorStatusesOf))].sort((a, b) => a - b);
  return {
    openapi: "3.1.0",
    info: {
      title: info.title,
      version: info.version,
      description:
        "Tenant Wallet API. Every route except GET /health is signed: Ed25519 over METHOD, PATH+QUERY, " +
        "X-Timestamp and the SHA-256 hex of the body, joined by newlines. Money is integer minor units.",
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: { Error: jsonSchemaOf(errorBodySchema) },
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-Api-Key", description: "The tenant's API key." },
        KeyId: {
          type: "apiKey",
          in: "header",
          name: "X-Key-Id",
          description: "kid of the Ed25519 key that signed.",
        },
        Timestamp: {
          type: "apiKey",
          in: "header",
          name: "X-Timestamp",
          description: "Unix epoch seconds (not milliseconds), within 300 seconds of the server clock.",
        },
        Signature: {
          type: "apiKey",
          in: "header",
          name: "X-Signature",
          description:
            "Base64 Ed25519 signature over `METHOD\\nPATH+QUERY\\nX-Timestamp\\nsha256hex(body)` (UTF-8). " +
            "A signature is accepted once.",
        },
      },
      parameters: {
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          required: true,
          description:
            "1-255 printable ASCII characters; a retry with the same key replays the first answer.",
          schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
        },
        RequestId: {
          name: "X-Request-Id",
          in: "header",
          required: false,
          description: "Echoed when valid; generated otherwise.",
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
        },
      },
      headers: {
        RequestId: { description: "The request id (echoed or generated).", schema: { type: "string" } },
        IdempotentReplayed: {
          description:
            "On writes: true when this answer is the stored answer of an earlier request with the same key.",
          schema: { type: "string", enum: ["true", "false"] },
        },
        RetryAfter: { description: "Seconds to wait before retrying.", schema: { type: "string" } },
      },
      responses: Object.fromEntries(
        errorStatuses.map((s) => [
          `Error${s}`,
          {
            description: errorDescriptions[s] ?? "Error",
            headers: {
              "X-Request-Id": { $ref: "#/components/headers/RequestId" },
              ...(s === 429 || s === 409 || s === 503
                ? { "Retry-After": { $ref: "#/components/headers/RetryAfter" } }
                : {}),
              // A write stores its 404, 409 and 422 answers and replays them under the same key.
              ...(storedErrorStatuses.includes(s)
                ? { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } }
                : {}),
            },
            content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
          },
        ]),
      ),
    },
  };
}

function parametersOf(schema: v.GenericSchema | undefined, location: "path" | "query") {
  if (schema === undefined) return [];
  const json = jsonSchemaOf(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || (json.required ?? []).includes(name),
    schema: property,
  }));
}
