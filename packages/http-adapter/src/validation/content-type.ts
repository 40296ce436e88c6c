import { invalidRequest } from "../errors/http-error.js";

/**
 * A request body is JSON sent as such (spec, general conventions: "Bodies are JSON (Content-Type
 * application/json)"): a body under another media type (a form, text/plain, none at all) is 400,
 * never parsed as JSON anyway. The media type is matched without case; parameters are allowed,
 * and a charset, when named, must be UTF-8 (RFC 8259: JSON between systems is UTF-8). An empty
 * body needs no Content-Type.
 */
export function assertJsonContentType(contentType: string | undefined, bodyBytes: number): void {
  if (bodyBytes === 0) return;
  const problem = contentTypeProblem(contentType);
  if (problem === null) return;
  throw invalidRequest("A request body must be sent with Content-Type: application/json", [
    { field: "Content-Type", issue: problem },
  ]);
}

function contentTypeProblem(contentType: string | undefined): string | null {
  if (contentType === undefined || contentType.trim() === "") return "required";
  const [mediaType, ...parameters] = contentType.split(";");
  if (mediaType!.trim().toLowerCase() !== "application/json") return "must be application/json";
  for (const parameter of parameters) {
    const at = parameter.indexOf("=");
    if (at < 0 || parameter.slice(0, at).trim().toLowerCase() !== "charset") continue;
    const charset = parameter
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") return "charset must be utf-8";
  }
  return null;
}
