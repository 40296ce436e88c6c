// Turns the tenant API's OpenAPI 3.1 document into the SDK's TypeScript types
// (`src/generated/api-types.ts`). It reads only the document, so the SDK never imports the server.
//
// Why not openapi-typescript: it drives the TypeScript 5 compiler API (`ts.factory`), which the
// TypeScript 7 this workspace builds with no longer ships. The document is produced by
// @valibot/to-json-schema and uses a small subset of JSON Schema (object, array, anyOf, enum,
// const, the primitive types), which this file covers completely: anything else throws, so a new
// construct in the document fails the drift test instead of turning silently into `unknown`.

type JsonSchema = Record<string, unknown>;

interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: JsonSchema;
}

interface OpenApiOperation {
  operationId: string;
  summary?: string;
  security?: unknown[];
  parameters?: Array<OpenApiParameter | { $ref: string }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> } | { $ref: string }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const httpMethods = ["get", "post", "patch", "put", "delete"] as const;
const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const schemaKeywords = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "oneOf",
  "enum",
  "const",
  "description",
  // Validation-only keywords: they narrow values, not the TypeScript type.
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "pattern",
  "format",
  "minItems",
  "maxItems",
]);

const pascal = (operationId: string) => operationId.charAt(0).toUpperCase() + operationId.slice(1);
const propertyKey = (name: string) => (identifier.test(name) ? name : JSON.stringify(name));
const docComment = (text: string, indent: string) =>
  `${indent}/** ${text.replaceAll("*/", "*\\/").replace(/\s+/g, " ").trim()} */\n`;

/** How a query parameter's text may be given: the SDK serializes numbers and booleans itself. */
function queryValueType(schema: JsonSchema): string | undefined {
  const pattern = typeof schema.pattern === "string" ? schema.pattern : "";
  // Digits only (`^[1-9][0-9]*$`, `^[1-9][0-9]{0,8}$`): a number is written as that text.
  if (schema.type === "string" && /^\^(\[[0-9-]+\](\{\d+(,\d+)?\}|\*|\+)?)+\$$/.test(pattern)) {
    return "number | string";
  }
  const values = schema.enum;
  if (Array.isArray(values) && values.length === 2 && values.includes("true") && values.includes("false")) {
    return "boolean";
  }
  return undefined;
}

/**
 * The TypeScript type of a JSON Schema, indented for nesting at `depth`. In an `input` (a request
 * body or query the caller fills) an optional property also takes `undefined`, so that a caller
 * compiling with `exactOptionalPropertyTypes` can pass a value that may be undefined: the SDK
 * drops it (JSON.stringify leaves it out of a body, the query serializer out of a query).
 */
function typeOf(schema: JsonSchema, depth: number, refName: (ref: string) => string, input: boolean): string {
  for (const key of Object.keys(schema)) {
    if (!schemaKeywords.has(key) && key !== "$ref") {
      throw new Error(`generate-api-types: unsupported JSON Schema keyword "${key}"`);
    }
  }
  if (typeof schema.$ref === "string") return refName(schema.$ref);
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union !== undefined) {
    const members = [...new Set(union.map((s) => typeOf(s, depth, refName, input)))];
    return members.map((m) => (m.includes("|") && members.length > 1 ? `(${m})` : m)).join(" | ");
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    return type.map((t) => typeOf({ ...schema, type: t }, depth, refName, input)).join(" | ");
  }
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = typeOf((schema.items ?? {}) as JsonSchema, depth, refName, input);
      return /[|&\s]/.test(item) && !item.startsWith("{") ? `Array<${item}>` : `${item}[]`;
    }
    case "object":
      return objectType(schema, depth, refName, input);
    case undefined:
      if (Object.keys(schema).every((k) => k === "description")) return "unknown";
      throw new Error(`generate-api-types: schema without a type: ${JSON.stringify(schema).slice(0, 120)}`);
    default:
      throw new Error(`generate-api-types: unsupported type ${JSON.stringify(type)}`);
  }
}

function objectType(
  schema: JsonSchema,
  depth: number,
  refName: (ref: string) => string,
  input: boolean,
): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const extra = schema.additionalProperties;
  const names = Object.keys(properties);
  if (names.length === 0) {
    if (extra === false) return "Record<string, never>";
    if (typeof extra === "object" && extra !== null) {
      return `Record<string, ${typeOf(extra as JsonSchema, depth, refName, input)}>`;
    }
    // A free-form object (metadata, evidence) or an open one with nothing guaranteed.
    return "Record<string, unknown>";
  }
  const indent = "  ".repeat(depth + 1);
  let body = "{\n";
  for (const name of names) {
    const property = properties[name] as JsonSchema;
    if (typeof property.description === "string") body += docComment(property.description, indent);
    const type = typeOf(property, depth + 1, refName, input);
    const optional = !required.has(name);
    body += `${indent}${propertyKey(name)}${optional ? "?" : ""}: ${type}${optional && input ? " | undefined" : ""};\n`;
  }
  if (typeof extra === "object" && extra !== null) {
    body += `${indent}[key: string]: ${typeOf(extra as JsonSchema, depth + 1, refName, input)};\n`;
  }
  return `${body}${"  ".repeat(depth)}}`;
}

