import {
  AccountNotCoveredError,
  DomainError,
  type Journal,
  type Mandate,
  type Operation,
  type OperationFilter,
  type OperationType,
  type Page,
  type TimelineEvent,
  type Tx,
  type UnitOfWork,
} from "@wallet/ledger-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  agreementFixture,
  at,
  auditFixture,
  customerFixture,
  idempotencyFixture,
  identifierFixture,
  journalFixture,
  kycVersionFixture,
  mandateFixture,
  operationFixture,
  outboxEventFixture,
  quoteFixture,
  railPaymentFixture,
  signingKeyFixture,
  suspenseFixture,
  tenantFixture,
  unique,
  uniqueCurrency,
  walletFixture,
} from "./fixtures.js";
import { bruteForceSum, describeWalletSums, type SumDirection } from "./wallet-sums-contract.js";

/** The store under test: anything with a unit of work, plus how to dispose of it. */
export interface ContractSubject {
  kind: "memory" | "sqlite" | "postgres";
  uow: UnitOfWork;
  close(): Promise<void>;
}

const MAX = Number.MAX_SAFE_INTEGER;

/** The error `p` rejects with; fails the test when it resolves. */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection");
}

const isConflict = (e: unknown) => e instanceof DomainError && e.code === "Conflict";

/**
 * The repository contract every store implements, written once and run against each adapter
 * (memory, SQLite, Postgres). Tests share one store per suite, so each works in its own tenant,
 * wallets and currency.
 */
