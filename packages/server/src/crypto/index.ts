export { type AesGcmVaultOptions, createAesGcmVault } from "./aes-gcm-vault.js";
export { createNodeHasher } from "./node-hasher.js";
export { createNodeRandom } from "./node-random.js";
export { deriveBlindIndexKey, keyIdOf, piiKeyRing, resolvePiiKeys } from "./pii-keys.js";
