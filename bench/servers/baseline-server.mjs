// Baseline servers: the same POST /api/v1/tenant/wallet-credits the ledger answers, on the same
// Hono + @hono/node-server stack, doing nothing (`bare`) or only the Ed25519 check (`signed`, the
// "signed ceiling": what one process can answer when every request must be verified).
import { createHash, createPublicKey, randomUUID, verify } from "node:crypto";
import { serveParent } from "../lib/child.mjs";
import { importFrom } from "../lib/resolve.mjs";
import { TENANT_API } from "../lib/signing.mjs";

const { Hono } = await importFrom("server", "hono");
const { serve } = await importFrom("server", "@hono/node-server");

const SKEW_SECONDS_MAX = 300;

/** A body shaped and sized like the ledger's operation view, so both sides write the same bytes. */
function operationLike(input) {
  const at = new Date().toISOString();
  return {
    uid: `op_${randomUUID().replaceAll("-", "")}`,
    type: "wallet_credit",
    state: "completed",
    amountMinor: input.amountMinor,
    feeMinor: 0,
    taxMinor: 0,
    currency: input.currency,
    clientReference: input.clientReference,
    customerUid: "cus_00000000000000000000000000",
    sourceWalletUid: null,
    destinationWalletUid: input.walletUid,
    counterpartyHint: null,
    feeBreakdown: [],
    metadata: null,
    createdAt: at,
    completedAt: at,
    links: { self: `${TENANT_API}/operations/x`, receipt: `${TENANT_API}/operations/x/receipt` },
  };
}

function signedCheck({ apiKey, kid, publicKeyPem }) {
  const apiKeySha256 = createHash("sha256").update(apiKey, "utf8").digest("hex");
  // Cached KeyObject per kid: parsing the PEM per request would cost more than verifying.
  const keys = new Map([[kid, createPublicKey(publicKeyPem)]]);
  return async (c, bytes) => {
    const presented = c.req.header("x-api-key");
    const key = keys.get(c.req.header("x-key-id") ?? "");
    const timestamp = c.req.header("x-timestamp") ?? "";
    const signature = Buffer.from(c.req.header("x-signature") ?? "", "base64");
    if (presented === undefined || key === undefined || signature.byteLength !== 64) return false;
    if (createHash("sha256").update(presented, "utf8").digest("hex") !== apiKeySha256) return false;
    if (Math.abs(Date.now() / 1000 - Number(timestamp)) > SKEW_SECONDS_MAX) return false;
    const bodySha256 = createHash("sha256").update(bytes).digest("hex");
    const url = c.req.url;
    const pathAndQuery = url.slice(url.indexOf("/", url.indexOf("://") + 3));
    const canonical = Buffer.from(`${c.req.method}\n${pathAndQuery}\n${timestamp}\n${bodySha256}`, "utf8");
    // The callback form runs on the libuv pool: the second core verifies while this one parses.
    return new Promise((resolve) => verify(null, canonical, key, signature, (e, ok) => resolve(!e && ok)));
  };
}

let server;
serveParent({
  async setup(options) {
    const check = options.kind === "signed" ? signedCheck(options) : null;
    const app = new Hono();
    app.post(`${TENANT_API}/wallet-credits`, async (c) => {
      if (check === null) return c.json(operationLike(await c.req.json()), 201);
      const bytes = new Uint8Array(await c.req.arrayBuffer());
      if (!(await check(c, bytes))) return c.json({ error: { code: "Unauthorized" } }, 401);
      return c.json(operationLike(JSON.parse(Buffer.from(bytes).toString("utf8"))), 201);
    });
    server = await new Promise((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    return { info: { url: `http://127.0.0.1:${server.address().port}` } };
  },
  close: () =>
    new Promise((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    }),
});
