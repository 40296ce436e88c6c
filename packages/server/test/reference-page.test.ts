import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tenantOpenApiDocument } from "@wallet/http-adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withReferencePage } from "../src/reference/reference-page.js";
import type { RunningServer } from "../src/server/start-server.js";
import { e2eConfig, start } from "./running-server.js";

// GET /docs: the interactive API reference (Scalar), served by the standalone server, loaded in a
// real headless Chromium (Debian's package) driven by playwright-core.

const chromiumPath = "/usr/bin/chromium";
const haveChromium = existsSync(chromiumPath);
if (!haveChromium && process.env.CI) {
  throw new Error(`${chromiumPath} is missing; .ci/run installs Debian's chromium package`);
}
if (!haveChromium) {
  console.warn(
    `reference page browser test skipped: ${chromiumPath} not found (apt-get install -y chromium)`,
  );
}

let server: RunningServer;
const openApi = tenantOpenApiDocument() as {
  paths: Record<string, Record<string, { summary: string; operationId: string }>>;
};

beforeAll(async () => {
  server = await start(
    e2eConfig(),
    `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-docs-")), "wallet.db")}`,
  );
});
afterAll(async () => {
  await server?.close();
});

describe("GET /docs over HTTP", () => {
  it("serves the page unauthenticated, with the generated document embedded and a strict CSP", async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    const html = await res.text();
    const embedded = html.match(/<script id="wallet-openapi" type="application\/json">(.*?)<\/script>/s)?.[1];
    expect(embedded).toBeDefined();
    expect(JSON.parse(embedded ?? "")).toEqual(JSON.parse(JSON.stringify(tenantOpenApiDocument())));
    // No inline executable script: only the two same-origin files.
    expect([...html.matchAll(/<script src="([^"]+)"><\/script>/g)].map((m) => m[1])).toEqual([
      "/docs/scalar.js",
      "/docs/init.js",
    ]);
  });

  it("serves Scalar's bundle from node_modules and leaves every other route to the API", async () => {
    const bundle = await fetch(`${server.url}/docs/scalar.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    expect((await fetch(`${server.url}/docs/init.js`)).status).toBe(200);
    expect((await fetch(`${server.url}/docs`, { method: "POST" })).status).toBe(404);
    expect((await fetch(`${server.url}/docs/other`)).status).toBe(404);
    // The signed document stays signed.
    expect((await fetch(`${server.url}/api/v1/tenant/openapi.json`)).status).toBe(401);
    expect((await fetch(`${server.url}/api/v1/tenant/health`)).status).toBe(200);
  });

  it("is not served when the server is started without it", async () => {
    const off = await start(
      e2eConfig(),
      `sqlite:${join(mkdtempSync(join(tmpdir(), "wallet-docs-off-")), "wallet.db")}`,
      { referencePage: false },
    );
    try {
      expect((await fetch(`${off.url}/docs`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});

describe("GET /docs without the optional @scalar/api-reference", () => {
  const api = (_request: Request) => new Response("from the API", { status: 200 });
  const fetchDocs = withReferencePage(api, { bundle: () => null });
  const get = (path: string, method = "GET") => fetchDocs(new Request(`http://127.0.0.1${path}`, { method }));

  it("answers 404 with a page that says what is missing and where the document is", async () => {
    const res = await get("/docs");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain("@scalar/api-reference");
    expect(html).toContain("GET /api/v1/tenant/openapi.json");
    expect(html).not.toContain("<script");
    expect((await get("/docs", "HEAD")).status).toBe(404);
    const bundle = await get("/docs/scalar.js");
    expect(bundle.status).toBe(404);
    expect(await bundle.text()).toContain("not installed");
    expect(await (await get("/api/v1/tenant/health")).text()).toBe("from the API");
  });
});

describe.skipIf(!haveChromium)("GET /docs in headless Chromium", () => {
  it("renders every route of the tenant API and loads nothing from elsewhere", async () => {
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      timeout: 30_000,
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const origin = new URL(server.url).origin;
      const foreign: string[] = [];
      const errors: string[] = [];
      // The machine is offline: a request elsewhere would hang or fail; record and refuse it.
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:"))
          return route.continue();
        foreign.push(url);
        return route.abort();
      });
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });

      await page.goto(`${server.url}/docs`, { waitUntil: "load", timeout: 30_000 });
      await page
        .getByText("Onboard a customer and open the main wallet")
        .first()
        .waitFor({ timeout: 30_000 });

      const operations = Object.entries(openApi.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, op]) => ({
          method: method.toUpperCase(),
          path,
          summary: op.summary,
        })),
      );
      expect(operations.length).toBeGreaterThan(20);
      // The rendered text (what a reader sees), not the raw DOM text.
      // biome-ignore lint/performance/useDomNodeTextContent: rendered text is the point here
      const text = await page.locator("body").innerText();
      const missing = operations.filter((op) => !text.includes(op.summary)).map((op) => op.summary);
      expect(missing).toEqual([]);
      // Method and path of a route as the reader sees them.
      // Scalar renders the sections lazily: read the text again until the path shows.
      await expect
        // biome-ignore lint/performance/useDomNodeTextContent: rendered text is the point here
        .poll(() => page.locator("body").innerText(), { timeout: 20_000, interval: 250 })
        .toMatch(/POST\s*\/payouts/);

      const shot = join(mkdtempSync(join(tmpdir(), "wallet-docs-shot-")), "reference.png");
      await page.screenshot({ path: shot, fullPage: false });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      console.info(`reference page screenshot: ${shot}`);

      expect(foreign).toEqual([]);
      expect(errors.filter((e) => !/Content Security Policy|favicon/i.test(e))).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
