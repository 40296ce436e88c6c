import * as ed from "@noble/ed25519";
import { sha512 } from "@noble/hashes/sha2.js";
import { base64ToBytes, bytesToBase64 } from "../encoding/base64.js";

// noble/ed25519 v3 ships only async methods until a SHA-512 is wired in. `??=` keeps a provider the
// host application may already have installed.
ed.hashes.sha512 ??= sha512;

/** Re-exported for the signer, so every use of noble goes through the wiring above. */
export { ed };

// PKCS#8 v1 PrivateKeyInfo for Ed25519 (RFC 8410): SEQUENCE { INTEGER 0, AlgorithmIdentifier
// { OID 1.3.101.112 }, OCTET STRING { OCTET STRING seed32 } }. The key is fixed length, so the whole
// DER is this 16-byte prefix and the seed: no general ASN.1 parser is needed, and anything else is
// refused rather than guessed at.
const PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
// SubjectPublicKeyInfo for Ed25519: SEQUENCE { AlgorithmIdentifier { OID 1.3.101.112 }, BIT STRING pub32 }.
const SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);
const KEY_LENGTH = 32;

export interface Ed25519KeyPair {
  /** PKCS#8 PEM ("PRIVATE KEY"); keep it secret. */
  privateKeyPem: string;
  /** SPKI PEM ("PUBLIC KEY"); register it with the service under a kid. */
  publicKeyPem: string;
}

const pemPattern = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END ([A-Z0-9 ]+)-----/;

/** The DER bytes of the single PEM block labelled `label`. Messages never echo key material. */
function decodePem(pem: string, label: string): Uint8Array {
  if (typeof pem !== "string") throw new TypeError(`Expected a ${label} PEM string`);
  const match = pemPattern.exec(pem);
  if (!match) throw new TypeError(`Not a PEM document: expected "-----BEGIN ${label}-----"`);
  const [, begin, body = "", end] = match;
  if (begin !== end) throw new TypeError(`Malformed PEM: BEGIN ${begin} does not match END ${end}`);
  if (begin !== label) {
    throw new TypeError(`Expected a PEM "${label}" block, got "${begin}"${labelHint(begin ?? "", label)}`);
  }
  const base64 = body.replace(/\s+/g, "");
  try {
    return base64ToBytes(base64);
  } catch {
    throw new TypeError(`Malformed PEM: the ${label} block is not valid base64`);
  }
}

function labelHint(found: string, wanted: string): string {
  if (found === "ENCRYPTED PRIVATE KEY")
    return " (decrypt it first: the SDK takes an unencrypted PKCS#8 key)";
  if (found === "OPENSSH PRIVATE KEY") return " (OpenSSH format: convert it to PKCS#8 PEM first)";
  if (found.endsWith("PRIVATE KEY") && wanted === "PRIVATE KEY") {
    return " (only Ed25519 keys in PKCS#8 form are supported)";
  }
  return "";
}

function hasPrefix(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function encodePem(der: Uint8Array, label: string): string {
  const lines = bytesToBase64(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/**
 * The 32-byte Ed25519 seed inside a PKCS#8 PEM private key, as produced by
 * `openssl genpkey -algorithm ed25519` or Node's `generateKeyPairSync("ed25519")`.
 * Throws a TypeError for any other key type or encoding.
 */
export function parsePrivateKeyPem(pem: string): Uint8Array {
  const der = decodePem(pem, "PRIVATE KEY");
  if (der.length !== PKCS8_PREFIX.length + KEY_LENGTH || !hasPrefix(der, PKCS8_PREFIX)) {
    throw new TypeError(
      "Unsupported private key: expected an unencrypted Ed25519 key in PKCS#8 form (48 bytes of DER)",
    );
  }
  return der.slice(PKCS8_PREFIX.length);
}

/** The 32-byte Ed25519 public key inside an SPKI PEM ("PUBLIC KEY"). */
export function parsePublicKeyPem(pem: string): Uint8Array {
  const der = decodePem(pem, "PUBLIC KEY");
  if (der.length !== SPKI_PREFIX.length + KEY_LENGTH || !hasPrefix(der, SPKI_PREFIX)) {
    throw new TypeError("Unsupported public key: expected an Ed25519 key in SPKI form (44 bytes of DER)");
  }
  return der.slice(SPKI_PREFIX.length);
}

function assertKeyBytes(bytes: Uint8Array, what: string): void {
  if (!(bytes instanceof Uint8Array) || bytes.length !== KEY_LENGTH) {
    throw new TypeError(`Expected a ${KEY_LENGTH}-byte Ed25519 ${what}`);
  }
}

/** PKCS#8 PEM of a 32-byte Ed25519 seed. */
export function privateKeyPemFromSeed(seed: Uint8Array): string {
  assertKeyBytes(seed, "seed");
  const der = new Uint8Array(PKCS8_PREFIX.length + KEY_LENGTH);
  der.set(PKCS8_PREFIX);
  der.set(seed, PKCS8_PREFIX.length);
  return encodePem(der, "PRIVATE KEY");
}

/** SPKI PEM of a raw 32-byte Ed25519 public key. */
export function publicKeyPemFromBytes(publicKey: Uint8Array): string {
  assertKeyBytes(publicKey, "public key");
  const der = new Uint8Array(SPKI_PREFIX.length + KEY_LENGTH);
  der.set(SPKI_PREFIX);
  der.set(publicKey, SPKI_PREFIX.length);
  return encodePem(der, "PUBLIC KEY");
}

/** The SPKI PEM public key matching a PKCS#8 PEM private key (what you register with the service). */
export function publicKeyPemFromPrivate(privateKeyPem: string): string {
  return publicKeyPemFromBytes(ed.getPublicKey(parsePrivateKeyPem(privateKeyPem)));
}

/** A fresh Ed25519 key pair from the platform's CSPRNG (crypto.getRandomValues). */
export function generateKeyPair(): Ed25519KeyPair {
  const { secretKey, publicKey } = ed.keygen();
  return { privateKeyPem: privateKeyPemFromSeed(secretKey), publicKeyPem: publicKeyPemFromBytes(publicKey) };
}
