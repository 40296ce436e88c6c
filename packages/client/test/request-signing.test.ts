import { createHash, createPublicKey, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalRequestString, parsePrivateKeyPem, sha256Hex, signRequest } from "../src/index.js";
import { signingVectors } from "./vectors.js";

const publicKey = createPublicKey(signingVectors.publicKeySpkiPem);

describe("sha256Hex", () => {
  it("hashes the empty body to the spec's constant", () => {
    expect(sha256Hex("")).toBe(signingVectors.emptyBodySha256);
    expect(sha256Hex(new Uint8Array())).toBe(signingVectors.emptyBodySha256);
  });

  it("hashes strings as UTF-8, like node:crypto", () => {
    const text = "Ñandú Ωmega 😀";
    const expected = createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
    expect(sha256Hex(text)).toBe(expected);
    expect(sha256Hex(new TextEncoder().encode(text))).toBe(expected);
  });
});

describe.each(signingVectors.cases)("vector $method $pathAndQuery", (vector) => {
  it("hashes the body", () => {
    expect(sha256Hex(vector.body)).toBe(vector.bodySha256);
  });

  it("builds the canonical string", () => {
    const canonical = canonicalRequestString({
      method: vector.method,
      pathAndQuery: vector.pathAndQuery,
      timestamp: vector.xTimestamp,
      bodySha256: vector.bodySha256,
    });
    expect(canonical).toBe(vector.canonical);
    expect(canonical.endsWith("\n")).toBe(false);
  });

  it("produces the exact signature from the PEM and from the raw seed", () => {
    const input = {
      method: vector.method,
      pathAndQuery: vector.pathAndQuery,
      body: vector.body,
      apiKey: "test-api-key",
      kid: "k1",
      timestamp: vector.xTimestamp,
    };
    const fromPem = signRequest({ ...input, privateKey: signingVectors.privateKeyPkcs8Pem });
    expect(fromPem).toEqual({
      "X-Api-Key": "test-api-key",
      "X-Key-Id": "k1",
      "X-Timestamp": vector.xTimestamp,
      "X-Signature": vector.signature,
    });
    const seed = parsePrivateKeyPem(signingVectors.privateKeyPkcs8Pem);
    expect(signRequest({ ...input, privateKey: seed })["X-Signature"]).toBe(vector.signature);
    // Bytes give the same result as the string they encode.
    const fromBytes = signRequest({
      ...input,
      body: new TextEncoder().encode(vector.body),
      privateKey: seed,
    });
    expect(fromBytes["X-Signature"]).toBe(vector.signature);
  });

  it("verifies with node:crypto over the canonical string", () => {
    const sig = Buffer.from(vector.signature, "base64");
    expect(verify(null, Buffer.from(vector.canonical, "utf8"), publicKey, sig)).toBe(true);
    expect(verify(null, Buffer.from(`${vector.canonical}\n`, "utf8"), publicKey, sig)).toBe(false);
  });
});

describe("canonicalRequestString", () => {
  const base = {
    method: "get",
    pathAndQuery: "/api/v1/tenant/operations?b=2&a=1",
    timestamp: "1763812800",
    bodySha256: signingVectors.emptyBodySha256,
  };

  it("upper-cases the method and keeps the query order and encoding verbatim", () => {
    expect(canonicalRequestString({ ...base, pathAndQuery: "/api/v1/tenant/x?b=2&a=%20" })).toBe(
      `GET\n/api/v1/tenant/x?b=2&a=%20\n1763812800\n${signingVectors.emptyBodySha256}`,
    );
  });

  it("refuses components that would make the string ambiguous", () => {
    expect(() => canonicalRequestString({ ...base, pathAndQuery: "/a\n/b" })).toThrow(/single-line/);
    expect(() => canonicalRequestString({ ...base, timestamp: "" })).toThrow(/timestamp/);
    expect(() => canonicalRequestString({ ...base, bodySha256: base.bodySha256.toUpperCase() })).toThrow(
      /bodySha256/,
    );
  });
});

describe("signRequest", () => {
  const input = {
    method: "GET",
    pathAndQuery: "/api/v1/tenant/health",
    apiKey: "key",
    kid: "k1",
    privateKey: signingVectors.privateKeyPkcs8Pem,
  };

  it("defaults to the current epoch in seconds and hashes a missing body as empty", () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = signRequest(input);
    const after = Math.floor(Date.now() / 1000);
    const timestamp = Number(headers["X-Timestamp"]);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(after);
    const canonical = `GET\n/api/v1/tenant/health\n${headers["X-Timestamp"]}\n${signingVectors.emptyBodySha256}`;
    expect(
      verify(null, Buffer.from(canonical), publicKey, Buffer.from(headers["X-Signature"], "base64")),
    ).toBe(true);
  });

  it("accepts a numeric timestamp and refuses milliseconds-looking garbage", () => {
    expect(signRequest({ ...input, timestamp: 1763812800 })["X-Timestamp"]).toBe("1763812800");
    expect(() => signRequest({ ...input, timestamp: 1.5 })).toThrow(/timestamp/);
    expect(() => signRequest({ ...input, timestamp: "2026-01-01" })).toThrow(/timestamp/);
  });

  it("refuses a private key that is neither a PEM nor a 32-byte seed", () => {
    expect(() => signRequest({ ...input, privateKey: new Uint8Array(31) })).toThrow(/32-byte/);
  });
});
