import { createHash, createPrivateKey, generateKeyPairSync, sign } from "node:crypto";

export const TENANT_API = "/api/v1/tenant";

/** A fresh Ed25519 key pair for one bench run: the private half never leaves the bench. */
export function benchKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  return {
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKeyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

/**
 * Signs requests the way the spec says (and `@wallet/client`'s `signRequest` does), with node:crypto
 * instead of the SDK's portable @noble code so that the load generator, not the server, stays the
 * cheap side of the measurement. Every call signs afresh with the current second.
 */
export function createSigner({ apiKey, kid, privateKeyPem }) {
  const key = createPrivateKey(privateKeyPem);
  return function signedHeaders(
    method,
    pathAndQuery,
    body = "",
    epochSeconds = Math.floor(Date.now() / 1000),
  ) {
    const timestamp = String(epochSeconds);
    const bodySha256 = createHash("sha256").update(body, "utf8").digest("hex");
    const canonical = `${method}\n${pathAndQuery}\n${timestamp}\n${bodySha256}`;
    return {
      "x-api-key": apiKey,
      "x-key-id": kid,
      "x-timestamp": timestamp,
      "x-signature": sign(null, Buffer.from(canonical, "utf8"), key).toString("base64"),
    };
  };
}

/**
 * A request factory for POST /wallet-credits: unique clientReference, Idempotency-Key and body per
 * request (so the replay guard and the idempotency store never refuse), wallets taken round-robin.
 */
export function creditRequests({ signer, walletUids, currency, runTag, amountMinor = 100 }) {
  let seq = 0;
  const path = `${TENANT_API}/wallet-credits`;
  return () => {
    seq++;
    const walletUid = walletUids[seq % walletUids.length];
    const body = JSON.stringify({ walletUid, amountMinor, currency, clientReference: `${runTag}-${seq}` });
    return {
      method: "POST",
      path,
      body,
      headers: {
        "content-type": "application/json",
        "idempotency-key": `${runTag}-${seq}`,
        ...signer("POST", path, body),
      },
    };
  };
}

/** Stay this far inside the server's 300 s timestamp skew, either side. */
const SKEW_USED_SECONDS = 290;

/**
 * Signed GETs of one resource that never repeat a signature. The replay guard refuses a signature
 * seen within its window, and a GET has no body to make it unique, so each request takes one
 * spelling of the same query (parameter order, defaults written out: same answer, other bytes)
 * and a timestamp within the allowed skew that this spelling has not used yet. Returns null once
 * every spelling has used every timestamp available now (the load generator then stops).
 */
export function uniqueGets({ signer, path, fixed, defaults }) {
  const spellings = [];
  const optional = Object.entries(defaults);
  for (let mask = 0; mask < 1 << optional.length; mask++) {
    const chosen = [...Object.entries(fixed), ...optional.filter((_, i) => mask & (1 << i))];
    for (const order of permutations(chosen)) spellings.push(order.map(([k, v]) => `${k}=${v}`).join("&"));
  }
  const nextTimestamp = new Array(spellings.length).fill(0);
  let turn = 0;
  return () => {
    const now = Math.floor(Date.now() / 1000);
    for (let tried = 0; tried < spellings.length; tried++) {
      const i = turn++ % spellings.length;
      const ts = Math.max(nextTimestamp[i], now - SKEW_USED_SECONDS);
      if (ts > now + SKEW_USED_SECONDS) continue;
      nextTimestamp[i] = ts + 1;
      const pathAndQuery = `${path}?${spellings[i]}`;
      return { method: "GET", path: pathAndQuery, headers: signer("GET", pathAndQuery, "", ts) };
    }
    return null;
  };
}

function permutations(items) {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}
