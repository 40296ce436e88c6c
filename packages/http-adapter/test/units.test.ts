import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { errorCodes } from "@wallet/ledger-core";
import { describe, expect, it } from "vitest";
import { decodeSignature, SignatureVerifier } from "../src/auth/signature-verifier.js";
import { canonicalRequest, errorStatus, IpAllowlist, rawPathAndQuery } from "../src/index.js";
import { TokenBuckets } from "../src/rate-limit/token-bucket.js";
import { jsonPath } from "../src/validation/json-path.js";

const vectors = JSON.parse(
  readFileSync(new URL("../../../docs/vectors/request-signing.json", import.meta.url), "utf8"),
) as {
  publicKeySpkiPem: string;
  cases: {
    method: string;
    pathAndQuery: string;
    xTimestamp: string;
    bodySha256: string;
    canonical: string;
    signature: string;
  }[];
};

describe("request-signing vectors (docs/vectors/request-signing.json)", () => {
  it.each(vectors.cases.map((c) => [`${c.method} ${c.pathAndQuery}`, c] as const))(
    "%s: canonical string and signature verify",
    async (_name, c) => {
      expect(canonicalRequest(c.method, c.pathAndQuery, c.xTimestamp, c.bodySha256)).toBe(c.canonical);
      expect(rawPathAndQuery(`http://localhost${c.pathAndQuery}`)).toBe(c.pathAndQuery);
      const verifier = new SignatureVerifier();
      const key = verifier.keyFor("t", "k", vectors.publicKeySpkiPem)!;
      const sig = decodeSignature(c.signature)!;
      expect(await verifier.verify(key, Buffer.from(c.canonical, "utf8"), sig)).toBe(true);
      expect(await verifier.verify(key, Buffer.from(`${c.canonical} `, "utf8"), sig)).toBe(false);
    },
  );

  it("caches one KeyObject per (tenant, kid, pem) and refuses non-Ed25519 keys", () => {
    const verifier = new SignatureVerifier();
    const a = verifier.keyFor("t", "k", vectors.publicKeySpkiPem);
    expect(verifier.keyFor("t", "k", vectors.publicKeySpkiPem)).toBe(a);
    expect(verifier.keyFor("t2", "k", vectors.publicKeySpkiPem)).not.toBe(a);
    expect(verifier.keyFor("t", "k", "not a pem")).toBeNull();
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({
      type: "spki",
      format: "pem",
    });
    expect(verifier.keyFor("t", "rsa", rsa.toString())).toBeNull();
    expect(createPublicKey(vectors.publicKeySpkiPem).asymmetricKeyType).toBe("ed25519");
  });

  it("keeps the raw path and query: no decoding, no re-ordering", () => {
    expect(rawPathAndQuery("http://h:8080/api/v1/tenant/x?b=2&a=%20")).toBe("/api/v1/tenant/x?b=2&a=%20");
    expect(rawPathAndQuery("https://h/a%2Fb?q=1#frag")).toBe("/a%2Fb?q=1");
  });
});

describe("IpAllowlist", () => {
  it("matches IPv4 and IPv6 CIDRs, IPv4-mapped IPv6 addresses and single addresses", () => {
    const list = new IpAllowlist([
      "203.0.113.0/24",
      "2001:db8:abcd::/48",
      "198.51.100.9",
      "::ffff:192.0.2.0/120",
    ]);
    expect(list.allows("203.0.113.200")).toBe(true);
    expect(list.allows("::ffff:203.0.113.1")).toBe(true);
    expect(list.allows("::FFFF:203.0.113.1")).toBe(true);
    expect(list.allows("203.0.114.1")).toBe(false);
    expect(list.allows("2001:db8:abcd:1::1")).toBe(true);
    expect(list.allows("2001:db8:abce::1")).toBe(false);
    expect(list.allows("fe80::1%eth0")).toBe(false);
    expect(list.allows("198.51.100.9")).toBe(true);
    expect(list.allows("198.51.100.10")).toBe(false);
    expect(list.allows("192.0.2.77")).toBe(true);
    expect(list.allows(undefined)).toBe(false);
  });

  it("an empty list admits anyone; a list of only invalid entries admits no one", () => {
    expect(new IpAllowlist([]).allows("8.8.8.8")).toBe(true);
    expect(new IpAllowlist([]).allows(undefined)).toBe(true);
    const broken = new IpAllowlist(["10.0.0.0/33", "nonsense", "10.0.0.0/8/1"]);
    expect(broken.allows("10.0.0.1")).toBe(false);
    expect(broken.allows("8.8.8.8")).toBe(false);
  });
});

describe("TokenBuckets", () => {
  it("allows a burst, then refills at the rate, answering the wait in whole seconds", () => {
    const buckets = new TokenBuckets(10);
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) expect(buckets.take("k", 2, 5, t0)).toBe(0);
    expect(buckets.take("k", 2, 5, t0)).toBe(1);
    expect(buckets.take("k", 2, 5, t0 + 500)).toBe(0); // 0.5 s at 2/s = one token
    expect(buckets.take("k", 2, 5, t0 + 500)).toBe(1);
    expect(buckets.take("other", 2, 5, t0)).toBe(0);
    expect(buckets.take("slow", 0.1, 1, t0)).toBe(0);
    expect(buckets.take("slow", 0.1, 1, t0)).toBe(10);
  });

  it("credits no time twice when the clock steps back", () => {
    const buckets = new TokenBuckets(10);
    const t0 = 1_000_000;
    expect(buckets.take("k", 1, 1, t0)).toBe(0); // empty now
    expect(buckets.take("k", 1, 1, t0 - 10_000)).toBe(1); // the clock stepped back 10 s
    expect(buckets.take("k", 1, 1, t0 + 500)).toBe(1); // half a token since t0, not 10.5
    expect(buckets.take("k", 1, 1, t0 + 1_000)).toBe(0);
  });

  it("stays bounded: past the cap the least recently used bucket is dropped", () => {
    const buckets = new TokenBuckets(2);
    expect(buckets.take("a", 1, 1, 0)).toBe(0);
    expect(buckets.take("b", 1, 1, 0)).toBe(0);
    expect(buckets.take("c", 1, 1, 0)).toBe(0); // drops a
    expect(buckets.take("a", 1, 1, 0)).toBe(0); // a is new again (drops b)
    expect(buckets.take("c", 1, 1, 0)).toBe(1); // c still empty
  });
});

describe("error status table", () => {
  it("maps every ErrorCode, with the statuses DESIGN.md names", () => {
    expect(Object.keys(errorStatus).sort()).toEqual([...errorCodes].sort());
    expect(errorStatus.InvalidRequest).toBe(400);
    expect(errorStatus.NotFound).toBe(404);
    expect(errorStatus.Conflict).toBe(409);
    expect(errorStatus.IdempotencyKeyInUse).toBe(409);
    expect(errorStatus.IdempotencyKeyReused).toBe(422);
    expect(errorStatus.FundingNotPositioned).toBe(422);
  });

  it("renders JSON paths like identifiers[0].value", () => {
    expect(jsonPath([{ key: "identifiers" }, { key: 0 }, { key: "value" }])).toBe("identifiers[0].value");
    expect(jsonPath([{ key: "kyc" }, { key: "evidence" }])).toBe("kyc.evidence");
    expect(jsonPath([])).toBe("");
  });
});
