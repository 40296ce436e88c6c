import type { UnitOfWork, WebhookConfig } from "@wallet/ledger-core";
import { createMemoryStore } from "@wallet/ledger-core/memory";
import * as v from "valibot";
import { beforeEach, describe, expect, it } from "vitest";
import { tenantRouteGroups } from "../src/index.js";
import { deliveryListQuerySchema } from "../src/operator/webhook-schemas.js";
import { operatorRouteList } from "../src/operator-api.js";
import {
  ADMIN,
  ADMIN_TOKEN,
  createHarness,
  type Harness,
  type SeededTenant,
  seedTenant,
  sha256Hex,
} from "./support/fixture.js";

/*
 * Requests are strict (DESIGN.md section 3): a route without a body schema takes no body. An empty
 * body or `{}` is accepted; anything else is 400 InvalidRequest before the route's transaction, so
 * a field the route does not know (`expiresAt` on api-keys, `reason` on reverse) is never dropped
 * in silence.
 */

const bodyless = operatorRouteList.filter((e) => e.method !== "GET" && e.body === undefined);

/** A UnitOfWork that counts the transactions opened: a refused request opens none. */
function countingUow(uow: UnitOfWork) {
  const counter = {
    transactions: 0,
    uow: {
      run: (work) => {
        counter.transactions++;
        return uow.run(work);
      },
      autocommit: (work) => {
        counter.transactions++;
        return uow.autocommit(work);
      },
    } satisfies UnitOfWork,
  };
  return counter;
}

describe("operator routes without a body schema take no body", () => {
  let h: Harness;
  let counter: ReturnType<typeof countingUow>;
  let acme: SeededTenant;

  beforeEach(async () => {
    const { uow } = createMemoryStore();
    acme = await seedTenant(uow, { id: "acme" });
    counter = countingUow(uow);
    let n = 0;
    h = createHarness(counter.uow, {
      rotateWebhookSecret: (webhook: WebhookConfig, now: Date) => {
        const secret = {
          kid: `wh-${++n}`,
          secret: `secret-${n}-0123456789abcdef`,
          createdAt: now.toISOString(),
        };
        return { webhook: { ...webhook, secrets: [...webhook.secrets, secret] }, secret, signsFrom: now };
      },
    });
  });

  const pathOf = (path: string) =>
    `${ADMIN}${path
      .replace("{tenantId}", "acme")
      .replace("{kid}", "k1")
      .replace("{sha256}", sha256Hex(acme.apiKey))
      .replace("{uid}", "op_unknown")
      .replace("{eventId}", "evt_unknown")}`;

  /** Sends `body` as is (no JSON encoding), the way any HTTP client could. */
  const raw = (method: string, path: string, body: string | undefined) =>
    h.app.request(path, {
      method,
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: body ?? null,
    });

  it("covers every operator write that declares no body (and no tenant route lacks one)", () => {
    expect(bodyless.map((e) => `${e.method} ${e.path}`).sort()).toEqual([
      "POST /operations/{uid}/reverse",
      "POST /tenants/{tenantId}/api-keys",
      "POST /tenants/{tenantId}/api-keys/{sha256}/revoke",
      "POST /tenants/{tenantId}/signing-keys/{kid}/revoke",
      "POST /webhook-events/{eventId}/retry",
    ]);
    const tenantWrites = Object.values(tenantRouteGroups())
      .flat()
      .filter((e) => e.method !== "GET");
    expect(tenantWrites.filter((e) => e.body === undefined).map((e) => e.path)).toEqual([]);
  });

  it.each(bodyless.map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s: 400 naming an unknown field, for non-JSON and for a non-object, before any transaction",
    async (_name, entry) => {
      const path = pathOf(entry.path);
      const unknown = await raw(
        entry.method,
        path,
        JSON.stringify({ expiresAt: "2027-01-01T00:00:00Z", label: "ci" }),
      );
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toEqual({
        error: "InvalidRequest",
        message: "The request body is invalid",
        // The first unknown field, as on every strict body (valibot's strictObject stops there).
        details: [{ field: "expiresAt", issue: "unknown field" }],
      });

      const notJson = await raw(entry.method, path, "reason=fraud");
      expect(notJson.status).toBe(400);
      expect(await notJson.json()).toEqual({
        error: "InvalidRequest",
        message: "The request body is not valid JSON",
      });

      for (const body of ["[]", "null", '"x"', "0", "true", '{"a":{}}']) {
        const res = await raw(entry.method, path, body);
        expect(res.status, body).toBe(400);
        expect(((await res.json()) as { error: string }).error, body).toBe("InvalidRequest");
      }
      expect(counter.transactions).toBe(0);
    },
  );

  it.each(bodyless.map((e) => [`${e.method} ${e.path}`, e] as const))(
    "%s: an empty body and {} are accepted",
    async (_name, entry) => {
      const path = pathOf(entry.path);
      for (const body of [undefined, "", "{}", " { } \n"]) {
        const res = await raw(entry.method, path, body);
        expect(res.status, JSON.stringify(body)).not.toBe(400);
        expect([200, 201, 404], JSON.stringify(body)).toContain(res.status);
      }
      expect(counter.transactions).toBeGreaterThan(0);
    },
  );

  it("POST api-keys with an expiry and a label is refused, not answered with a key that never expires", async () => {
    const res = await h.admin("POST", `${ADMIN}/tenants/acme/api-keys`, {
      expiresAt: "2027-01-01T00:00:00Z",
      label: "ci",
    });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("wk_");
    expect(counter.transactions).toBe(0);
    const created = await h.admin("POST", `${ADMIN}/tenants/acme/api-keys`);
    expect(created.status).toBe(201);
  });
});

describe("GET /webhook-deliveries?limit: clamped to 1000 like the tenant API's limit, however many digits", () => {
  it("clamps a large limit instead of refusing it", async () => {
    const { uow } = createMemoryStore();
    const h = createHarness(uow);
    for (const limit of ["1000", "1001", "999999999", "99999999999", "9".repeat(40), "9".repeat(400)]) {
      const res = await h.admin("GET", `${ADMIN}/webhook-deliveries?limit=${limit}`);
      expect(res.status, limit).toBe(200);
      expect(v.parse(deliveryListQuerySchema, { limit }).limit, limit).toBe(1000);
    }
    expect(v.parse(deliveryListQuerySchema, { limit: "7" }).limit).toBe(7);
    for (const limit of ["0", "-1", "1.5", "abc", "01"]) {
      expect((await h.admin("GET", `${ADMIN}/webhook-deliveries?limit=${limit}`)).status, limit).toBe(400);
    }
  });
});
