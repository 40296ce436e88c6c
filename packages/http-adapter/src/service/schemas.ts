import * as v from "valibot";
import { instantViewSchema } from "../validation/common-schemas.js";

/** GET /health (DESIGN.md section 3). */
export const healthSchema = v.object({
  service: v.literal("wallet"),
  status: v.literal("ok"),
  timestamp: instantViewSchema,
});

/** GET /openapi.json: an OpenAPI 3.1 document (its own schema is the OpenAPI specification). */
export const openApiDocumentSchema = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({}),
  paths: v.looseObject({}),
});
