import { createHash } from "node:crypto";
import { createMemoryStore, type MemoryStore } from "@wallet/ledger-core/memory";
import { beforeEach, describe, expect, it } from "vitest";
import { IDEMPOTENCY_REQUEST_KIND } from "../src/routes/idempotent-write.js";
import {
  createHarness,
  type Harness,
  onboardingBody,
  type SeededTenant,
  seedTenant,
  TENANT,
} from "./support/fixture.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/**
 * What an Idempotency-Key's record keeps of its request: a keyed digest. A plain SHA-256 over
 * method, path and body hash let a reader of the database recover a phone number from its masked
 * value (`+2547******32` hides 10^6 candidates) by hashing guesses.
 */
describe("the stored digest of an idempotent write's request", () => {
  let store: MemoryStore;
  let h: Harness;
  let acme: SeededTenant;
  let customerUid: string;

  beforeEach(async () => {
    store = createMemoryStore();
    h = createHarness(store.uow);
    acme = await seedTenant(store.uow, { id: "acme" });
    const onboarded = await h.call(acme, "POST", `${TENANT}/customers`, { body: onboardingBody() });
    expect(onboarded.status).toBe(201);
    customerUid = ((await onboarded.json()) as { uid: string }).uid;
  });

  const path = () => `${TENANT}/customers/${customerUid}/identifiers`;
  const body = { class: "contact", type: "msisdn", value: "+254798765432", verificationStatus: "unverified" };
  const unkeyed = () => sha256(`POST\n${path()}\n${sha256(JSON.stringify(body))}`);

  it("is keyed with the vault's blind-index key, not a plain hash a guess can be checked against", async () => {
    const res = await h.call(acme, "POST", path(), { body, idempotencyKey: "idn-1" });
    expect(res.status).toBe(201);
    const stored = store.state.idempotency.get("acme/idn-1");
    expect(stored?.key).toBe("idn-1");
    expect(stored?.requestHash).not.toBe(unkeyed());
    expect(stored?.requestHash).toBe(
      h.deps.core.vault.blindIndex(
        "acme",
        IDEMPOTENCY_REQUEST_KIND,
        `POST\n${path()}\n${sha256(JSON.stringify(body))}`,
      ),
    );
  });

  it("still answers a retry of a request stored with the earlier, unkeyed digest; another request under its key is 422", async () => {
    // As a version before the keyed digest stored it.
    await store.uow.autocommit((tx) =>
      tx.idempotency.claim({
        tenantId: "acme",
        key: "from-before",
        requestHash: unkeyed(),
        state: "completed",
        response: { status: 201, body: '{"answered":"before the upgrade"}' },
        lockedUntil: "2026-11-22T10:00:00.000Z",
        createdAt: "2026-11-22T10:00:00.000Z",
      }),
    );
    const retry = await h.call(acme, "POST", path(), { body, idempotencyKey: "from-before" });
    expect([retry.status, retry.headers.get("Idempotent-Replayed"), await retry.text()]).toEqual([
      201,
      "true",
      '{"answered":"before the upgrade"}',
    ]);
    const other = await h.call(acme, "POST", path(), {
      body: { ...body, value: "+254798765433" },
      idempotencyKey: "from-before",
    });
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: string }).error).toBe("IdempotencyKeyReused");
  });
});