export function describeStoreContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`store contract: ${name}`, () => {
    let subject: ContractSubject;
    const run = <T>(work: (tx: Tx) => Promise<T>) => subject.uow.run(work);

    beforeAll(async () => {
      subject = await open();
    });
    afterAll(async () => {
      await subject?.close();
    });

    const newTenant = async () => {
      const tenant = tenantFixture(unique("tn"));
      await run((tx) => tx.tenants.upsert(tenant));
      return tenant;
    };
    const newCustomer = async () => {
      const tenant = await newTenant();
      const customer = customerFixture(tenant.id);
      await run((tx) => tx.customers.insert(customer));
      return { tenant, customer };
    };
    /** A wallet account funded from the tenant's prefund (itself funded from deposits). */
    const fundedWallet = async (tenantId: string, currency: string, amountMinor: number) => {
      const walletKey = `wallet:${unique("wal")}`;
      const prefund = `tenant:${tenantId}:prefund`;
      await run(async (tx) => {
        await tx.ledger.lockAccounts(currency, [prefund, walletKey]);
        await tx.ledger.post(
          journalFixture(tenantId, currency, [
            { from: `tenant:${tenantId}:deposits`, to: prefund, amountMinor },
            { from: prefund, to: walletKey, amountMinor },
          ]),
        );
      });
      return walletKey;
    };

    describe("unit of work", () => {
      it("commits what the work wrote and returns its result", async () => {
        const tenant = tenantFixture(unique("tn"));
        const result = await run(async (tx) => {
          await tx.tenants.upsert(tenant);
          return 42;
        });
        expect(result).toBe(42);
        expect(await run((tx) => tx.tenants.get(tenant.id))).toEqual(tenant);
      });

      it("rolls back everything on a throw (even a DomainError) and re-throws the same error", async () => {
        const { tenant, customer } = await newCustomer();
        const currency = uniqueCurrency();
        const walletKey = await fundedWallet(tenant.id, currency, 5_000);
        const op = operationFixture(tenant.id, { clientReference: unique("ref"), currency });
        const refusal = new DomainError("InsufficientFunds", "no");
        const thrown = await rejection(
          run(async (tx) => {
            await tx.customers.setStatus(tenant.id, customer.uid, "suspended");
            await tx.operations.insert(op);
            await tx.operations.appendTimeline({
              operationUid: op.uid,
              sequenceNo: 0,
              fromState: null,
              toState: "created",
              occurredAt: at(0),
              actorType: "api_client",
            });
            await tx.ledger.post(
              journalFixture(
                tenant.id,
                currency,
                [{ from: walletKey, to: "beneficiary:X", amountMinor: 100 }],
                {
                  operationUid: op.uid,
                },
              ),
            );
            await tx.outbox.append(outboxEventFixture(tenant.id, { resourceUid: op.uid }));
            await tx.audit.append(auditFixture(tenant.id));
            await tx.idempotency.claim(idempotencyFixture(tenant.id, { key: "k-rollback" }));
            await tx.replayGuard.remember(`sig-${op.uid}`, at(0), at(600_000));
            throw refusal;
          }),
        );
        expect(thrown).toBe(refusal);
        await run(async (tx) => {
          expect((await tx.customers.get(tenant.id, customer.uid))?.status).toBe("active");
          expect(await tx.operations.get(tenant.id, op.uid)).toBeNull();
          expect(await tx.operations.timeline(op.uid)).toEqual([]);
          expect(await tx.ledger.journalsOf(tenant.id, op.uid)).toEqual([]);
          expect((await tx.ledger.balances(currency, [walletKey])).get(walletKey)).toBe(5_000);
          expect(await tx.outbox.list(tenant.id)).toEqual([]);
          expect(await tx.audit.list({ tenantId: tenant.id, limit: 10, offset: 0 })).toEqual([]);
          expect(await tx.idempotency.claim(idempotencyFixture(tenant.id, { key: "k-rollback" }))).toEqual({
            kind: "claimed",
          });
          expect(await tx.replayGuard.remember(`sig-${op.uid}`, at(1), at(600_000))).toBe(true);
        });
      });

      it("rolls back on a plain Error too", async () => {
        const tenant = tenantFixture(unique("tn"));
        const bug = new Error("bug");
        expect(
          await rejection(
            run(async (tx) => {
              await tx.tenants.upsert(tenant);
              throw bug;
            }),
          ),
        ).toBe(bug);
        expect(await run((tx) => tx.tenants.get(tenant.id))).toBeNull();
      });
    });

    describe("autocommit", () => {
      it("runs work without a transaction of its own; what it wrote is there once it resolves", async () => {
        const tenant = tenantFixture(unique("tn"));
        const sig = unique("sig");
        expect(
          await subject.uow.autocommit(async (tx) => {
            await tx.tenants.upsert(tenant);
            return tx.replayGuard.remember(sig, at(0), at(600_000));
          }),
        ).toBe(true);
        expect(await run((tx) => tx.tenants.get(tenant.id))).toEqual(tenant);
        expect(await subject.uow.autocommit((tx) => tx.replayGuard.remember(sig, at(1), at(600_001)))).toBe(
          false,
        );
        const boom = new Error("boom");
        expect(await rejection(subject.uow.autocommit(() => Promise.reject(boom)))).toBe(boom);
      });

      it("runs beside units of work in flight without joining them", async () => {
        const tenant = await newTenant();
        const sig = unique("sig");
        let release!: () => void;
        const held = new Promise<void>((r) => {
          release = r;
        });
        // A unit that writes, then waits, then fails: its write must not take the autocommit's with it.
        const failing = run(async (tx) => {
          await tx.tenants.upsert({ ...tenant, name: "changed" });
          await held;
          throw new Error("undo");
        }).catch((e: unknown) => e);
        const remembered = subject.uow.autocommit((tx) => tx.replayGuard.remember(sig, at(0), at(600_000)));
        release();
        expect(await failing).toEqual(new Error("undo"));
        expect(await remembered).toBe(true);
        expect(await subject.uow.autocommit((tx) => tx.replayGuard.remember(sig, at(1), at(600_001)))).toBe(
          false,
        );
        expect((await run((tx) => tx.tenants.get(tenant.id)))?.name).toBe(tenant.name);
      });
    });

    describe("tenants", () => {
      it("round-trips a tenant exactly, JSON fields and fractional rates included", async () => {
        const tenant = tenantFixture(unique("tn"), { defaultProfile: null });
        await run((tx) => tx.tenants.upsert(tenant));
        expect(await run((tx) => tx.tenants.get(tenant.id))).toEqual(tenant);
        expect(await run((tx) => tx.tenants.get(unique("missing")))).toBeNull();
      });

      it("upsert replaces every field of an existing tenant", async () => {
        const tenant = await newTenant();
        const changed = tenantFixture(tenant.id, {
          name: "Renamed",
          status: "suspended",
          scopes: ["wallets:read"],
          ipAllowlist: [],
          approvedRails: [],
          rateLimit: { perSecond: 5, burst: 10 },
          webhook: { url: null, enabled: false, events: [], secrets: [] },
        });
        await run((tx) => tx.tenants.upsert(changed));
        expect(await run((tx) => tx.tenants.get(tenant.id))).toEqual(changed);
      });

      it("lists tenants", async () => {
        const a = await newTenant();
        const b = await newTenant();
        const listed = await run((tx) => tx.tenants.list());
        expect(
          listed.filter((t) => t.id === a.id || t.id === b.id).sort((x, y) => (x.id < y.id ? -1 : 1)),
        ).toEqual([a, b].sort((x, y) => (x.id < y.id ? -1 : 1)));
      });

      it("resolves API key hashes to their tenant; adding a hash twice is a no-op", async () => {
        const tenant = await newTenant();
        const hash = "a1".repeat(32);
        const other = `${unique("x")
          .replace(/[^0-9a-f]/g, "")
          .padEnd(64, "0")
          .slice(0, 64)}`;
        await run(async (tx) => {
          await tx.tenants.addApiKeyHash(tenant.id, other);
          await tx.tenants.addApiKeyHash(tenant.id, other);
        });
        expect(await run((tx) => tx.tenants.findByApiKeyHash(other))).toBe(tenant.id);
        expect(await run((tx) => tx.tenants.findByApiKeyHash(hash.replace("a1", "b2")))).toBeNull();
      });

      it("revokes an API key: no credentials from then on, kept (re-adding does not revive it), first time kept", async () => {
        const tenant = await newTenant();
        const stranger = await newTenant();
        const hash = unique("rev")
          .replace(/[^0-9a-z]/g, "")
          .padEnd(64, "0")
          .slice(0, 64);
        await run(async (tx) => {
          await tx.tenants.addApiKeyHash(tenant.id, hash);
          await tx.tenants.addSigningKey(signingKeyFixture(tenant.id, "k1"));
        });
        expect(await run((tx) => tx.tenants.getApiKey(tenant.id, hash))).toEqual({
          tenantId: tenant.id,
          sha256: hash,
          revokedAt: null,
        });
        expect(await run((tx) => tx.tenants.getApiKey(stranger.id, hash))).toBeNull();
        // Another tenant cannot revoke it.
        await run((tx) => tx.tenants.revokeApiKey(stranger.id, hash, at(1)));
        expect(await run((tx) => tx.tenants.findCredentials(hash, "k1"))).not.toBeNull();

        await run((tx) => tx.tenants.revokeApiKey(tenant.id, hash, at(2)));
        await run((tx) => tx.tenants.revokeApiKey(tenant.id, hash, at(3)));
        await run((tx) => tx.tenants.addApiKeyHash(tenant.id, hash));
        expect(await run((tx) => tx.tenants.findCredentials(hash, "k1"))).toBeNull();
        expect(await subject.uow.autocommit((tx) => tx.tenants.findCredentials(hash, "k1"))).toBeNull();
        expect(await run((tx) => tx.tenants.getApiKey(tenant.id, hash))).toEqual({
          tenantId: tenant.id,
          sha256: hash,
          revokedAt: at(2),
        });
        // Still the tenant's: seeding neither adds it back nor gives it to another tenant.
        expect(await run((tx) => tx.tenants.findByApiKeyHash(hash))).toBe(tenant.id);
      });

      it("stores signing keys; an existing kid is never overwritten; status changes stick", async () => {
        const tenant = await newTenant();
        const k1 = signingKeyFixture(tenant.id, "k1", { createdAt: at(1) });
        const k2 = signingKeyFixture(tenant.id, "k2", { createdAt: at(2), expiresAt: at(86_400_000) });
        await run(async (tx) => {
          await tx.tenants.addSigningKey(k1);
          await tx.tenants.addSigningKey(k2);
        });
        expect(await run((tx) => tx.tenants.getSigningKey(tenant.id, "k2"))).toEqual(k2);
        expect(await run((tx) => tx.tenants.listSigningKeys(tenant.id))).toEqual([k1, k2]);
        await run((tx) => tx.tenants.setSigningKeyStatus(tenant.id, "k1", "revoked"));
        await run((tx) => tx.tenants.addSigningKey({ ...k1, publicKeyPem: "other", status: "active" }));
        expect(await run((tx) => tx.tenants.getSigningKey(tenant.id, "k1"))).toEqual({
          ...k1,
          status: "revoked",
        });
        expect(await run((tx) => tx.tenants.getSigningKey(tenant.id, "nope"))).toBeNull();
        const stranger = await newTenant();
        expect(await run((tx) => tx.tenants.getSigningKey(stranger.id, "k1"))).toBeNull();
        expect(await run((tx) => tx.tenants.listSigningKeys(stranger.id))).toEqual([]);
      });
    });

    it("finds a request's credentials in one read: the API key's tenant and its kid, in autocommit too", async () => {
      const tenant = tenantFixture(unique("tn"), { ipAllowlist: ["10.0.0.0/8"], scopes: ["wallets:read"] });
      const stranger = await newTenant();
      const hash = unique("cred").padEnd(64, "0").slice(0, 64);
      const key = signingKeyFixture(tenant.id, "k1", { createdAt: at(1), expiresAt: at(86_400_000) });
      await run(async (tx) => {
        await tx.tenants.upsert(tenant);
        await tx.tenants.addApiKeyHash(tenant.id, hash);
        await tx.tenants.addSigningKey(key);
        await tx.tenants.addSigningKey(signingKeyFixture(stranger.id, "k2"));
      });
      for (const uowRun of [run, <T>(w: (tx: Tx) => Promise<T>) => subject.uow.autocommit(w)]) {
        expect(await uowRun((tx) => tx.tenants.findCredentials(hash, "k1"))).toEqual({
          tenant,
          signingKey: key,
        });
        // A kid of another tenant is not this tenant's key.
        expect(await uowRun((tx) => tx.tenants.findCredentials(hash, "k2"))).toEqual({
          tenant,
          signingKey: null,
        });
        expect(await uowRun((tx) => tx.tenants.findCredentials(hash.replace(/^./, "-"), "k1"))).toBeNull();
      }
    });

    describe("replay guard", () => {
      it("refuses a live signature and accepts it again once expired", async () => {
        const sig = unique("sig");
        const t0 = at(0);
        const expires = at(600_000);
        expect(await run((tx) => tx.replayGuard.remember(sig, t0, expires))).toBe(true);
        expect(await run((tx) => tx.replayGuard.remember(sig, at(1), at(600_001)))).toBe(false);
        expect(await run((tx) => tx.replayGuard.remember(sig, at(599_999), at(1_199_999)))).toBe(false);
        // Expired at its expiry instant: replaced, with the new expiry in force.
        expect(await run((tx) => tx.replayGuard.remember(sig, expires, at(1_200_000)))).toBe(true);
        expect(await run((tx) => tx.replayGuard.remember(sig, at(700_000), at(1_300_000)))).toBe(false);
        expect(await run((tx) => tx.replayGuard.remember(unique("sig"), at(700_000), at(1_300_000)))).toBe(
          true,
        );
      });
    });

    describe("customers, identifiers, agreements, KYC versions, wallets", () => {
      it("round-trips a customer, nulls and nested metadata included", async () => {
        const tenant = await newTenant();
        const full = customerFixture(tenant.id);
        const bare = customerFixture(tenant.id, {
          dateOfBirth: null,
          regionCode: null,
          clientReference: null,
          metadata: null,
          customerType: "organization",
        });
        await run(async (tx) => {
          await tx.customers.insert(full);
          await tx.customers.insert(bare);
        });
        expect(await run((tx) => tx.customers.get(tenant.id, full.uid))).toEqual(full);
        expect(await run((tx) => tx.customers.get(tenant.id, bare.uid))).toEqual(bare);
        expect(await run((tx) => tx.customers.getAny(full.uid))).toEqual(full);
        expect(await run((tx) => tx.customers.getAny(unique("cus")))).toBeNull();
        const stranger = await newTenant();
        expect(await run((tx) => tx.customers.get(stranger.id, full.uid))).toBeNull();
        expect(await run((tx) => tx.customers.getForUpdate(tenant.id, full.uid))).toEqual(full);
        expect(await run((tx) => tx.customers.getForUpdate(tenant.id, bare.uid))).toEqual(bare);
        expect(await run((tx) => tx.customers.getForUpdate(stranger.id, full.uid))).toBeNull();
        expect(await run((tx) => tx.customers.getForUpdate(tenant.id, unique("cus")))).toBeNull();
        await run((tx) => tx.customers.setStatus(tenant.id, full.uid, "restricted"));
        await run((tx) => tx.customers.setStatus(stranger.id, bare.uid, "closed"));
        expect((await run((tx) => tx.customers.get(tenant.id, full.uid)))?.status).toBe("restricted");
        expect((await run((tx) => tx.customers.get(tenant.id, bare.uid)))?.status).toBe("active");
      });

      it("finds the dates of birth not sealed, in any form, across tenants, by uid, and seals them only while still clear", async () => {
        const MARK = "v1.";
        const tenant = await newTenant();
        const clear = customerFixture(tenant.id, { dateOfBirth: "1984-02-29" });
        const other = customerFixture(tenant.id, { dateOfBirth: "1990-07-15" });
        // As an embedder could write them before dates were normalized: not sealed either.
        const odd = customerFixture(tenant.id, { dateOfBirth: "29/02/1984" });
        const empty = customerFixture(tenant.id, { dateOfBirth: "" });
        const sealed = customerFixture(tenant.id, { dateOfBirth: "v1.k_1.c2VhbGVkLWRhdGUtb2YtYmlydGg" });
        const none = customerFixture(tenant.id, { dateOfBirth: null });
        await run(async (tx) => {
          for (const c of [clear, other, odd, empty, sealed, none]) await tx.customers.insert(c);
        });
        const found = await run((tx) => tx.customers.clearDatesOfBirth(1_000_000, MARK));
        expect(found).toEqual(
          expect.arrayContaining([
            { uid: clear.uid, dateOfBirth: "1984-02-29" },
            { uid: odd.uid, dateOfBirth: "29/02/1984" },
            { uid: empty.uid, dateOfBirth: "" },
          ]),
        );
        expect(found.map((c) => c.uid)).toEqual([...found.map((c) => c.uid)].sort());
        expect(found.map((c) => c.uid)).not.toContain(sealed.uid);
        expect(found.map((c) => c.uid)).not.toContain(none.uid);
        expect(await run((tx) => tx.customers.clearDatesOfBirth(1, MARK))).toHaveLength(1);
        const first = [clear.uid, other.uid].sort()[0] as string;
        expect(
          (await run((tx) => tx.customers.clearDatesOfBirth(1_000_000, MARK, first))).map((c) => c.uid),
        ).not.toContain(first);
        // One statement for both; the one sealed meanwhile by another process (its clear value
        // no longer what this one read) is left as it is.
        await run((tx) =>
          tx.customers.sealDatesOfBirth([
            { uid: clear.uid, clear: "1984-02-29", sealed: "v1.k_1.sealed" },
            { uid: other.uid, clear: "1990-07-16", sealed: "v1.k_1.wrong" },
          ]),
        );
        await run((tx) => tx.customers.sealDatesOfBirth([]));
        expect((await run((tx) => tx.customers.get(tenant.id, clear.uid)))?.dateOfBirth).toBe(
          "v1.k_1.sealed",
        );
        expect((await run((tx) => tx.customers.get(tenant.id, other.uid)))?.dateOfBirth).toBe("1990-07-15");
        const after = await run((tx) => tx.customers.clearDatesOfBirth(1_000_000, MARK));
        expect(after.map((c) => c.uid)).not.toContain(clear.uid);
        // A sealed date under a key outside the list is found (a clear one never); `_` in a key id
        // is no wildcard.
        const outside = await run((tx) => tx.customers.sealedDateOfBirthOutsidePrefixes(MARK, ["v1.kx1."]));
        expect(outside?.startsWith(MARK)).toBe(true);
        expect(
          await run((tx) =>
            tx.customers.sealedDateOfBirthOutsidePrefixes(MARK, ["v1.kx1.", "v1.k_1.", "v1.k1."]),
          ),
        ).toBeNull();
      });

      it("round-trips identifiers, lists them by customer and updates them", async () => {
        const { tenant, customer } = await newCustomer();
        const phone = identifierFixture(customer, { createdAt: at(1) });
        const doc = identifierFixture(customer, {
          class: "identity_document",
          type: "national_id",
          isPrimary: false,
          verificationStatus: "pending",
          verifiedAt: null,
          issuingCountry: "KE",
          validTo: at(10_000_000),
          createdAt: at(2),
        });
        await run(async (tx) => {
          await tx.identifiers.insert(phone);
          await tx.identifiers.insert(doc);
        });
        expect(await run((tx) => tx.identifiers.get(tenant.id, doc.uid))).toEqual(doc);
        expect(await run((tx) => tx.identifiers.listByCustomer(tenant.id, customer.uid))).toEqual([
          phone,
          doc,
        ]);
        const verified = {
          ...doc,
          verificationStatus: "verified" as const,
          verifiedAt: at(3),
          isPrimary: true,
        };
        await run((tx) => tx.identifiers.update(verified));
        expect(await run((tx) => tx.identifiers.get(tenant.id, doc.uid))).toEqual(verified);
        const stranger = await newTenant();
        expect(await run((tx) => tx.identifiers.get(stranger.id, doc.uid))).toBeNull();
        expect(await run((tx) => tx.identifiers.listByCustomer(stranger.id, customer.uid))).toEqual([]);
      });

      it("gives the first and the last identifier stored, and a value sealed outside given prefixes, for the start's key check", async () => {
        const { customer } = await newCustomer();
        // Uids sort by creation; these two sort before and after every other one of the suite.
        const first = identifierFixture(customer, { uid: "idn_!first", sealedValue: "v1.k_A.first" });
        const last = identifierFixture(customer, { uid: "idn_~last", sealedValue: "v1.kB.last" });
        const between = identifierFixture(customer, { sealedValue: "v1.kC.between" });
        await run(async (tx) => {
          await tx.identifiers.insert(between);
          await tx.identifiers.insert(last);
          await tx.identifiers.insert(first);
        });
        expect(await run((tx) => tx.identifiers.firstAndLast())).toEqual([first, last]);
        const outside = (prefixes: string[]) => run((tx) => tx.identifiers.sealedOutsidePrefixes(prefixes));
        // Other tests of the suite seal with other prefixes: only "v1.kC." is this test's alone.
        const everyOther = await run(async (tx) => {
          const found = new Set<string>();
          for (let p = await tx.identifiers.sealedOutsidePrefixes([]); p !== null && found.size < 1000; ) {
            // Other fixtures may seal without the vault's format: their whole value is the prefix.
            const parts = p.split(".");
            found.add(parts.length >= 3 ? `${parts[0]}.${parts[1]}.` : p);
            p = await tx.identifiers.sealedOutsidePrefixes([...found]);
          }
          return [...found];
        });
        expect(everyOther).toEqual(expect.arrayContaining(["v1.k_A.", "v1.kB.", "v1.kC."]));
        expect(await outside(everyOther)).toBeNull();
        expect(await outside(everyOther.filter((p) => p !== "v1.kC."))).toBe("v1.kC.between");
        // A key id's "_" is a character, not a wildcard: "v1.kxA." does not cover "v1.k_A.first".
        expect(await outside([...everyOther.filter((p) => p !== "v1.k_A."), "v1.kxA."])).toBe("v1.k_A.first");
      });

      it("finds verified identifiers by blind index within the tenant only", async () => {
        const { tenant, customer } = await newCustomer();
        const blindIndex = unique("bi");
        const pending = identifierFixture(customer, {
          blindIndex,
          verificationStatus: "pending",
          verifiedAt: null,
        });
        const verified = identifierFixture(customer, { blindIndex });
        await run(async (tx) => {
          await tx.identifiers.insert(pending);
          await tx.identifiers.insert(verified);
        });
        expect(await run((tx) => tx.identifiers.findVerifiedByBlindIndex(tenant.id, blindIndex))).toEqual(
          verified,
        );
        expect(
          await run((tx) => tx.identifiers.findVerifiedByBlindIndex(tenant.id, blindIndex, verified.uid)),
        ).toBeNull();
        const other = await newCustomer();
        expect(
          await run((tx) => tx.identifiers.findVerifiedByBlindIndex(other.tenant.id, blindIndex)),
        ).toBeNull();
        // The same value verified in another tenant is no duplicate.
        await run((tx) => tx.identifiers.insert(identifierFixture(other.customer, { blindIndex })));
      });

      it("refuses a second verified identifier with the same blind index (insert or update) as Conflict", async () => {
        const { tenant, customer } = await newCustomer();
        const blindIndex = unique("bi");
        const first = identifierFixture(customer, { blindIndex });
        const unverified = identifierFixture(customer, {
          blindIndex,
          verificationStatus: "pending",
          verifiedAt: null,
        });
        await run(async (tx) => {
          await tx.identifiers.insert(first);
          await tx.identifiers.insert(unverified);
        });
        const dup = identifierFixture(customer, { blindIndex });
        expect(isConflict(await rejection(run((tx) => tx.identifiers.insert(dup))))).toBe(true);
        expect(await run((tx) => tx.identifiers.get(tenant.id, dup.uid))).toBeNull();
        expect(
          isConflict(
            await rejection(
              run((tx) => tx.identifiers.update({ ...unverified, verificationStatus: "verified" })),
            ),
          ),
        ).toBe(true);
        expect((await run((tx) => tx.identifiers.get(tenant.id, unverified.uid)))?.verificationStatus).toBe(
          "pending",
        );
      });

      it("keeps the transaction usable after a refused duplicate identifier", async () => {
        const { tenant, customer } = await newCustomer();
        const blindIndex = unique("bi");
        const first = identifierFixture(customer, { blindIndex });
        await run((tx) => tx.identifiers.insert(first));
        const later = identifierFixture(customer, {
          blindIndex,
          verificationStatus: "pending",
          verifiedAt: null,
        });
        const found = await run(async (tx) => {
          expect(
            isConflict(await rejection(tx.identifiers.insert(identifierFixture(customer, { blindIndex })))),
          ).toBe(true);
          await tx.identifiers.insert(later);
          expect(
            isConflict(await rejection(tx.identifiers.update({ ...later, verificationStatus: "verified" }))),
          ).toBe(true);
          return tx.identifiers.findVerifiedByBlindIndex(tenant.id, blindIndex);
        });
        expect(found).toEqual(first);
        expect(await run((tx) => tx.identifiers.get(tenant.id, later.uid))).toEqual(later);
      });

      it("expires a retired verified identifier only as it was read, freeing its value in the same transaction", async () => {
        const { tenant, customer } = await newCustomer();
        const blindIndex = unique("bi");
        const retired = identifierFixture(customer, { blindIndex, validTo: at(5) });
        await run((tx) => tx.identifiers.insert(retired));
        const statusOf = async () =>
          (await run((tx) => tx.identifiers.get(tenant.id, retired.uid)))?.verificationStatus;
        // Another validTo than the one read, or another tenant: nothing changes.
        await run((tx) => tx.identifiers.expireRetired(tenant.id, retired.uid, at(6)));
        const stranger = await newTenant();
        await run((tx) => tx.identifiers.expireRetired(stranger.id, retired.uid, at(5)));
        expect(await statusOf()).toBe("verified");

        const taker = identifierFixture(customer, { blindIndex });
        await run(async (tx) => {
          await tx.identifiers.expireRetired(tenant.id, retired.uid, at(5));
          await tx.identifiers.insert(taker);
        });
        expect(await statusOf()).toBe("expired");
        expect(await run((tx) => tx.identifiers.findVerifiedByBlindIndex(tenant.id, blindIndex))).toEqual(
          taker,
        );
        // No longer verified: a second call leaves it as it is.
        await run((tx) => tx.identifiers.expireRetired(tenant.id, retired.uid, at(5)));
        expect(await run((tx) => tx.identifiers.get(tenant.id, retired.uid))).toEqual({
          ...retired,
          verificationStatus: "expired",
        });
      });

      it("round-trips agreements and KYC versions", async () => {
        const { tenant, customer } = await newCustomer();
        const a1 = agreementFixture(customer, { createdAt: at(1) });
        const a2 = agreementFixture(customer, { agreementType: "privacy", createdAt: at(2) });
        const v1 = kycVersionFixture(customer, { createdAt: at(1) });
        const v2 = kycVersionFixture(customer, {
          reviewType: "upgrade",
          tierCode: "tier_2",
          sourceReference: "src-1",
          riskRating: null,
          createdAt: at(2),
        });
        await run(async (tx) => {
          await tx.agreements.insert(a1);
          await tx.agreements.insert(a2);
          await tx.kycVersions.insert(v1);
          await tx.kycVersions.insert(v2);
        });
        expect(await run((tx) => tx.agreements.get(tenant.id, a1.uid))).toEqual(a1);
        expect(await run((tx) => tx.agreements.listByCustomer(tenant.id, customer.uid))).toEqual([a1, a2]);
        await run((tx) => tx.agreements.setStatus(tenant.id, a1.uid, "revoked"));
        expect((await run((tx) => tx.agreements.get(tenant.id, a1.uid)))?.status).toBe("revoked");

        expect(await run((tx) => tx.kycVersions.get(tenant.id, v2.uid))).toEqual(v2);
        expect(await run((tx) => tx.kycVersions.getAny(v2.uid))).toEqual(v2);
        expect(await run((tx) => tx.kycVersions.listByCustomer(tenant.id, customer.uid))).toEqual([v1, v2]);
        const approved = { ...v1, state: "approved" as const, effectiveFrom: at(5) };
        const rejected = { ...v2, state: "rejected" as const, rejectionReason: "blurry photo" };
        await run(async (tx) => {
          await tx.kycVersions.update(approved);
          await tx.kycVersions.update(rejected);
        });
        expect(await run((tx) => tx.kycVersions.listByCustomer(tenant.id, customer.uid))).toEqual([
          approved,
          rejected,
        ]);
        // The levels still in use: those of approved and pending versions, across tenants, once each.
        const [pendingTier, supersededTier] = [unique("tier_p"), unique("tier_s")];
        await run(async (tx) => {
          for (const [state, tierCode] of [
            ["pending", pendingTier],
            ["pending", pendingTier],
            ["superseded", supersededTier],
          ] as const) {
            await tx.kycVersions.insert(kycVersionFixture(customer, { state, tierCode, uid: unique("kyc") }));
          }
        });
        const inUse = await run((tx) => tx.kycVersions.tierCodesInUse());
        expect(inUse.filter((c) => c === pendingTier)).toEqual([pendingTier]);
        expect(inUse).toContain(approved.tierCode);
        expect(inUse).not.toContain(supersededTier);
        expect(new Set(inUse).size).toBe(inUse.length);
        const stranger = await newTenant();
        expect(await run((tx) => tx.kycVersions.get(stranger.id, v1.uid))).toBeNull();
        expect(await run((tx) => tx.agreements.get(stranger.id, a1.uid))).toBeNull();
        expect(await run((tx) => tx.kycVersions.getAny(unique("kyc")))).toBeNull();
      });

      it("round-trips wallets and changes their status and KYC tier", async () => {
        const { tenant, customer } = await newCustomer();
        const main = walletFixture(customer, { createdAt: at(1) });
        const savings = walletFixture(customer, { purpose: "savings", currency: "USD", createdAt: at(2) });
        await run(async (tx) => {
          await tx.wallets.insert(main);
          await tx.wallets.insert(savings);
        });
        expect(await run((tx) => tx.wallets.get(tenant.id, main.uid))).toEqual(main);
        expect(await run((tx) => tx.wallets.getWithCustomer(tenant.id, main.uid))).toEqual({
          wallet: main,
          customer,
        });
        expect(await run((tx) => tx.wallets.getForUpdate(tenant.id, main.uid))).toEqual(main);
        expect(await run((tx) => tx.wallets.getAny(savings.uid))).toEqual(savings);
        expect(await run((tx) => tx.wallets.listByCustomer(tenant.id, customer.uid))).toEqual([
          main,
          savings,
        ]);
        await run(async (tx) => {
          await tx.wallets.setStatus(tenant.id, main.uid, "frozen");
          await tx.wallets.setKycTier(tenant.id, main.uid, "tier_2");
        });
        expect(await run((tx) => tx.wallets.get(tenant.id, main.uid))).toEqual({
          ...main,
          status: "frozen",
          kycTierCode: "tier_2",
        });
        const stranger = await newTenant();
        expect(await run((tx) => tx.wallets.get(stranger.id, main.uid))).toBeNull();
        expect(await run((tx) => tx.wallets.getWithCustomer(stranger.id, main.uid))).toBeNull();
        expect(await run((tx) => tx.wallets.getWithCustomer(tenant.id, unique("wal")))).toBeNull();
        expect(await run((tx) => tx.wallets.getForUpdate(stranger.id, main.uid))).toBeNull();
        expect(await run((tx) => tx.wallets.getForUpdate(tenant.id, unique("wal")))).toBeNull();
        await run((tx) => tx.wallets.setStatus(stranger.id, savings.uid, "closed"));
        expect((await run((tx) => tx.wallets.getAny(savings.uid)))?.status).toBe("active");
        expect(await run((tx) => tx.wallets.getAny(unique("wal")))).toBeNull();
      });

      it("lists each KYC level the wallets are at with their currency, once per pair", async () => {
        const { customer } = await newCustomer();
        const tier = unique("tier");
        await run(async (tx) => {
          await tx.wallets.insert(walletFixture(customer, { kycTierCode: tier, currency: "KES" }));
          await tx.wallets.insert(
            walletFixture(customer, { kycTierCode: tier, currency: "KES", purpose: "savings" }),
          );
          await tx.wallets.insert(
            walletFixture(customer, { kycTierCode: tier, currency: "USD", purpose: "other" }),
          );
        });
        const pairs = await run((tx) => tx.wallets.tierCurrenciesInUse());
        expect(
          pairs.filter((p) => p.kycTierCode === tier).sort((a, b) => (a.currency < b.currency ? -1 : 1)),
        ).toEqual([
          { kycTierCode: tier, currency: "KES" },
          { kycTierCode: tier, currency: "USD" },
        ]);
        expect(new Set(pairs.map((p) => `${p.kycTierCode} ${p.currency}`)).size).toBe(pairs.length);
      });
    });

    describe("ledger", () => {
      it("creates locked accounts at zero and reads untouched ones as zero", async () => {
        const currency = uniqueCurrency();
        const a = `wallet:${unique("w")}`;
        const b = `wallet:${unique("w")}`;
        const locked = await run((tx) => tx.ledger.lockAccounts(currency, [b, a, a]));
        expect(Object.fromEntries(locked)).toEqual({ [a]: 0, [b]: 0 });
        const read = await run((tx) => tx.ledger.balances(currency, [a, `wallet:${unique("w")}`]));
        expect([...read.values()]).toEqual([0, 0]);
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [a, b]))).toBeNull();
      });

      it("posts balanced journals, projects balances and reads journals back in posting order", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const op = operationFixture(tenant.id, { currency });
        const prefund = `tenant:${tenant.id}:prefund`;
        const deposits = `tenant:${tenant.id}:deposits`;
        const wallet = `wallet:${unique("w")}`;
        const fund = journalFixture(
          tenant.id,
          currency,
          [{ from: deposits, to: prefund, amountMinor: 10_000 }],
          {
            operationUid: op.uid,
            kind: "prefund_funding",
            createdAt: at(5),
          },
        );
        const credit = journalFixture(
          tenant.id,
          currency,
          [
            { from: prefund, to: wallet, amountMinor: 7_000 },
            { from: wallet, to: `fees:${tenant.id}`, amountMinor: 250, label: "Transfer fee" },
          ],
          { operationUid: op.uid, kind: "wallet_credit", createdAt: at(9) },
        );
        await run(async (tx) => {
          await tx.operations.insert(op);
          await tx.ledger.lockAccounts(currency, [prefund, deposits, wallet]);
          await tx.ledger.post(fund);
          await tx.ledger.post(credit);
        });
        const balances = await run((tx) =>
          tx.ledger.balances(currency, [deposits, prefund, wallet, `fees:${tenant.id}`]),
        );
        expect(Object.fromEntries(balances)).toEqual({
          [deposits]: -10_000,
          [prefund]: 3_000,
          [wallet]: 6_750,
          [`fees:${tenant.id}`]: 250,
        });
        expect(await run((tx) => tx.ledger.journalsOf(tenant.id, op.uid))).toEqual([fund, credit]);
        expect(await run((tx) => tx.ledger.journalsOf(unique("tn"), op.uid))).toEqual([]);
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [wallet]))).toBe(at(9));
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [deposits]))).toBe(at(5));
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [deposits, wallet]))).toBe(at(9));
        const trial = (await run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === currency);
        expect(trial).toEqual({ currency, debitsMinor: 17_250n, creditsMinor: 17_250n });
      });

      it("leaves an account whose lines cancel out as it was, its asOf too; a journal that moves nothing is still kept", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const op = operationFixture(tenant.id, { currency });
        const prefund = `tenant:${tenant.id}:prefund`;
        const deposits = `tenant:${tenant.id}:deposits`;
        const fees = `fees:${tenant.id}`;
        const wallet = `wallet:${unique("w")}`;
        const fund = journalFixture(
          tenant.id,
          currency,
          [{ from: deposits, to: wallet, amountMinor: 1_000 }],
          {
            operationUid: op.uid,
            createdAt: at(5),
          },
        );
        // A credit of 10 whose fee is 10: the wallet receives and pays 10.
        const credit = journalFixture(
          tenant.id,
          currency,
          [
            { from: deposits, to: prefund, amountMinor: 10 },
            { from: prefund, to: wallet, amountMinor: 10 },
            { from: wallet, to: fees, amountMinor: 10, label: "Credit fee" },
          ],
          { operationUid: op.uid, kind: "wallet_credit", createdAt: at(9) },
        );
        const roundTrip = journalFixture(
          tenant.id,
          currency,
          [
            { from: deposits, to: wallet, amountMinor: 3 },
            { from: wallet, to: deposits, amountMinor: 3 },
          ],
          { operationUid: op.uid, createdAt: at(12) },
        );
        await run(async (tx) => {
          await tx.operations.insert(op);
          await tx.ledger.lockAccounts(currency, [deposits, prefund, wallet, fees]);
          await tx.ledger.post(fund);
          await tx.ledger.post(credit);
          await tx.ledger.post(roundTrip);
        });
        const balances = await run((tx) => tx.ledger.balances(currency, [deposits, prefund, wallet, fees]));
        expect(Object.fromEntries(balances)).toEqual({
          [deposits]: -1_010,
          [prefund]: 0,
          [wallet]: 1_000,
          [fees]: 10,
        });
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [wallet]))).toBe(at(5));
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [prefund]))).toBeNull();
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [fees]))).toBe(at(9));
        expect(await run((tx) => tx.ledger.journalsOf(tenant.id, op.uid))).toEqual([fund, credit, roundTrip]);
        const trial = (await run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === currency);
        expect(trial).toEqual({ currency, debitsMinor: 1_036n, creditsMinor: 1_036n });

        // An account never locked nor moved whose lines cancel out: made at zero, not moved.
        const fresh = `wallet:${unique("w")}`;
        const through = journalFixture(
          tenant.id,
          currency,
          [
            { from: deposits, to: fresh, amountMinor: 5 },
            { from: fresh, to: fees, amountMinor: 5 },
          ],
          { operationUid: op.uid, createdAt: at(20) },
        );
        await run((tx) => tx.ledger.post(through));
        expect((await run((tx) => tx.ledger.balances(currency, [fresh]))).get(fresh)).toBe(0);
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [fresh]))).toBeNull();
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [fees]))).toBe(at(20));
        const into = journalFixture(tenant.id, currency, [{ from: deposits, to: fresh, amountMinor: 7 }], {
          operationUid: op.uid,
          createdAt: at(21),
        });
        await run((tx) => tx.ledger.post(into));
        expect((await run((tx) => tx.ledger.balances(currency, [fresh]))).get(fresh)).toBe(7);
        expect(await run((tx) => tx.ledger.lastMovedAt(currency, [fresh]))).toBe(at(21));
      });

      it("reads money near 2^53-1 back exactly", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const wallet = `wallet:${unique("w")}`;
        const journal = journalFixture(tenant.id, currency, [
          { from: `tenant:${tenant.id}:deposits`, to: wallet, amountMinor: MAX },
        ]);
        await run((tx) => tx.ledger.post(journal));
        const balances = await run((tx) =>
          tx.ledger.balances(currency, [wallet, `tenant:${tenant.id}:deposits`]),
        );
        expect(balances.get(wallet)).toBe(MAX);
        expect(balances.get(`tenant:${tenant.id}:deposits`)).toBe(-MAX);
        expect(await run((tx) => tx.ledger.journalsOf(tenant.id, "none"))).toEqual([]);
        expect((await run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === currency)).toEqual({
          currency,
          debitsMinor: BigInt(MAX),
          creditsMinor: BigInt(MAX),
        });
        const op = operationFixture(tenant.id, { amountMinor: MAX, feeMinor: MAX - 1, taxMinor: MAX - 2 });
        await run((tx) => tx.operations.insert(op));
        expect(await run((tx) => tx.operations.get(tenant.id, op.uid))).toEqual(op);
      });

      it("refuses (422) a posting that would take any balance past ±(2^53-1), and keeps nothing of it", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const clearing = `rail:${unique("r")}:clearing`; // may go negative
        const suspense = `rail:${unique("r")}:suspense`;
        const move = (amountMinor: number, from = clearing, to = suspense) =>
          run((tx) => tx.ledger.post(journalFixture(tenant.id, currency, [{ from, to, amountMinor }])));
        await move(MAX);
        // Fresh rows on one side, existing on the other, both sides past the range, each alone.
        for (const [amount, from, to] of [
          [1, clearing, suspense], // both existing rows: -MAX - 1 and MAX + 1
          [1, `rail:${unique("r")}:clearing`, suspense], // a new row into an existing one
          [1, clearing, `rail:${unique("r")}:suspense`], // an existing row out into a new one
        ] as const) {
          const refused = await move(amount, from, to).then(
            () => null,
            (e: unknown) => e,
          );
          expect(refused, `${from} -> ${to}`).toBeInstanceOf(DomainError);
          expect((refused as DomainError).code).toBe("UnprocessableEntity");
        }
        const balances = await run((tx) => tx.ledger.balances(currency, [clearing, suspense]));
        expect(Object.fromEntries(balances)).toEqual({ [clearing]: -MAX, [suspense]: MAX });
        expect((await run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === currency)).toEqual({
          currency,
          debitsMinor: BigInt(MAX),
          creditsMinor: BigInt(MAX),
        });
        // Back inside the range, it posts.
        await move(5, suspense, clearing);
        expect(
          Object.fromEntries(await run((tx) => tx.ledger.balances(currency, [clearing, suspense]))),
        ).toEqual({
          [clearing]: -MAX + 5,
          [suspense]: MAX - 5,
        });
      });

      it("sums the trial balance exactly past 2^53-1 (flows outgrow any one balance)", async () => {
        const currency = uniqueCurrency();
        // Three tenants each funded to the largest balance: every account stays a safe integer,
        // the sums of their entries do not.
        for (let n = 0; n < 3; n++) {
          const tenant = await newTenant();
          await run((tx) =>
            tx.ledger.post(
              journalFixture(tenant.id, currency, [
                { from: `tenant:${tenant.id}:deposits`, to: `tenant:${tenant.id}:prefund`, amountMinor: MAX },
              ]),
            ),
          );
        }
        expect((await run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === currency)).toEqual({
          currency,
          debitsMinor: 3n * BigInt(MAX),
          creditsMinor: 3n * BigInt(MAX),
        });
      });

      it("refuses an overdraft of a wallet or a prefund at the store level, leaving nothing behind", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const wallet = await fundedWallet(tenant.id, currency, 1_000);
        const prefund = `tenant:${tenant.id}:prefund`;
        const overdraft = journalFixture(
          tenant.id,
          currency,
          [{ from: wallet, to: "beneficiary:POWERCO", amountMinor: 1_001 }],
          {
            operationUid: unique("op"),
          },
        );
        const notCovered = (key: string) => new AccountNotCoveredError(key);
        expect(await rejection(run((tx) => tx.ledger.post(overdraft)))).toEqual(notCovered(wallet));
        const drained = journalFixture(tenant.id, currency, [{ from: prefund, to: wallet, amountMinor: 1 }], {
          operationUid: unique("op"),
        });
        expect(await rejection(run((tx) => tx.ledger.post(drained)))).toEqual(notCovered(prefund));
        const holdOverdraft = journalFixture(
          tenant.id,
          currency,
          [{ from: `${wallet}:hold`, to: "rail:x:clearing", amountMinor: 1 }],
          { operationUid: unique("op") },
        );
        // The hold account has no row yet: missing counts as zero.
        expect(await rejection(run((tx) => tx.ledger.post(holdOverdraft)))).toEqual(
          notCovered(`${wallet}:hold`),
        );
        const balances = await run((tx) =>
          tx.ledger.balances(currency, [wallet, prefund, "beneficiary:POWERCO"]),
        );
        expect([...balances.values()]).toEqual([1_000, 0, 0]);
        for (const j of [overdraft, drained, holdOverdraft]) {
          expect(await run((tx) => tx.ledger.journalsOf(tenant.id, j.operationUid!))).toEqual([]);
        }
        // Exactly the balance is fine; external counterparts may go negative.
        await run((tx) =>
          tx.ledger.post(
            journalFixture(tenant.id, currency, [
              { from: wallet, to: "beneficiary:POWERCO", amountMinor: 1_000 },
            ]),
          ),
        );
        await run((tx) =>
          tx.ledger.post(
            journalFixture(tenant.id, currency, [{ from: "rail:x:clearing", to: wallet, amountMinor: 5 }]),
          ),
        );
        expect((await run((tx) => tx.ledger.balances(currency, [wallet]))).get(wallet)).toBe(5);
      });

      it("checks a protected account it locks itself under that lock: of concurrent postings, only those covered pass", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const prefund = `tenant:${tenant.id}:prefund`;
        const wallets = [`wallet:${unique("wal")}`, `wallet:${unique("wal")}`, `wallet:${unique("wal")}`];
        await run(async (tx) => {
          await tx.ledger.lockAccounts(currency, [...wallets, prefund]);
          await tx.ledger.post(
            journalFixture(tenant.id, currency, [
              { from: `tenant:${tenant.id}:deposits`, to: prefund, amountMinor: 250 },
            ]),
          );
        });
        // Each unit locks its wallet only; the posting locks and checks the prefund.
        const outcomes = await Promise.allSettled(
          wallets.map((w) =>
            run(async (tx) => {
              await tx.ledger.lockAccounts(currency, [w]);
              await tx.ledger.post(
                journalFixture(tenant.id, currency, [{ from: prefund, to: w, amountMinor: 100 }], {
                  operationUid: unique("op"),
                }),
              );
            }),
          ),
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(2);
        const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [o.reason] : []));
        expect(refused).toEqual([new AccountNotCoveredError(prefund)]);
        const balances = await run((tx) => tx.ledger.balances(currency, [prefund, ...wallets]));
        expect(balances.get(prefund)).toBe(50);
        expect(wallets.reduce((sum, w) => sum + (balances.get(w) ?? 0), 0)).toBe(200);
      });

      it("refuses unbalanced or empty journals", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const bad: Journal = {
          ...journalFixture(tenant.id, currency, [
            { from: "rail:x:clearing", to: "suspense:x", amountMinor: 10 },
          ]),
        };
        bad.entries = [bad.entries[0]!, { ...bad.entries[1]!, amountMinor: 9 }];
        expect(await rejection(run((tx) => tx.ledger.post(bad)))).toBeInstanceOf(Error);
        expect(
          await rejection(run((tx) => tx.ledger.post({ ...bad, uid: unique("jrn"), entries: [] }))),
        ).toBeInstanceOf(Error);
        expect(
          (await run((tx) => tx.ledger.trialBalance())).find((r) => r.currency === currency),
        ).toBeUndefined();
      });
    });

    describe("operations", () => {
      /** Timeline event `sequenceNo` of an operation, stamped `at(sequenceNo + 1)`. */
      const timelineEvent = (
        operationUid: string,
        sequenceNo: number,
        fromState: TimelineEvent["fromState"],
        toState: TimelineEvent["toState"],
        actorType: TimelineEvent["actorType"],
      ): TimelineEvent => ({
        operationUid,
        sequenceNo,
        fromState,
        toState,
        occurredAt: at(sequenceNo + 1),
        actorType,
      });
      const fullOperation = (tenantId: string, overrides: Partial<Operation> = {}) =>
        operationFixture(tenantId, {
          type: "payout_b2c",
          state: "processing",
          amountMinor: MAX - 10,
          feeMinor: 2_500,
          taxMinor: 400,
          clientReference: unique("ref"),
          customerUid: unique("cus"),
          sourceWalletUid: unique("wal"),
          counterpartyHint: "+2547******78",
          feeBreakdown: [
            { label: "Transfer fee", amountMinor: 2_500 },
            { label: "VAT", amountMinor: 400 },
          ],
          provider: { railCode: "sandbox_mobile", state: "initiated", reference: null, lastUpdatedAt: at(3) },
          mandateUid: unique("man"),
          intentReference: "123456789012",
          expiresAt: at(3_600_000),
          details: {
            railCode: "sandbox_mobile",
            destination: { identifierUid: "idn_1" },
            list: [1, "two", null],
          },
          metadata: { orderId: "A-1", ünïcode: "✓", deep: { a: [{ b: false }] } },
          createdAt: at(1),
          updatedAt: at(2),
          ...overrides,
        });

      it("round-trips an operation exactly and updates its mutable fields", async () => {
        const tenant = await newTenant();
        const op = fullOperation(tenant.id);
        await run((tx) => tx.operations.insert(op));
        expect(await run((tx) => tx.operations.get(tenant.id, op.uid))).toEqual(op);
        const updated: Operation = {
          ...op,
          state: "completed",
          provider: {
            railCode: "sandbox_mobile",
            state: "confirmed",
            reference: "PRV-9",
            lastUpdatedAt: at(7),
          },
          completedAt: at(7),
          fundsMovedAt: at(1),
          feeMinor: 0,
          taxMinor: 0,
          feeBreakdown: [],
          updatedAt: at(7),
        };
        await run((tx) => tx.operations.update(updated));
        expect(await run((tx) => tx.operations.get(tenant.id, op.uid))).toEqual(updated);
        expect(await run((tx) => tx.operations.getAny(op.uid))).toEqual(updated);
        expect(await run((tx) => tx.operations.getAny(unique("op")))).toBeNull();
        const stranger = await newTenant();
        expect(await run((tx) => tx.operations.get(stranger.id, op.uid))).toBeNull();
        const unknown = operationFixture(tenant.id);
        expect(await rejection(run((tx) => tx.operations.update(unknown)))).toBeInstanceOf(Error);
        expect(await run((tx) => tx.operations.getAny(unknown.uid))).toBeNull();
      });

      it("applies several updates of one operation within a transaction", async () => {
        const tenant = await newTenant();
        const op = operationFixture(tenant.id, { type: "payout_b2c", state: "created" });
        const final = await run(async (tx) => {
          await tx.operations.insert(op);
          const read = (await tx.operations.get(tenant.id, op.uid))!;
          await tx.operations.update({ ...read, state: "processing", updatedAt: at(1) });
          await tx.operations.update({ ...read, state: "completed", completedAt: at(2), updatedAt: at(2) });
          return tx.operations.get(tenant.id, op.uid);
        });
        expect(final).toEqual({ ...op, state: "completed", completedAt: at(2), updatedAt: at(2) });
      });

      it("finds operations by client reference per type and refuses a duplicate as Conflict", async () => {
        const tenant = await newTenant();
        const ref = unique("ref");
        const credit = operationFixture(tenant.id, { clientReference: ref });
        await run((tx) => tx.operations.insert(credit));
        expect(
          await run((tx) => tx.operations.findByClientReference(tenant.id, "wallet_credit", ref)),
        ).toEqual(credit);
        expect(
          await run((tx) => tx.operations.findByClientReference(tenant.id, "wallet_debit", ref)),
        ).toBeNull();

        const dup = operationFixture(tenant.id, { clientReference: ref });
        expect(isConflict(await rejection(run((tx) => tx.operations.insert(dup))))).toBe(true);
        expect(await run((tx) => tx.operations.get(tenant.id, dup.uid))).toBeNull();

        // Same reference for another kind of write, for another tenant, or no reference at all: fine.
        const stranger = await newTenant();
        await run(async (tx) => {
          await tx.operations.insert(
            operationFixture(tenant.id, { clientReference: ref, type: "wallet_debit" }),
          );
          await tx.operations.insert(operationFixture(stranger.id, { clientReference: ref }));
          await tx.operations.insert(operationFixture(tenant.id));
          await tx.operations.insert(operationFixture(tenant.id));
        });
      });

      it("keeps the transaction usable after a refused duplicate client reference", async () => {
        const tenant = await newTenant();
        const ref = unique("ref");
        const first = operationFixture(tenant.id, { clientReference: ref });
        await run((tx) => tx.operations.insert(first));
        const next = operationFixture(tenant.id);
        const existing = await run(async (tx) => {
          expect(
            isConflict(
              await rejection(tx.operations.insert(operationFixture(tenant.id, { clientReference: ref }))),
            ),
          ).toBe(true);
          await tx.operations.insert(next);
          return tx.operations.findByClientReference(tenant.id, "wallet_credit", ref);
        });
        expect(existing).toEqual(first);
        expect(await run((tx) => tx.operations.get(tenant.id, next.uid))).toEqual(next);
      });

      it("counts non-failed debits run under a mandate since an instant", async () => {
        const tenant = await newTenant();
        const mandateUid = unique("man");
        await run(async (tx) => {
          for (const [i, state] of (
            ["completed", "failed", "completed", "created", "completed"] as const
          ).entries()) {
            await tx.operations.insert(
              operationFixture(tenant.id, {
                type: "wallet_debit",
                mandateUid,
                state,
                createdAt: at(i * 1_000),
              }),
            );
          }
          await tx.operations.insert(
            operationFixture(tenant.id, { type: "wallet_debit", mandateUid: unique("man") }),
          );
        });
        expect(await run((tx) => tx.operations.countMandateDebits(mandateUid, at(0)))).toBe(4);
        expect(await run((tx) => tx.operations.countMandateDebits(mandateUid, at(2_000)))).toBe(3);
        expect(await run((tx) => tx.operations.countMandateDebits(mandateUid, at(4_001)))).toBe(0);
        expect(await run((tx) => tx.operations.countMandateDebits(unique("man"), at(0)))).toBe(0);
      });

      it("finds top-ups by intent reference, newest first, in any tenant", async () => {
        const a = await newTenant();
        const b = await newTenant();
        const ref = String(Date.now()).slice(-12).padStart(12, "7");
        const old = operationFixture(a.id, {
          uid: `op_${unique("a")}`,
          type: "topup_c2b",
          state: "failed",
          intentReference: ref,
          expiresAt: at(1_000),
        });
        const live = operationFixture(b.id, {
          uid: `op_${unique("b")}`,
          type: "topup_c2b",
          state: "pending_provider",
          intentReference: ref,
          expiresAt: at(3_600_000),
        });
        await run(async (tx) => {
          await tx.operations.insert(old);
          await tx.operations.insert(live);
          // Only top-ups count, whatever else carries the same string.
          await tx.operations.insert(operationFixture(a.id, { intentReference: ref }));
        });
        expect(await run((tx) => tx.operations.findTopupsByIntentReference(ref))).toEqual([live, old]);
        expect(await run((tx) => tx.operations.findTopupsByIntentReference("000000000000"))).toEqual([]);
      });

      it("lists pending top-ups whose intent expired, oldest first, at most `limit`", async () => {
        const tenant = await newTenant();
        // Dates far before every other test's, since the job looks across tenants.
        const t = (ms: number) => at(ms, "2001-01-01T00:00:00.000Z");
        const topup = (i: number, overrides: Partial<Operation>) =>
          operationFixture(tenant.id, {
            uid: `op_${String(i).padStart(3, "0")}_${unique("t")}`,
            type: "topup_c2b",
            state: "pending_provider",
            intentReference: `9${String(i).padStart(3, "0")}${String(Date.now()).slice(-8)}`,
            expiresAt: t(i * 1_000),
            ...overrides,
          });
        const expired = [topup(1, {}), topup(2, {}), topup(3, {})];
        await run(async (tx) => {
          for (const op of [...expired].reverse()) await tx.operations.insert(op);
          await tx.operations.insert(topup(4, { expiresAt: t(10_000) }));
          await tx.operations.insert(topup(5, { state: "completed", expiresAt: t(0) }));
          await tx.operations.insert(topup(6, { type: "payout_b2c", expiresAt: t(0) }));
        });
        expect(await run((tx) => tx.operations.listExpiredTopups(t(3_000), 10))).toEqual(expired);
        expect(await run((tx) => tx.operations.listExpiredTopups(t(3_000), 2))).toEqual(expired.slice(0, 2));
        expect(await run((tx) => tx.operations.listExpiredTopups(t(500), 10))).toEqual([]);
      });

      it("lists the payouts still processing across tenants by uid, a page after a uid at a time", async () => {
        const [a, b] = [await newTenant(), await newTenant()];
        const mine = [
          operationFixture(a.id, { type: "payout_b2c", state: "processing" }),
          operationFixture(b.id, { type: "payout_b2c", state: "processing" }),
          operationFixture(a.id, { type: "payout_b2c", state: "processing" }),
        ];
        const others = [
          operationFixture(a.id, { type: "payout_b2c", state: "completed" }),
          operationFixture(b.id, { type: "payout_b2c", state: "failed" }),
          operationFixture(a.id, { type: "topup_c2b", state: "processing" }),
        ];
        await run(async (tx) => {
          for (const op of [...mine, ...others]) await tx.operations.insert(op);
        });
        // Every processing payout of the store, in pages of two.
        const seen: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await run((tx) => tx.operations.listProcessingPayouts(2, after));
          expect(page.length).toBeLessThanOrEqual(2);
          for (const op of page) expect([op.type, op.state]).toEqual(["payout_b2c", "processing"]);
          seen.push(...page.map((op) => op.uid));
          if (page.length < 2) break;
          after = page.at(-1)?.uid;
        }
        expect(seen).toEqual([...seen].sort());
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen).toEqual(expect.arrayContaining(mine.map((op) => op.uid)));
        for (const op of others) expect(seen).not.toContain(op.uid);
        const first = mine.map((op) => op.uid).sort()[0] as string;
        expect(
          (await run((tx) => tx.operations.listProcessingPayouts(100, first))).map((op) => op.uid),
        ).not.toContain(first);
      });

      it("names the rails top-up intents still wait on for their payment, each once, across tenants", async () => {
        const [a, b] = [await newTenant(), await newTenant()];
        const rail = (name: string) => unique(`rail_${name}`);
        const [intentRail, heldRail, payoutRail, doneRail] = [rail("i"), rail("h"), rail("p"), rail("d")];
        const on = (railCode: string) => ({
          railCode,
          state: "initiated" as const,
          reference: null,
          lastUpdatedAt: at(0),
        });
        await run(async (tx) => {
          for (const op of [
            operationFixture(a.id, {
              type: "topup_c2b",
              state: "pending_provider",
              provider: on(intentRail),
            }),
            operationFixture(b.id, {
              type: "topup_c2b",
              state: "pending_provider",
              provider: on(intentRail),
            }),
            operationFixture(a.id, { type: "topup_c2b", state: "held", provider: on(heldRail) }),
            operationFixture(b.id, { type: "payout_b2c", state: "processing", provider: on(payoutRail) }),
            operationFixture(a.id, { type: "payout_b2c", state: "completed", provider: on(doneRail) }),
            operationFixture(a.id, { type: "topup_c2b", state: "failed", provider: on(doneRail) }),
          ])
            await tx.operations.insert(op);
        });
        // Only intents waiting for their payment: a held intent and a processing payout settle
        // without the rail in the catalog (suspense resolution, payout results).
        const awaiting = await run((tx) => tx.operations.railCodesAwaitingPayment());
        expect(awaiting.filter((c) => [intentRail, heldRail, payoutRail, doneRail].includes(c))).toEqual([
          intentRail,
        ]);
        expect(new Set(awaiting).size).toBe(awaiting.length);
      });

      it("appends and reads the timeline in sequence order; a sequence number is used once", async () => {
        const tenant = await newTenant();
        const op = operationFixture(tenant.id, { state: "processing", type: "payout_b2c" });
        const events = [
          timelineEvent(op.uid, 0, null, "created", "api_client"),
          timelineEvent(op.uid, 1, "created", "processing", null),
          timelineEvent(op.uid, 2, "processing", "completed", "provider"),
        ] as const;
        await run(async (tx) => {
          await tx.operations.insert(op);
          await tx.operations.appendTimeline(events[0]);
          await tx.operations.appendTimeline(events[1]);
        });
        await run((tx) => tx.operations.appendTimeline(events[2]));
        expect(await run((tx) => tx.operations.timeline(op.uid))).toEqual(events);
        expect(await run((tx) => tx.operations.timelineLength(op.uid))).toBe(3);
        expect(
          await rejection(run((tx) => tx.operations.appendTimeline({ ...events[2], toState: "failed" }))),
        ).toBeInstanceOf(Error);
        expect(await run((tx) => tx.operations.timeline(unique("op")))).toEqual([]);
        expect(await run((tx) => tx.operations.timelineLength(unique("op")))).toBe(0);
      });

      it("inserts an operation with its first timeline events as one write; a duplicate writes neither", async () => {
        const tenant = await newTenant();
        const ref = unique("ref");
        const op = operationFixture(tenant.id, { clientReference: ref, state: "completed" });
        const events = [
          timelineEvent(op.uid, 0, null, "created", "api_client"),
          timelineEvent(op.uid, 1, "created", "completed", null),
        ] as const;
        await run((tx) => tx.operations.insertWithTimeline(op, events));
        expect(await run((tx) => tx.operations.get(tenant.id, op.uid))).toEqual(op);
        expect(await run((tx) => tx.operations.timeline(op.uid))).toEqual(events);

        // The same clientReference: Conflict, nothing written, and the transaction goes on.
        const dup = operationFixture(tenant.id, { clientReference: ref });
        const dupEvents = [timelineEvent(dup.uid, 0, null, "created", "api_client")];
        const other = operationFixture(tenant.id);
        const refused = await run(async (tx) => {
          const e = await rejection(tx.operations.insertWithTimeline(dup, dupEvents));
          await tx.operations.insertWithTimeline(other, [timelineEvent(other.uid, 0, null, "created", null)]);
          return e;
        });
        expect(isConflict(refused)).toBe(true);
        expect(await run((tx) => tx.operations.get(tenant.id, dup.uid))).toBeNull();
        expect(await run((tx) => tx.operations.timeline(dup.uid))).toEqual([]);
        expect(await run((tx) => tx.operations.timelineLength(other.uid))).toBe(1);
        // As after insert, the transaction knows the row's version: its own update applies.
        const moved = operationFixture(tenant.id, { state: "created" });
        await run(async (tx) => {
          await tx.operations.insertWithTimeline(moved, [timelineEvent(moved.uid, 0, null, "created", null)]);
          await tx.operations.update({ ...moved, state: "processing", updatedAt: at(9) });
        });
        expect((await run((tx) => tx.operations.get(tenant.id, moved.uid)))?.state).toBe("processing");
      });

      describe("list", () => {
        let tenantId: string;
        let wallet: string;
        let customerUid: string;
        let all: Operation[];
        let noise: Operation;

        beforeAll(async () => {
          tenantId = (await newTenant()).id;
          wallet = unique("wal");
          customerUid = unique("cus");
          const other = unique("wal");
          const specs: Partial<Operation>[] = [];
          const states = [
            "completed",
            "processing",
            "failed",
            "created",
            "pending_provider",
            "reversed",
          ] as const;
          for (let i = 0; i < 36; i++) {
            const role = i % 4; // 0: into the wallet, 1: out of it, 2: someone else's, 3: wallet to wallet
            specs.push({
              // pairs share a timestamp so the id tiebreak matters
              createdAt: at(Math.floor(i / 2) * 1_000),
              type:
                role === 0
                  ? "wallet_credit"
                  : role === 1
                    ? "payout_b2c"
                    : role === 2
                      ? "wallet_debit"
                      : "wallet_transfer",
              // (the index is always in range; `??` only satisfies noUncheckedIndexedAccess)
              state: states[i % states.length] ?? "completed",
              fundsMovedAt: i % 5 === 0 ? at(i * 1_000) : null,
              destinationWalletUid: role === 0 || role === 3 ? wallet : role === 2 ? other : null,
              sourceWalletUid: role === 1 ? wallet : role === 3 ? other : role === 2 ? unique("wal") : null,
              customerUid: i % 3 === 0 ? customerUid : unique("cus"),
              amountMinor: 100 + i,
            });
          }
          // Ids sort in creation order, as the ULIDs do, but insert in a scrambled order.
          all = specs.map((s, i) =>
            operationFixture(tenantId, { ...s, uid: `op_${String(i).padStart(4, "0")}_${unique("x")}` }),
          );
          const scrambled = [...all].sort(
            (a, b) => ((a.amountMinor * 7919) % 37) - ((b.amountMinor * 7919) % 37),
          );
          await run(async (tx) => {
            for (const op of scrambled) await tx.operations.insert(op);
          });
          // Noise in another tenant touching the same wallet uid must never show up.
          const stranger = await newTenant();
          noise = operationFixture(stranger.id, {
            destinationWalletUid: wallet,
            createdAt: at(9_000),
            fundsMovedAt: at(9_000),
          });
          await run((tx) => tx.operations.insert(noise));
        });

        /** The reference model: filter, sort with id appended in the first term's direction, slice. */
        const model = (f: Omit<OperationFilter, "tenantId">, page: Page) => {
          const sort = page.sort.some((s) => s.field === "id")
            ? page.sort
            : [
                ...page.sort,
                { field: "id" as const, direction: page.sort[0]?.direction ?? ("DESC" as const) },
              ];
          const matched = all
            .filter(
              (o) =>
                (f.walletUid === undefined ||
                  o.sourceWalletUid === f.walletUid ||
                  o.destinationWalletUid === f.walletUid) &&
                (f.customerUid === undefined || o.customerUid === f.customerUid) &&
                (f.type === undefined || o.type === f.type) &&
                (f.state === undefined || o.state === f.state) &&
                (f.from === undefined || o.createdAt >= f.from) &&
                (f.to === undefined || o.createdAt <= f.to) &&
                (!f.movedOrFinal ||
                  o.fundsMovedAt !== null ||
                  ["completed", "failed", "reversed"].includes(o.state)),
            )
            .sort((a, b) => {
              for (const s of sort) {
                const [x, y] = s.field === "id" ? [a.uid, b.uid] : [a.createdAt, b.createdAt];
                if (x !== y) return (x < y ? -1 : 1) * (s.direction === "ASC" ? 1 : -1);
              }
              return 0;
            });
          const start = (page.page - 1) * page.limit;
          return { data: matched.slice(start, start + page.limit), total: matched.length };
        };

        const newestFirst: Page["sort"] = [
          { field: "createdAt", direction: "DESC" },
          { field: "id", direction: "DESC" },
        ];
        const cases: [string, Omit<OperationFilter, "tenantId">, Page][] = [
          ["everything, default order, page 1", {}, { page: 1, limit: 10, sort: newestFirst }],
          ["everything, page 4 (partial)", {}, { page: 4, limit: 10, sort: newestFirst }],
          ["past the end", {}, { page: 9, limit: 10, sort: newestFirst }],
          ["wallet as source or destination", { walletUid: "W" }, { page: 1, limit: 7, sort: newestFirst }],
          ["wallet, page 2", { walletUid: "W" }, { page: 2, limit: 7, sort: newestFirst }],
          ["wallet, page 3", { walletUid: "W" }, { page: 3, limit: 7, sort: newestFirst }],
          [
            "wallet, oldest first",
            { walletUid: "W" },
            { page: 2, limit: 5, sort: [{ field: "createdAt", direction: "ASC" }] },
          ],
          [
            "wallet, by id ascending",
            { walletUid: "W" },
            { page: 1, limit: 50, sort: [{ field: "id", direction: "ASC" }] },
          ],
          [
            "wallet, createdAt ASC then id DESC",
            { walletUid: "W" },
            {
              page: 1,
              limit: 50,
              sort: [
                { field: "createdAt", direction: "ASC" },
                { field: "id", direction: "DESC" },
              ],
            },
          ],
          [
            "wallet statements (moved or final)",
            { walletUid: "W", movedOrFinal: true },
            { page: 1, limit: 50, sort: newestFirst },
          ],
          [
            "wallet and type",
            { walletUid: "W", type: "payout_b2c" },
            { page: 1, limit: 50, sort: newestFirst },
          ],
          ["state", { state: "processing" }, { page: 1, limit: 50, sort: newestFirst }],
          ["customer", { customerUid: "C" }, { page: 1, limit: 5, sort: newestFirst }],
          [
            "customer and wallet",
            { customerUid: "C", walletUid: "W" },
            { page: 1, limit: 50, sort: newestFirst },
          ],
          [
            "inclusive time window",
            { from: at(3_000), to: at(7_000) },
            { page: 1, limit: 50, sort: newestFirst },
          ],
          [
            "from = to = one instant",
            { from: at(5_000), to: at(5_000) },
            { page: 1, limit: 50, sort: newestFirst },
          ],
          [
            "wallet in a window",
            { walletUid: "W", from: at(4_000), to: at(12_000) },
            { page: 1, limit: 3, sort: newestFirst },
          ],
          ["unknown wallet", { walletUid: "nobody" }, { page: 1, limit: 10, sort: newestFirst }],
        ];

        it.each(cases)("%s", async (_name, rawFilter, page) => {
          const f = {
            ...rawFilter,
            ...(rawFilter.walletUid === "W" ? { walletUid: wallet } : {}),
            ...(rawFilter.customerUid === "C" ? { customerUid } : {}),
          };
          const expected = model(f, page);
          const got = await run((tx) => tx.operations.list({ tenantId, ...f }, page));
          expect(got.total).toBe(expected.total);
          expect(got.data.map((o) => o.uid)).toEqual(expected.data.map((o) => o.uid));
          expect(got.data).toEqual(expected.data);
        });

        it("pages through a wallet without gaps or repeats", async () => {
          const seen: string[] = [];
          for (let p = 1; p <= 10; p++) {
            const { data } = await run((tx) =>
              tx.operations.list({ tenantId, walletUid: wallet }, { page: p, limit: 4, sort: newestFirst }),
            );
            seen.push(...data.map((o) => o.uid));
          }
          const expected = model({ walletUid: wallet }, { page: 1, limit: 1_000, sort: newestFirst }).data;
          expect(seen).toEqual(expected.map((o) => o.uid));
          expect(expected.length).toBe(27);
        });

        it("sums moved, non-failed amounts into, out of, or through a wallet since an instant", async () => {
          // Wallet uids are unique across tenants, so the sum is not scoped by tenant.
          const sum = (since: string, dir: SumDirection) =>
            bruteForceSum([...all, noise], wallet, since, dir);
          for (const since of [at(0), at(6_000), at(17_000), at(99_000)]) {
            for (const dir of ["inbound", "outbound", "both"] as const) {
              expect(await run((tx) => tx.operations.sumForWallet(wallet, since, dir))).toBe(sum(since, dir));
            }
          }
          expect(sum(at(0), "both")).toBeGreaterThan(0);
          expect(await run((tx) => tx.operations.sumForWallet(unique("wal"), at(0), "both"))).toBe(0);
        });

        it("sums amounts near 2^53-1 exactly", async () => {
          const w = unique("wal");
          const t = (await newTenant()).id;
          await run(async (tx) => {
            await tx.operations.insert(
              operationFixture(t, { destinationWalletUid: w, amountMinor: MAX - 5, fundsMovedAt: at(0) }),
            );
            await tx.operations.insert(
              operationFixture(t, { sourceWalletUid: w, amountMinor: 5, fundsMovedAt: at(0) }),
            );
            await tx.operations.insert(operationFixture(t, { sourceWalletUid: w, amountMinor: 7 }));
          });
          expect(await run((tx) => tx.operations.sumForWallet(w, at(0), "both"))).toBe(MAX);
        });

        it("sums for a movement unless its clientReference is taken, as findByClientReference then sumForWallet", async () => {
          const sum = (since: string, dir: SumDirection) =>
            bruteForceSum([...all, noise], wallet, since, dir);
          const free: { tenantId: string; type: OperationType; clientReference: string } = {
            tenantId,
            type: "wallet_credit",
            clientReference: unique("ref"),
          };
          // A midnight (the limits' day start: the day totals alone) and instants within a day.
          for (const since of ["2026-11-22T00:00:00.000Z", at(0), at(6_000), at(17_000), at(99_000)]) {
            for (const dir of ["inbound", "outbound", "both"] as const) {
              expect(
                await run((tx) => tx.operations.sumForWalletUnlessReferenced(free, wallet, since, dir)),
              ).toBe(sum(since, dir));
            }
          }

          const t = (await newTenant()).id;
          const w = unique("wal");
          const ref = unique("ref");
          const midnight = "2026-11-22T00:00:00.000Z";
          await run(async (tx) => {
            await tx.operations.insert(
              operationFixture(t, {
                clientReference: ref,
                destinationWalletUid: w,
                amountMinor: 10,
                fundsMovedAt: at(0),
              }),
            );
            await tx.operations.insert(
              operationFixture(t, { destinationWalletUid: w, amountMinor: 5, fundsMovedAt: at(0) }),
            );
          });
          const unlessReferenced = (reference: typeof free, wallet = w) =>
            run((tx) => tx.operations.sumForWalletUnlessReferenced(reference, wallet, midnight, "both"));
          // Taken by an operation of that type in that tenant: null, nothing summed.
          expect(
            await unlessReferenced({ tenantId: t, type: "wallet_credit", clientReference: ref }),
          ).toBeNull();
          // Free for another type, another tenant, or another reference: the sum.
          expect(await unlessReferenced({ tenantId: t, type: "wallet_debit", clientReference: ref })).toBe(
            15,
          );
          expect(
            await unlessReferenced({ tenantId: tenantId, type: "wallet_credit", clientReference: ref }),
          ).toBe(15);
          expect(
            await unlessReferenced({ tenantId: t, type: "wallet_credit", clientReference: unique("ref") }),
          ).toBe(15);
          // Taken earlier in the same transaction: seen. Taken by work that rolled back: free.
          const later = unique("ref");
          expect(
            await run(async (tx) => {
              await tx.operations.insert(operationFixture(t, { clientReference: later }));
              return tx.operations.sumForWalletUnlessReferenced(
                { tenantId: t, type: "wallet_credit", clientReference: later },
                w,
                midnight,
                "both",
              );
            }),
          ).toBeNull();
          const undone = unique("ref");
          await rejection(
            run(async (tx) => {
              await tx.operations.insert(operationFixture(t, { clientReference: undone }));
              throw new Error("rolled back");
            }),
          );
          expect(
            await unlessReferenced({ tenantId: t, type: "wallet_credit", clientReference: undone }),
          ).toBe(15);

          // A taken reference refuses before the sum is read: a wallet whose sum no SQL store can
          // read exactly (past 2^53-1) still answers null.
          const huge = unique("wal");
          const hugeRef = unique("ref");
          await run(async (tx) => {
            await tx.operations.insert(
              operationFixture(t, {
                clientReference: hugeRef,
                destinationWalletUid: huge,
                amountMinor: MAX,
                fundsMovedAt: at(0),
              }),
            );
            await tx.operations.insert(
              operationFixture(t, { destinationWalletUid: huge, amountMinor: MAX, fundsMovedAt: at(0) }),
            );
          });
          expect(
            await unlessReferenced({ tenantId: t, type: "wallet_credit", clientReference: hugeRef }, huge),
          ).toBeNull();
        });
      });

      describeWalletSums(run, async () => (await newTenant()).id);
    });

    describe("outbox", () => {
      it("numbers events per resource from 1 and lists them in insertion order", async () => {
        const tenant = await newTenant();
        const resource = unique("op");
        expect(await run((tx) => tx.outbox.nextSeq(resource))).toBe(1);
        const e1 = outboxEventFixture(tenant.id, { resourceUid: resource, seq: 1 });
        const other = outboxEventFixture(tenant.id, { type: "customer.created" });
        await run(async (tx) => {
          await tx.outbox.append(e1);
          expect(await tx.outbox.nextSeq(resource)).toBe(2);
          await tx.outbox.append(other);
        });
        const e2 = outboxEventFixture(tenant.id, {
          resourceUid: resource,
          seq: await run((tx) => tx.outbox.nextSeq(resource)),
        });
        await run((tx) => tx.outbox.append(e2));
        expect(e2.seq).toBe(2);
        expect(await run((tx) => tx.outbox.list(tenant.id))).toEqual([e1, other, e2]);
        const everyone = await run((tx) => tx.outbox.list());
        expect(everyone.filter((e) => e.tenantId === tenant.id)).toEqual([e1, other, e2]);
        expect(
          await rejection(
            run((tx) => tx.outbox.append(outboxEventFixture(tenant.id, { resourceUid: resource, seq: 2 }))),
          ),
        ).toBeInstanceOf(Error);
      });
    });

    describe("deliveries", () => {
      // Leasing looks across all tenants, so every test gets a store of its own.
      let own: ContractSubject;
      const runOwn = <T>(work: (tx: Tx) => Promise<T>) => own.uow.run(work);
      beforeEach(async () => {
        own = await open();
      });
      afterEach(async () => {
        await own?.close();
      });

      const append = async (tenantId: string, resourceUid: string, seq: number) => {
        const e = outboxEventFixture(tenantId, {
          resourceUid,
          seq,
          body: `{"seq":${seq},"r":"${resourceUid}"}`,
        });
        await runOwn((tx) => tx.outbox.append(e));
        return e;
      };
      const lease = (nowIso: string, opts: { limit?: number; cap?: number; leaseMs?: number } = {}) =>
        runOwn((tx) =>
          tx.deliveries.leaseDue({
            nowIso,
            leaseUntilIso: new Date(Date.parse(nowIso) + (opts.leaseMs ?? 30_000)).toISOString(),
            leaseId: unique("lease"),
            limit: opts.limit ?? 100,
            maxInFlightPerTenant: opts.cap ?? 100,
          }),
        );
      const result = (
        outcome: "delivered" | "retry" | "failed",
        atIso: string,
        extra: Partial<{
          statusCode: number | null;
          error: string | null;
          nextAttemptAt: string | null;
          attempted: boolean;
        }> = {},
      ) => ({
        outcome,
        attempted: true,
        statusCode: outcome === "delivered" ? 200 : 503,
        error: outcome === "delivered" ? null : "HTTP 503",
        atIso,
        nextAttemptAt: null,
        ...extra,
      });

      it("starts every event pending and due at once; leases resource heads in write order", async () => {
        const tenantId = unique("tn");
        const a1 = await append(tenantId, "res_a", 1);
        const b1 = await append(tenantId, "res_b", 1);
        const a2 = await append(tenantId, "res_a", 2);
        expect(await runOwn((tx) => tx.deliveries.get(a1.id))).toEqual({
          eventId: a1.id,
          tenantId,
          type: a1.type,
          resourceUid: "res_a",
          seq: 1,
          dedupKey: a1.dedupKey,
          occurredAt: a1.occurredAt,
          status: "pending",
          attempts: 0,
          lastStatusCode: null,
          lastError: null,
          nextAttemptAt: null,
          lastAttemptAt: null,
          deliveredAt: null,
        });
        const leased = await lease(at(0));
        expect(leased.map((d) => d.eventId)).toEqual([a1.id, b1.id]);
        expect(leased[0]).toEqual({
          eventId: a1.id,
          tenantId,
          type: a1.type,
          resourceUid: "res_a",
          seq: 1,
          dedupKey: a1.dedupKey,
          occurredAt: a1.occurredAt,
          body: a1.body,
          attempts: 0,
          leaseId: leased[0]!.leaseId,
          leaseUntil: at(30_000),
        });
        expect((await runOwn((tx) => tx.deliveries.get(a1.id)))?.status).toBe("delivering");
        // Live leases are not leased again, and a2 waits behind a1.
        expect(await lease(at(1_000))).toEqual([]);
        expect(await runOwn((tx) => tx.outbox.list(tenantId))).toEqual([a1, b1, a2]);
        expect(await runOwn((tx) => tx.deliveries.get(unique("evt")))).toBeNull();
      });

      it("records a delivery under the current lease only, and releases the next event of the resource", async () => {
        const tenantId = unique("tn");
        const a1 = await append(tenantId, "res_a", 1);
        const a2 = await append(tenantId, "res_a", 2);
        const [d] = await lease(at(0));
        expect(
          await runOwn((tx) =>
            tx.deliveries.recordResult(a1.id, "not-the-lease", result("delivered", at(1))),
          ),
        ).toBe(false);
        expect(
          await runOwn((tx) => tx.deliveries.recordResult(a1.id, d!.leaseId, result("delivered", at(2)))),
        ).toBe(true);
        expect(
          await runOwn((tx) => tx.deliveries.recordResult(a1.id, d!.leaseId, result("failed", at(3)))),
        ).toBe(false);
        expect(await runOwn((tx) => tx.deliveries.get(a1.id))).toMatchObject({
          status: "delivered",
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          lastAttemptAt: at(2),
          deliveredAt: at(2),
          nextAttemptAt: null,
        });
        expect((await lease(at(3))).map((x) => x.eventId)).toEqual([a2.id]);
      });

      it("retries at the due time, holding later events of the resource back meanwhile", async () => {
        const tenantId = unique("tn");
        const a1 = await append(tenantId, "res_a", 1);
        await append(tenantId, "res_a", 2);
        const [d] = await lease(at(0));
        await runOwn((tx) =>
          tx.deliveries.recordResult(
            a1.id,
            d!.leaseId,
            result("retry", at(1), { nextAttemptAt: at(60_000) }),
          ),
        );
        expect(await runOwn((tx) => tx.deliveries.get(a1.id))).toMatchObject({
          status: "pending",
          attempts: 1,
          lastStatusCode: 503,
          lastError: "HTTP 503",
          nextAttemptAt: at(60_000),
          lastAttemptAt: at(1),
          deliveredAt: null,
        });
        expect(await lease(at(59_999))).toEqual([]);
        const again = await lease(at(60_000));
        expect(again.map((x) => [x.eventId, x.attempts])).toEqual([[a1.id, 1]]);
        // A result without a POST (webhook disabled) leaves attempts and the last POST's facts alone.
        await runOwn((tx) =>
          tx.deliveries.recordResult(
            a1.id,
            again[0]!.leaseId,
            result("retry", at(60_001), {
              attempted: false,
              statusCode: null,
              error: "webhook disabled",
              nextAttemptAt: at(90_000),
            }),
          ),
        );
        expect(await runOwn((tx) => tx.deliveries.get(a1.id))).toMatchObject({
          status: "pending",
          attempts: 1,
          lastStatusCode: 503,
          lastError: "webhook disabled",
          lastAttemptAt: at(1),
          nextAttemptAt: at(90_000),
        });
      });

      it("leases an event again once its lease runs out, fencing off the old lease", async () => {
        const tenantId = unique("tn");
        const a1 = await append(tenantId, "res_a", 1);
        const [first] = await lease(at(0), { leaseMs: 10_000 });
        expect(await lease(at(9_999))).toEqual([]);
        const [second] = await lease(at(10_000));
        expect(second?.eventId).toBe(a1.id);
        expect(second?.leaseId).not.toBe(first?.leaseId);
        expect(
          await runOwn((tx) =>
            tx.deliveries.recordResult(a1.id, first!.leaseId, result("delivered", at(10_001))),
          ),
        ).toBe(false);
        expect(
          await runOwn((tx) =>
            tx.deliveries.recordResult(a1.id, second!.leaseId, result("delivered", at(10_002))),
          ),
        ).toBe(true);
      });

      it("a failed event no longer holds its resource back; the operator re-queues it", async () => {
        const tenantId = unique("tn");
        const a1 = await append(tenantId, "res_a", 1);
        const a2 = await append(tenantId, "res_a", 2);
        const [d] = await lease(at(0));
        await runOwn((tx) =>
          tx.deliveries.recordResult(
            a1.id,
            d!.leaseId,
            result("failed", at(1), { statusCode: 400, error: "HTTP 400" }),
          ),
        );
        expect((await lease(at(2))).map((x) => x.eventId)).toEqual([a2.id]);
        expect(await runOwn((tx) => tx.deliveries.requeue(a2.id, at(3)))).toMatchObject({
          kind: "not_failed",
        });
        expect(await runOwn((tx) => tx.deliveries.requeue(unique("evt"), at(3)))).toEqual({
          kind: "not_found",
        });
        const requeued = await runOwn((tx) => tx.deliveries.requeue(a1.id, at(4)));
        expect(requeued).toEqual({
          kind: "requeued",
          delivery: {
            eventId: a1.id,
            tenantId,
            type: a1.type,
            resourceUid: "res_a",
            seq: 1,
            dedupKey: a1.dedupKey,
            occurredAt: a1.occurredAt,
            status: "pending",
            attempts: 0,
            lastStatusCode: 400,
            lastError: "HTTP 400",
            nextAttemptAt: at(4),
            lastAttemptAt: at(1),
            deliveredAt: null,
          },
        });
        expect(await lease(at(3))).toEqual([]);
        expect((await lease(at(4))).map((x) => x.eventId)).toEqual([a1.id]);
      });

      it("caps live leases per tenant, counting leases other dispatchers hold, and honours the limit", async () => {
        const busy = unique("tn");
        const quiet = unique("tn");
        const busyEvents = [];
        for (let i = 0; i < 5; i++) busyEvents.push(await append(busy, `res_busy_${i}`, 1));
        const quietEvent = await append(quiet, "res_quiet", 1);
        const first = await lease(at(0), { cap: 2 });
        expect(first.map((x) => x.eventId)).toEqual([busyEvents[0]!.id, busyEvents[1]!.id, quietEvent.id]);
        expect(await lease(at(1), { cap: 2 })).toEqual([]);
        expect((await lease(at(1), { cap: 3 })).map((x) => x.eventId)).toEqual([busyEvents[2]!.id]);
        expect((await lease(at(2), { cap: 10, limit: 1 })).map((x) => x.eventId)).toEqual([
          busyEvents[3]!.id,
        ]);
        // At 30 s the first leases ran out but two later ones still hold the busy tenant's slots.
        expect((await lease(at(30_000), { cap: 2 })).map((x) => x.eventId)).toEqual([quietEvent.id]);
        // Once the busy tenant's leases ran out, its slots are free again (quiet's new lease still runs).
        expect((await lease(at(40_000), { cap: 2 })).map((x) => x.eventId)).toEqual([
          busyEvents[0]!.id,
          busyEvents[1]!.id,
        ]);
      });

      it("lists deliveries newest first, by tenant and status, capped", async () => {
        const t1 = unique("tn");
        const t2 = unique("tn");
        const e1 = await append(t1, "r1", 1);
        const e2 = await append(t2, "r2", 1);
        const e3 = await append(t1, "r3", 1);
        const [d] = await lease(at(0), { limit: 1 });
        await runOwn((tx) => tx.deliveries.recordResult(e1.id, d!.leaseId, result("delivered", at(1))));
        const ids = (rows: { eventId: string }[]) => rows.map((r) => r.eventId);
        expect(ids(await runOwn((tx) => tx.deliveries.list({})))).toEqual([e3.id, e2.id, e1.id]);
        expect(ids(await runOwn((tx) => tx.deliveries.list({ tenantId: t1 })))).toEqual([e3.id, e1.id]);
        expect(ids(await runOwn((tx) => tx.deliveries.list({ status: "pending" })))).toEqual([e3.id, e2.id]);
        expect(ids(await runOwn((tx) => tx.deliveries.list({ tenantId: t1, status: "delivered" })))).toEqual([
          e1.id,
        ]);
        expect(ids(await runOwn((tx) => tx.deliveries.list({ limit: 2 })))).toEqual([e3.id, e2.id]);
        expect(await runOwn((tx) => tx.deliveries.list({ limit: 1 }))).toEqual([
          await runOwn((tx) => tx.deliveries.get(e3.id)),
        ]);
      });

      it("concurrent dispatchers never lease one event twice nor exceed a tenant's cap", async () => {
        const tenantId = unique("tn");
        const other = unique("tn");
        for (let i = 0; i < 10; i++) await append(tenantId, `res_${i}`, 1);
        for (let i = 0; i < 10; i++) await append(other, `res_o_${i}`, 1);
        const batches = await Promise.all(
          Array.from({ length: 6 }, () => lease(at(0), { cap: 4, limit: 3 })),
        );
        const leased = batches.flat();
        expect(new Set(leased.map((d) => d.eventId)).size).toBe(leased.length);
        expect(leased.filter((d) => d.tenantId === tenantId)).toHaveLength(4);
        expect(leased.filter((d) => d.tenantId === other)).toHaveLength(4);
      });
    });

    describe("idempotency", () => {
      it("claims a new key once; later claims see the record", async () => {
        const tenant = await newTenant();
        const record = idempotencyFixture(tenant.id);
        expect(await run((tx) => tx.idempotency.claim(record))).toEqual({ kind: "claimed" });
        expect(
          await run((tx) =>
            tx.idempotency.claim({ ...record, requestHash: "22".repeat(32), createdAt: at(1) }),
          ),
        ).toEqual({
          kind: "existing",
          record,
        });
        // Keys are per tenant.
        const stranger = await newTenant();
        expect(await run((tx) => tx.idempotency.claim({ ...record, tenantId: stranger.id }))).toEqual({
          kind: "claimed",
        });
      });

      it("stores the completed response and replays it", async () => {
        const tenant = await newTenant();
        const record = idempotencyFixture(tenant.id);
        await run((tx) => tx.idempotency.claim(record));
        const response = {
          status: 201,
          body: '{"operationUid":"op_1","amountMinor":9007199254740991,"note":"ü"}',
        };
        expect(
          await run((tx) => tx.idempotency.complete(tenant.id, record.key, record.createdAt, response)),
        ).toBe(true);
        // A completed record is never taken over, however old its lock.
        const later = { ...record, createdAt: at(86_400_000), lockedUntil: at(86_430_000) };
        expect(await run((tx) => tx.idempotency.claim(later))).toEqual({
          kind: "existing",
          record: { ...record, state: "completed", response },
        });
        await run((tx) => tx.idempotency.release(tenant.id, record.key, record.createdAt));
        expect((await run((tx) => tx.idempotency.claim(later))).kind).toBe("existing");
      });

      it("releases an in-progress claim so the key can be claimed again", async () => {
        const tenant = await newTenant();
        const record = idempotencyFixture(tenant.id);
        await run((tx) => tx.idempotency.claim(record));
        await run((tx) => tx.idempotency.release(tenant.id, record.key, record.createdAt));
        expect(await run((tx) => tx.idempotency.claim({ ...record, createdAt: at(1) }))).toEqual({
          kind: "claimed",
        });
        await run((tx) => tx.idempotency.release(tenant.id, unique("never-claimed"), at(0)));
      });

      it("takes over an in-progress claim whose lock expired before the new claim, and only then", async () => {
        const tenant = await newTenant();
        const record = idempotencyFixture(tenant.id, { createdAt: at(0), lockedUntil: at(30_000) });
        await run((tx) => tx.idempotency.claim(record));
        // Lock still held (strictly before, and exactly at, lockedUntil).
        for (const createdAt of [at(29_999), at(30_000)]) {
          expect(
            await run((tx) =>
              tx.idempotency.claim({
                ...record,
                createdAt,
                lockedUntil: at(60_000),
                requestHash: "33".repeat(32),
              }),
            ),
          ).toEqual({ kind: "existing", record });
        }
        const taker = {
          ...record,
          requestHash: "44".repeat(32),
          createdAt: at(30_001),
          lockedUntil: at(60_001),
        };
        expect(await run((tx) => tx.idempotency.claim(taker))).toEqual({ kind: "claimed" });
        expect(await run((tx) => tx.idempotency.claim({ ...record, createdAt: at(40_000) }))).toEqual({
          kind: "existing",
          record: taker,
        });
        // The first request, still running, can neither complete nor release the taker's claim.
        const late = { status: 201, body: "{}" };
        expect(
          await run((tx) => tx.idempotency.complete(tenant.id, record.key, record.createdAt, late)),
        ).toBe(false);
        await run((tx) => tx.idempotency.release(tenant.id, record.key, record.createdAt));
        expect(await run((tx) => tx.idempotency.claim({ ...record, createdAt: at(40_001) }))).toEqual({
          kind: "existing",
          record: taker,
        });
        expect(await run((tx) => tx.idempotency.complete(tenant.id, record.key, taker.createdAt, late))).toBe(
          true,
        );
      });
    });

    describe("assertions", () => {
      it("finds the latest live use of a sourceReference in the tenant", async () => {
        const tenant = await newTenant();
        const ref = unique("src");
        const first = {
          tenantId: tenant.id,
          sourceReference: ref,
          customerUid: "cus_1",
          expiresAt: at(600_000),
          recordedAt: at(0),
        };
        const second = { ...first, customerUid: "cus_2", expiresAt: at(300_000), recordedAt: at(1) };
        expect(await run((tx) => tx.assertions.findLive(tenant.id, ref, at(0)))).toBeNull();
        await run(async (tx) => {
          await tx.assertions.record(first);
          await tx.assertions.record(second);
        });
        expect(await run((tx) => tx.assertions.findLive(tenant.id, ref, at(2)))).toEqual(second);
        // Live means expiresAt strictly after now.
        expect(await run((tx) => tx.assertions.findLive(tenant.id, ref, at(300_000)))).toEqual(first);
        expect(await run((tx) => tx.assertions.findLive(tenant.id, ref, at(600_000)))).toBeNull();
        const stranger = await newTenant();
        expect(await run((tx) => tx.assertions.findLive(stranger.id, ref, at(2)))).toBeNull();
      });

      it("serializes concurrent checks of one sourceReference: one finds it free, the others find its use", async () => {
        const tenant = await newTenant();
        const ref = unique("src");
        // Each unit checks, takes its time, then records its own customer's use if it found none.
        const claim = (customerUid: string) =>
          run(async (tx) => {
            const live = await tx.assertions.findLive(tenant.id, ref, at(0));
            await new Promise((resolve) => setTimeout(resolve, 20));
            if (live === null) {
              await tx.assertions.record({
                tenantId: tenant.id,
                sourceReference: ref,
                customerUid,
                expiresAt: at(600_000),
                recordedAt: at(0),
              });
            }
            return live?.customerUid ?? null;
          });
        const seen = await Promise.all(["cus_a", "cus_b", "cus_c", "cus_d"].map(claim));
        const winner = ["cus_a", "cus_b", "cus_c", "cus_d"][seen.indexOf(null)];
        expect(seen.filter((s) => s === null)).toHaveLength(1);
        expect(seen.filter((s) => s !== null)).toEqual([winner, winner, winner]);
      });
    });

    describe("mandates", () => {
      const newWallet = async () => {
        const { tenant, customer } = await newCustomer();
        const wallet = walletFixture(customer);
        await run((tx) => tx.wallets.insert(wallet));
        return { tenant, customer, wallet };
      };

      it("round-trips mandates and updates them", async () => {
        const { tenant, customer, wallet } = await newWallet();
        const m = mandateFixture(customer.uid, wallet.uid, tenant.id, { fixedOrMaxAmountMinor: MAX });
        const formula = mandateFixture(customer.uid, wallet.uid, tenant.id, {
          amountRule: "formula",
          fixedOrMaxAmountMinor: null,
          clientReference: null,
          validTo: null,
          frequency: "ad_hoc",
        });
        await run(async (tx) => {
          await tx.mandates.insert(m);
          await tx.mandates.insert(formula);
        });
        expect(await run((tx) => tx.mandates.get(tenant.id, m.uid))).toEqual(m);
        expect(await run((tx) => tx.mandates.getAny(formula.uid))).toEqual(formula);
        const revoked = {
          ...m,
          status: "revoked" as const,
          revokedAt: at(5),
          revocationReason: "customer asked",
          revokedBy: "customer" as const,
          replacesMandateUid: formula.uid,
          agreementUid: unique("agr"),
          updatedAt: at(5),
        };
        await run((tx) => tx.mandates.update(revoked));
        expect(await run((tx) => tx.mandates.get(tenant.id, m.uid))).toEqual(revoked);
        const stranger = await newTenant();
        expect(await run((tx) => tx.mandates.get(stranger.id, m.uid))).toBeNull();
        expect(await run((tx) => tx.mandates.getAny(unique("man")))).toBeNull();
        expect(
          await rejection(
            run((tx) => tx.mandates.update(mandateFixture(customer.uid, wallet.uid, tenant.id))),
          ),
        ).toBeInstanceOf(Error);
      });

      it("lists, filters, sorts, pages and counts mandates", async () => {
        const { tenant, customer, wallet } = await newWallet();
        const other = customerFixture(tenant.id);
        const otherWallet = walletFixture(other);
        await run(async (tx) => {
          await tx.customers.insert(other);
          await tx.wallets.insert(otherWallet);
        });
        const all = Array.from({ length: 9 }, (_, i) =>
          i % 3 === 2
            ? mandateFixture(other.uid, otherWallet.uid, tenant.id, {
                uid: `man_${i}_${unique("m")}`,
                createdAt: at(Math.floor(i / 2) * 1_000),
              })
            : mandateFixture(customer.uid, wallet.uid, tenant.id, {
                uid: `man_${i}_${unique("m")}`,
                status: i % 2 === 0 ? "active" : "pending",
                createdAt: at(Math.floor(i / 2) * 1_000),
              }),
        );
        await run(async (tx) => {
          for (const m of [...all].reverse()) await tx.mandates.insert(m);
        });
        const newest = [...all].sort((a, b) =>
          a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.uid < b.uid ? 1 : -1,
        );
        const sort = [{ field: "createdAt" as const, direction: "DESC" as const }];
        expect(
          await run((tx) => tx.mandates.list({ tenantId: tenant.id }, { page: 1, limit: 4, sort })),
        ).toEqual({
          data: newest.slice(0, 4),
          total: 9,
        });
        expect(
          await run((tx) => tx.mandates.list({ tenantId: tenant.id }, { page: 3, limit: 4, sort })),
        ).toEqual({
          data: newest.slice(8),
          total: 9,
        });
        const mine = newest.filter((m) => m.customerUid === customer.uid && m.status === "active");
        expect(
          await run((tx) =>
            tx.mandates.list(
              { tenantId: tenant.id, customerUid: customer.uid, status: "active" },
              { page: 1, limit: 10, sort },
            ),
          ),
        ).toEqual({ data: mine, total: mine.length });
        const byIdAsc = await run((tx) =>
          tx.mandates.list(
            { tenantId: tenant.id },
            { page: 1, limit: 10, sort: [{ field: "id", direction: "ASC" }] },
          ),
        );
        expect(byIdAsc.data.map((m) => m.uid)).toEqual(all.map((m) => m.uid).sort());
        expect(await run((tx) => tx.mandates.countByCustomer(tenant.id, customer.uid))).toBe(6);
        expect(await run((tx) => tx.mandates.countByCustomer(tenant.id, other.uid))).toBe(3);
        const stranger = await newTenant();
        expect(await run((tx) => tx.mandates.countByCustomer(stranger.id, customer.uid))).toBe(0);
        expect(
          await run((tx) => tx.mandates.list({ tenantId: stranger.id }, { page: 1, limit: 10, sort })),
        ).toEqual({ data: [], total: 0 });
      });

      it("lists mandates due for activation or expiry, oldest first, at most `limit`", async () => {
        const { tenant, customer, wallet } = await newWallet();
        // Dates far before every other test's, since the jobs look across tenants.
        const t = (ms: number) => at(ms, "2002-01-01T00:00:00.000Z");
        const make = (i: number, overrides: Partial<Mandate>) =>
          mandateFixture(customer.uid, wallet.uid, tenant.id, {
            uid: `man_${i}_${unique("d")}`,
            ...overrides,
          });
        const toActivate = [
          make(1, { validFrom: t(0), validTo: null }),
          make(2, { validFrom: t(1_000), validTo: null }),
        ];
        const toExpire = [
          make(3, { status: "active", validFrom: t(0), validTo: t(500) }),
          make(4, { status: "suspended", validFrom: t(0), validTo: t(1_000) }),
          make(5, { status: "pending", validFrom: t(5_000), validTo: t(1_000) }),
        ];
        await run(async (tx) => {
          for (const m of [...toActivate, ...toExpire].reverse()) await tx.mandates.insert(m);
          await tx.mandates.insert(make(6, { status: "revoked", validFrom: t(0), validTo: t(0) }));
          await tx.mandates.insert(make(7, { validFrom: t(9_000), validTo: null }));
        });
        expect(await run((tx) => tx.mandates.listDue("activate", t(1_000), 10))).toEqual(toActivate);
        expect(await run((tx) => tx.mandates.listDue("activate", t(1_000), 1))).toEqual(
          toActivate.slice(0, 1),
        );
        expect(await run((tx) => tx.mandates.listDue("expire", t(1_000), 10))).toEqual(toExpire);
        expect(await run((tx) => tx.mandates.listDue("expire", t(999), 10))).toEqual(toExpire.slice(0, 1));
      });
    });

    describe("fee quotes, rail payments, suspense", () => {
      it("round-trips fee quotes within the tenant", async () => {
        const tenant = await newTenant();
        const q = quoteFixture(tenant.id);
        const bare = quoteFixture(tenant.id, {
          breakdown: [],
          ruleVersion: null,
          railCode: null,
          feeMinor: 0,
          taxMinor: 0,
        });
        await run(async (tx) => {
          await tx.quotes.insert(q);
          await tx.quotes.insert(bare);
        });
        expect(await run((tx) => tx.quotes.get(tenant.id, q.quoteId))).toEqual(q);
        expect(await run((tx) => tx.quotes.get(tenant.id, bare.quoteId))).toEqual(bare);
        const stranger = await newTenant();
        expect(await run((tx) => tx.quotes.get(stranger.id, q.quoteId))).toBeNull();
      });

      it("records a rail payment once per (rail, provider reference)", async () => {
        const p = railPaymentFixture();
        expect(await run((tx) => tx.railPayments.insertIfNew(p))).toBe(true);
        expect(
          await run((tx) => tx.railPayments.insertIfNew({ ...p, amountMinor: 1, operationUid: null })),
        ).toBe(false);
        expect(await run((tx) => tx.railPayments.get(p.railCode, p.providerReference))).toEqual(p);
        const sameRefOtherRail = {
          ...p,
          railCode: "other_rail",
          operationUid: null,
          suspenseUid: unique("sus"),
        };
        expect(await run((tx) => tx.railPayments.insertIfNew(sameRefOtherRail))).toBe(true);
        expect(await run((tx) => tx.railPayments.get("other_rail", p.providerReference))).toEqual(
          sameRefOtherRail,
        );
        expect(await run((tx) => tx.railPayments.get(p.railCode, unique("prv")))).toBeNull();
      });

      it("keeps suspense items and lists them by status in order", async () => {
        const open1 = suspenseFixture({ createdAt: at(1) });
        const open2 = suspenseFixture({
          createdAt: at(2),
          tenantId: (await newTenant()).id,
          reason: "expired",
        });
        await run(async (tx) => {
          await tx.suspense.insert(open1);
          await tx.suspense.insert(open2);
        });
        expect(await run((tx) => tx.suspense.get(open2.uid))).toEqual(open2);
        const applied = {
          ...open1,
          status: "applied" as const,
          resolvedAt: at(9),
          resolution: { action: "apply" as const, walletUid: unique("wal"), operationUid: unique("op") },
        };
        await run((tx) => tx.suspense.update(applied));
        expect(await run((tx) => tx.suspense.get(open1.uid))).toEqual(applied);
        const mineOnly = (items: { uid: string }[]) =>
          items.filter((i) => i.uid === open1.uid || i.uid === open2.uid);
        const all = { limit: 1000, offset: 0 };
        expect(mineOnly(await run((tx) => tx.suspense.list({ status: "open", ...all })))).toEqual([open2]);
        expect(mineOnly(await run((tx) => tx.suspense.list({ status: "applied", ...all })))).toEqual([
          applied,
        ]);
        expect(mineOnly(await run((tx) => tx.suspense.list(all)))).toEqual([applied, open2]);
        expect(await run((tx) => tx.suspense.get(unique("sus")))).toBeNull();
        expect(await rejection(run((tx) => tx.suspense.update(suspenseFixture())))).toBeInstanceOf(Error);
      });

      it("lists suspense items one page at a time, oldest first then by uid, in the store", async () => {
        // Created in 2000, before any other test's items, so they open every list of this suite.
        const y2k = (ms: number) => at(ms, "2000-01-01T00:00:00.000Z");
        const tie = unique("sus");
        const refunded = { status: "refunded" as const, resolvedAt: y2k(99) };
        const r1 = suspenseFixture({ createdAt: y2k(3), ...refunded });
        const o1 = suspenseFixture({ createdAt: y2k(4) });
        // Same createdAt: uid decides, whatever the insertion order.
        const r2b = suspenseFixture({ uid: `${tie}_b`, createdAt: y2k(5), ...refunded });
        const r2a = suspenseFixture({ uid: `${tie}_a`, createdAt: y2k(5), ...refunded });
        const o2 = suspenseFixture({ createdAt: y2k(6) });
        const r3 = suspenseFixture({ createdAt: y2k(7), ...refunded });
        await run(async (tx) => {
          for (const item of [r3, o2, r2b, r2a, o1, r1]) await tx.suspense.insert(item);
        });
        const list = (query: Parameters<Tx["suspense"]["list"]>[0]) => run((tx) => tx.suspense.list(query));

        expect(await list({ limit: 4, offset: 0 })).toEqual([r1, o1, r2a, r2b]);
        const second = await list({ limit: 4, offset: 4 });
        expect(second.length).toBeLessThanOrEqual(4);
        expect(second.slice(0, 2)).toEqual([o2, r3]);
        expect(await list({ limit: 1, offset: 2 })).toEqual([r2a]);

        expect(await list({ status: "refunded", limit: 2, offset: 0 })).toEqual([r1, r2a]);
        expect(await list({ status: "refunded", limit: 2, offset: 2 })).toEqual([r2b, r3]);
        expect(await list({ status: "refunded", limit: 3, offset: 1 })).toEqual([r2a, r2b, r3]);
        expect(await list({ status: "open", limit: 1, offset: 1 })).toEqual([o2]);

        // Consecutive pages of the whole list are the whole list, each row once.
        const whole = await list({ limit: 10_000, offset: 0 });
        const paged: unknown[] = [];
        for (let offset = 0; offset < whole.length + 3; offset += 3) {
          const page = await list({ limit: 3, offset });
          expect(page.length).toBeLessThanOrEqual(3);
          paged.push(...page);
        }
        expect(paged).toEqual(whole);
      });
    });

    describe("audit log", () => {
      it("appends entries and lists them newest first, per tenant or all", async () => {
        const tenant = await newTenant();
        const a = auditFixture(tenant.id, { at: at(2) });
        const b = auditFixture(tenant.id, {
          at: at(1),
          kid: null,
          customerUid: null,
          identifierUids: [],
          requestId: null,
        });
        await run(async (tx) => {
          await tx.audit.append(a);
          await tx.audit.append(b);
        });
        const all = { limit: 1000, offset: 0 };
        expect(await run((tx) => tx.audit.list({ tenantId: tenant.id, ...all }))).toEqual([b, a]);
        expect((await run((tx) => tx.audit.list(all))).filter((e) => e.tenantId === tenant.id)).toEqual([
          b,
          a,
        ]);
      });

      it("lists one page at a time, newest first by insertion (not by at), in the store", async () => {
        const tenant = await newTenant();
        const other = await newTenant();
        // `at` runs backwards and another tenant's rows interleave: insertion alone decides.
        const mine = [5, 4, 3, 2, 1].map((s) => auditFixture(tenant.id, { at: at(s * 1000) }));
        const theirs = [auditFixture(other.id), auditFixture(other.id)];
        await run(async (tx) => {
          await tx.audit.append(mine[0]!);
          await tx.audit.append(theirs[0]!);
          await tx.audit.append(mine[1]!);
          await tx.audit.append(mine[2]!);
        });
        await run(async (tx) => {
          await tx.audit.append(mine[3]!);
          await tx.audit.append(theirs[1]!);
          await tx.audit.append(mine[4]!);
        });
        const [e1, e2, e3, e4, e5] = mine;
        const list = (query: Parameters<Tx["audit"]["list"]>[0]) => run((tx) => tx.audit.list(query));
        const tenantId = tenant.id;

        expect(await list({ tenantId, limit: 2, offset: 0 })).toEqual([e5, e4]);
        expect(await list({ tenantId, limit: 2, offset: 2 })).toEqual([e3, e2]);
        expect(await list({ tenantId, limit: 2, offset: 4 })).toEqual([e1]);
        expect(await list({ tenantId, limit: 2, offset: 5 })).toEqual([]);
        expect(await list({ tenantId, limit: 3, offset: 1 })).toEqual([e4, e3, e2]);
        expect(await list({ tenantId, limit: 100, offset: 0 })).toEqual([e5, e4, e3, e2, e1]);
        // Every tenant's: this test's rows are the newest of the suite.
        expect(await list({ limit: 3, offset: 0 })).toEqual([e5, theirs[1], e4]);
        expect(await list({ limit: 2, offset: 3 })).toEqual([e3, e2]);
        expect(await list({ limit: 1, offset: 5 })).toEqual([theirs[0]]);
      });
    });

    describe("concurrency", () => {
      it("20 concurrent transfers out of one wallet never overdraw it; balance = fold of the journal", async () => {
        const tenant = await newTenant();
        const currency = uniqueCurrency();
        const wallet = await fundedWallet(tenant.id, currency, 10_000);
        const beneficiary = `beneficiary:${unique("b")}`;
        const ops = Array.from({ length: 20 }, () =>
          operationFixture(tenant.id, { currency, type: "wallet_debit" }),
        );
        const outcomes = await Promise.allSettled(
          ops.map((op) =>
            run(async (tx) => {
              const balances = await tx.ledger.lockAccounts(currency, [wallet, beneficiary]);
              if ((balances.get(wallet) ?? 0) < 1_500) throw new DomainError("InsufficientFunds", "no");
              await tx.operations.insert(op);
              await tx.ledger.post(
                journalFixture(tenant.id, currency, [{ from: wallet, to: beneficiary, amountMinor: 1_500 }], {
                  operationUid: op.uid,
                }),
              );
            }),
          ),
        );
        const succeeded = outcomes.filter((o) => o.status === "fulfilled").length;
        for (const o of outcomes) {
          if (o.status === "rejected") expect((o.reason as DomainError).code).toBe("InsufficientFunds");
        }
        expect(succeeded).toBe(6);
        const balances = await run((tx) => tx.ledger.balances(currency, [wallet, beneficiary]));
        expect(balances.get(wallet)).toBe(10_000 - succeeded * 1_500);
        expect(balances.get(beneficiary)).toBe(succeeded * 1_500);
        const posted = (
          await Promise.all(ops.map((op) => run((tx) => tx.ledger.journalsOf(tenant.id, op.uid))))
        ).flat();
        const fold = posted
          .flatMap((j) => j.entries)
          .filter((e) => e.accountKey === wallet)
          .reduce((t, e) => t + e.amountMinor, 10_000);
        expect(fold).toBe(balances.get(wallet));
        expect(posted).toHaveLength(succeeded);
      });

      it("10 concurrent sightings of one signature: exactly one is new", async () => {
        const sig = unique("sig");
        const seen = await Promise.all(
          Array.from({ length: 10 }, () => run((tx) => tx.replayGuard.remember(sig, at(0), at(600_000)))),
        );
        expect(seen.filter(Boolean)).toHaveLength(1);
      });

      it("10 concurrent claims of one idempotency key: exactly one is claimed", async () => {
        const tenant = await newTenant();
        const record = idempotencyFixture(tenant.id);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            run((tx) => tx.idempotency.claim({ ...record, requestHash: `${i}`.padStart(64, "0") })),
          ),
        );
        expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
        const winnerHash = (await run((tx) => tx.idempotency.claim(record))) as {
          kind: "existing";
          record: { requestHash: string };
        };
        expect(results.filter((r) => r.kind === "existing")).toHaveLength(9);
        for (const r of results)
          if (r.kind === "existing") expect(r.record.requestHash).toBe(winnerHash.record.requestHash);
      });

      it("10 concurrent takeovers of one expired claim: exactly one wins", async () => {
        const tenant = await newTenant();
        const record = idempotencyFixture(tenant.id, { lockedUntil: at(1_000) });
        await run((tx) => tx.idempotency.claim(record));
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            run((tx) =>
              tx.idempotency.claim({ ...record, createdAt: at(2_000 + i), lockedUntil: at(60_000 + i) }),
            ),
          ),
        );
        expect(results.filter((r) => r.kind === "claimed")).toHaveLength(1);
      });

      it("5 concurrent inserts of one client reference: one succeeds, the others get Conflict", async () => {
        const tenant = await newTenant();
        const ref = unique("ref");
        const ops = Array.from({ length: 5 }, () => operationFixture(tenant.id, { clientReference: ref }));
        const outcomes = await Promise.allSettled(
          ops.map((op) =>
            run(async (tx) => {
              await tx.operations.insert(op);
              await tx.operations.appendTimeline({
                operationUid: op.uid,
                sequenceNo: 0,
                fromState: null,
                toState: "created",
                occurredAt: at(0),
                actorType: "api_client",
              });
            }),
          ),
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
        expect(refused).toHaveLength(4);
        for (const r of refused) expect(isConflict(r.reason)).toBe(true);
        const winner = ops[outcomes.findIndex((o) => o.status === "fulfilled")]!;
        expect(
          await run((tx) => tx.operations.findByClientReference(tenant.id, "wallet_credit", ref)),
        ).toEqual(winner);
      });

      it("5 concurrent verified inserts of one identifier value: one succeeds, the others get Conflict", async () => {
        const { customer } = await newCustomer();
        const blindIndex = unique("bi");
        const outcomes = await Promise.allSettled(
          Array.from({ length: 5 }, () =>
            run((tx) => tx.identifiers.insert(identifierFixture(customer, { blindIndex }))),
          ),
        );
        expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
        for (const o of outcomes) if (o.status === "rejected") expect(isConflict(o.reason)).toBe(true);
      });
    });
  });
}
