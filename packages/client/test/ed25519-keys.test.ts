import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateKeyPair,
  parsePrivateKeyPem,
  parsePublicKeyPem,
  privateKeyPemFromSeed,
  publicKeyPemFromBytes,
  publicKeyPemFromPrivate,
  signRequest,
} from "../src/index.js";
import { signingVectors } from "./vectors.js";

const nodeEd25519Pair = () =>
  generateKeyPairSync("ed25519", {
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });

describe("PEM handling", () => {
  it("reads the seed of the vector key (RFC 8032 test 1)", () => {
    const seed = parsePrivateKeyPem(signingVectors.privateKeyPkcs8Pem);
    expect(Buffer.from(seed).toString("hex")).toBe(
      "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
    );
  });

  it("derives the vector's public key PEM byte for byte", () => {
    expect(publicKeyPemFromPrivate(signingVectors.privateKeyPkcs8Pem)).toBe(signingVectors.publicKeySpkiPem);
  });

  it("round-trips private and public PEMs", () => {
    const seed = parsePrivateKeyPem(signingVectors.privateKeyPkcs8Pem);
    expect(privateKeyPemFromSeed(seed)).toBe(signingVectors.privateKeyPkcs8Pem);
    const pub = parsePublicKeyPem(signingVectors.publicKeySpkiPem);
    expect(publicKeyPemFromBytes(pub)).toBe(signingVectors.publicKeySpkiPem);
  });

  it("agrees with node:crypto on keys node generated", () => {
    const { privateKey, publicKey } = nodeEd25519Pair();
    expect(publicKeyPemFromPrivate(privateKey)).toBe(publicKey);
    const jwk = createPrivateKey(privateKey).export({ format: "jwk" });
    expect(Buffer.from(parsePrivateKeyPem(privateKey)).toString("base64url")).toBe(jwk.d);
  });

  it("tolerates CRLF line endings and surrounding text", () => {
    const pem = `key file\r\n${signingVectors.privateKeyPkcs8Pem.replaceAll("\n", "\r\n")}\r\n`;
    expect(parsePrivateKeyPem(pem)).toEqual(parsePrivateKeyPem(signingVectors.privateKeyPkcs8Pem));
  });
});

describe("generateKeyPair", () => {
  it("returns a pair node:crypto loads, and signatures verify across both libraries", () => {
    const pair = generateKeyPair();
    const nodePrivate = createPrivateKey(pair.privateKeyPem);
    const nodePublic = createPublicKey(pair.publicKeyPem);
    expect(nodePrivate.asymmetricKeyType).toBe("ed25519");
    expect(createPublicKey(nodePrivate).export({ type: "spki", format: "pem" })).toBe(pair.publicKeyPem);

    const headers = signRequest({
      method: "GET",
      pathAndQuery: "/api/v1/tenant/customers/cus_1",
      apiKey: "key",
      kid: "k1",
      privateKey: pair.privateKeyPem,
      timestamp: "1763812800",
    });
    const canonical =
      "GET\n/api/v1/tenant/customers/cus_1\n1763812800\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const signature = Buffer.from(headers["X-Signature"], "base64");
    expect(verify(null, Buffer.from(canonical), nodePublic, signature)).toBe(true);
    // Ed25519 is deterministic: node signs the same bytes identically.
    expect(sign(null, Buffer.from(canonical), nodePrivate).equals(signature)).toBe(true);
  });

  it("draws a new key each time", () => {
    expect(generateKeyPair().privateKeyPem).not.toBe(generateKeyPair().privateKeyPem);
  });
});

describe("rejection of keys that are not Ed25519 PKCS#8", () => {
  const pemOf = (type: "rsa" | "ec" | "ed448") => {
    const options =
      type === "rsa" ? { modulusLength: 1024 } : type === "ec" ? { namedCurve: "P-256" } : ({} as object);
    // biome-ignore lint/suspicious/noExplicitAny: generateKeyPairSync's overloads do not accept a union type
    const { privateKey } = generateKeyPairSync(type as any, options);
    return privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  };

  it.each(["rsa", "ec", "ed448"] as const)("refuses a PKCS#8 %s key", (type) => {
    expect(() => parsePrivateKeyPem(pemOf(type))).toThrow(/expected an unencrypted Ed25519 key in PKCS#8/);
  });

  it("refuses a traditional-format key by its label", () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const sec1 = privateKey.export({ type: "sec1", format: "pem" }).toString();
    expect(() => parsePrivateKeyPem(sec1)).toThrow(/got "EC PRIVATE KEY"/);
  });

  it("refuses an encrypted key with a hint", () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const encrypted = privateKey
      .export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "pw" })
      .toString();
    expect(() => parsePrivateKeyPem(encrypted)).toThrow(/ENCRYPTED PRIVATE KEY.*decrypt/);
  });

  it("refuses a public key passed as the private key, and the reverse", () => {
    expect(() => parsePrivateKeyPem(signingVectors.publicKeySpkiPem)).toThrow(/got "PUBLIC KEY"/);
    expect(() => parsePublicKeyPem(signingVectors.privateKeyPkcs8Pem)).toThrow(/got "PRIVATE KEY"/);
  });

  it("refuses non-PEM text and corrupt base64 without echoing the input", () => {
    expect(() => parsePrivateKeyPem("not a key")).toThrow(/Not a PEM document/);
    const corrupt = signingVectors.privateKeyPkcs8Pem.replace("MC4CAQAw", "MC4CAQA*");
    let message = "";
    try {
      parsePrivateKeyPem(corrupt);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/not valid base64/);
    expect(message).not.toContain("MC4CAQA");
  });

  it("refuses a DER of the right label but the wrong length", () => {
    const der = Buffer.concat([Buffer.from("302e020100300506032b657004220420", "hex"), Buffer.alloc(31)]);
    const pem = `-----BEGIN PRIVATE KEY-----\n${der.toString("base64")}\n-----END PRIVATE KEY-----\n`;
    expect(() => parsePrivateKeyPem(pem)).toThrow(/48 bytes/);
  });
});