interface RouteInfo {
  operationId: string;
  method: string;
  path: string;
  status: number;
  signed: boolean;
  pathParams: string[];
  body: string | null;
  query: string | null;
  response: string;
}

/**
 * The source text of `src/generated/api-types.ts` for a tenant OpenAPI document: for each
 * operation `<OperationId>Request` (JSON body), `<OperationId>Query` (query parameters) and
 * `<OperationId>Response` (success body); identical shapes become aliases of the first; then
 * `tenantRoutes`, the method, path and success status of each operation, as data.
 * The text is not yet formatted (the drift test formats it with Biome).
 */
export function generateApiTypes(document: OpenApiDocument): string {
  const declarations: string[] = [];
  const byShape = new Map<string, string>();
  const componentNames = new Map<string, string>();
  const refName = (ref: string) => {
    const name = componentNames.get(ref);
    if (name === undefined) throw new Error(`generate-api-types: unresolved $ref ${ref}`);
    return name;
  };

  const declare = (name: string, schema: JsonSchema, doc: string | undefined, input: boolean) => {
    const type = typeOf(schema, 0, refName, input);
    const comment = doc === undefined ? "" : docComment(doc, "");
    const same = byShape.get(type);
    if (same !== undefined) {
      declarations.push(`${comment}export type ${name} = ${same};\n`);
    } else {
      byShape.set(type, name);
      declarations.push(
        type.startsWith("{\n")
          ? `${comment}export interface ${name} ${type}\n`
          : `${comment}export type ${name} = ${type};\n`,
      );
    }
    return name;
  };

  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    const typeName = name === "Error" ? "ErrorBody" : name;
    componentNames.set(`#/components/schemas/${name}`, typeName);
    declare(typeName, schema, name === "Error" ? "The one error body of every failure." : undefined, false);
  }

  const routes: RouteInfo[] = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of httpMethods) {
      const operation = operations[method];
      if (operation === undefined) continue;
      const base = pascal(operation.operationId);
      const parameters = (operation.parameters ?? []).filter((p): p is OpenApiParameter => !("$ref" in p));

      const body = operation.requestBody?.content["application/json"]?.schema;
      const bodyName =
        body === undefined
          ? null
          : declare(`${base}Request`, body, `Body of ${method.toUpperCase()} ${path}.`, true);

      const query = parameters.filter((p) => p.in === "query");
      let queryName: string | null = null;
      if (query.length > 0) {
        queryName = `${base}Query`;
        let text = `${docComment(`Query of ${method.toUpperCase()} ${path}.`, "")}export interface ${queryName} {\n`;
        for (const p of query) {
          if (typeof p.schema.description === "string") text += docComment(p.schema.description, "  ");
          const type = queryValueType(p.schema) ?? typeOf(p.schema, 1, refName, true);
          text += `  ${propertyKey(p.name)}${p.required ? "" : "?"}: ${type}${p.required ? "" : " | undefined"};\n`;
        }
        declarations.push(`${text}}\n`);
      }

      const [status, success] = Object.entries(operation.responses).find(([s]) => /^2\d\d$/.test(s)) ?? [];
      const schema =
        success !== undefined && !("$ref" in success)
          ? success.content?.["application/json"]?.schema
          : undefined;
      if (status === undefined || schema === undefined) {
        throw new Error(`generate-api-types: ${operation.operationId} has no JSON success response`);
      }
      const responseName = declare(`${base}Response`, schema, operation.summary, false);

      routes.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        status: Number(status),
        signed: (operation.security ?? []).length > 0,
        pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
        body: bodyName,
        query: queryName,
        response: responseName,
      });
    }
  }

  const routeTable = routes
    .map(
      (r) =>
        `  ${r.operationId}: { method: ${JSON.stringify(r.method)}, path: ${JSON.stringify(r.path)}, ` +
        `status: ${r.status}, signed: ${r.signed}, pathParams: ${JSON.stringify(r.pathParams)} },\n`,
    )
    .join("");
  const typeTable = routes
    .map(
      (r) =>
        `  ${r.operationId}: { body: ${r.body ?? "never"}; query: ${r.query ?? "never"}; ` +
        `response: ${r.response} };\n`,
    )
    .join("");

  return [
    "// Generated from the tenant API's OpenAPI document (`tenantOpenApiDocument()` of\n",
    "// @wallet/http-adapter) by `pnpm gen:client`. Do not edit: a test regenerates it and fails on\n",
    "// any difference. Response objects list what the service guarantees; v1 may add fields.\n\n",
    `/** The API version the types were generated from. */\n`,
    `export const apiVersion = ${JSON.stringify(document.info.version)};\n\n`,
    declarations.join("\n"),
    "\n/** Method, path (relative to /api/v1/tenant), success status and path parameters of each operation. */\n",
    `export const tenantRoutes = {\n${routeTable}} as const;\n\n`,
    "/** Every operation's body, query and response types, by operationId. */\n",
    `export interface TenantOperationTypes {\n${typeTable}}\n\n`,
    "export type TenantOperationId = keyof typeof tenantRoutes;\n",
  ].join("");
}
