import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tenantOpenApiDocument } from "@wallet/http-adapter";

/**
 * The interactive API reference (Scalar) of the tenant API, served by the standalone server:
 *
 * - `GET /docs`: an HTML page with the OpenAPI document embedded as inert JSON;
 * - `GET /docs/init.js`: starts Scalar on it (no inline script, so the CSP allows only 'self');
 * - `GET /docs/scalar.js`: Scalar's standalone bundle, read from node_modules (no CDN).
 *
 * `@scalar/api-reference` is an optional dependency (most of an install's weight, with Vue): a
 * service that embeds the ledger can leave it out (`npm install --omit=optional`), and `/docs`
 * then answers 404 with a page that says how to get it.
 *
 * It lives outside `/api/v1/tenant`, where every route but /health is signed (spec,
 * Authentication). Serving the document unauthenticated here is safe: it is generated from the
 * route registry alone (paths, schemas, descriptions), identical for every tenant and deployment,
 * and holds no tenant, key, catalog or configuration data; it says what the public spec says.
 * The page cannot send requests (Scalar's client is hidden: it cannot sign them), and its CSP
 * lets it load nothing from elsewhere.
 */

export const REFERENCE_PATH = "/docs";

type Fetch = (request: Request, ...rest: never[]) => Response | Promise<Response>;

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar (Vue) sets inline styles.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const commonHeaders = {
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

// Scalar options: no fonts from its CDN, no telemetry, no request client (it cannot sign), no
// AI agent, no developer toolbar.
const initScript = `"use strict";
(function () {
  var source = document.getElementById("wallet-openapi");
  var content = JSON.parse(source.textContent);
  window.Scalar.createApiReference("#app", {
    content: content,
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    hideTestRequestButton: true,
    showDeveloperTools: "never",
    showToolbar: "never",
    defaultOpenAllTags: true,
    agent: { disabled: true },
    metaData: { title: "Tenant Wallet API reference" }
  });
})();
`;

/** JSON that is safe inside a <script> element: no "</script>", no "<!--". */
const scriptSafeJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

/** `/docs` when the bundle is not installed: what is missing, and where the document is. */
const notInstalledHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Tenant Wallet API reference</title>
</head>
<body>
<p>The interactive API reference is not installed on this server: it needs the optional
dependency <code>@scalar/api-reference</code>, which the install left out.</p>
<p>The same document is served, signed, at <code>GET /api/v1/tenant/openapi.json</code>.</p>
</body>
</html>
`;

function pageHtml(document: unknown): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tenant Wallet API reference</title>
</head>
<body>
<noscript>The API reference needs JavaScript. The same document is served, signed, at GET /api/v1/tenant/openapi.json.</noscript>
<div id="app"></div>
<script id="wallet-openapi" type="application/json">${scriptSafeJson(document)}</script>
<script src="${REFERENCE_PATH}/scalar.js"></script>
<script src="${REFERENCE_PATH}/init.js"></script>
</body>
</html>
`;
}

/** The standalone bundle, or null when @scalar/api-reference is not installed. */
function loadBundle(): Buffer | null {
  try {
    const require = createRequire(import.meta.url);
    return readFileSync(require.resolve("@scalar/api-reference/browser/standalone.js"));
  } catch {
    return null;
  }
}

export interface ReferencePageOptions {
  /** Default: `tenantOpenApiDocument()`. */
  document?: unknown | undefined;
  /** Default: reads @scalar/api-reference's standalone bundle (null: not installed). */
  bundle?: (() => Buffer | null) | undefined;
}

/**
 * Wraps the app's fetch so GET/HEAD `/docs`, `/docs/init.js` and `/docs/scalar.js` answer the
 * reference page; everything else goes to the app unchanged. The page and the bundle are built
 * on first request and kept.
 */
export function withReferencePage<F extends Fetch>(fetch: F, options: ReferencePageOptions = {}): F {
  let html: string | undefined;
  let bundle: Buffer | null | undefined;
  const wrapped = (request: Request, ...rest: never[]) => {
    if (request.method !== "GET" && request.method !== "HEAD") return fetch(request, ...rest);
    const { pathname } = new URL(request.url);
    const head = request.method === "HEAD";
    if (pathname === REFERENCE_PATH || pathname === `${REFERENCE_PATH}/`) {
      bundle ??= (options.bundle ?? loadBundle)();
      if (bundle === null) {
        return new Response(head ? null : notInstalledHtml, {
          status: 404,
          headers: { ...commonHeaders, "Content-Type": "text/html; charset=utf-8" },
        });
      }
      html ??= pageHtml(options.document ?? tenantOpenApiDocument());
      return new Response(head ? null : html, {
        headers: {
          ...commonHeaders,
          "Content-Type": "text/html; charset=utf-8",
          "Content-Security-Policy": contentSecurityPolicy,
          "Cache-Control": "no-cache",
        },
      });
    }
    if (pathname === `${REFERENCE_PATH}/init.js`) {
      return new Response(head ? null : initScript, {
        headers: {
          ...commonHeaders,
          "Content-Type": "text/javascript; charset=utf-8",
          "Cache-Control": "no-cache",
        },
      });
    }
    if (pathname === `${REFERENCE_PATH}/scalar.js`) {
      bundle ??= (options.bundle ?? loadBundle)();
      if (bundle === null) {
        return new Response("The API reference bundle (@scalar/api-reference) is not installed.\n", {
          status: 404,
          headers: { ...commonHeaders, "Content-Type": "text/plain; charset=utf-8" },
        });
      }
      return new Response(head ? null : new Uint8Array(bundle), {
        headers: {
          ...commonHeaders,
          "Content-Type": "text/javascript; charset=utf-8",
          "Cache-Control": "public, max-age=3600",
        },
      });
    }
    return fetch(request, ...rest);
  };
  return wrapped as F;
}
