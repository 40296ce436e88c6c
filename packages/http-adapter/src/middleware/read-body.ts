import { createHash } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app/env.js";
import { HttpError, payloadTooLarge, requestIncomplete } from "../errors/http-error.js";

const EMPTY = new Uint8Array(0);
const DECIMAL = /^\d{1,15}$/;

export const sha256Hex = (data: Uint8Array | string): string =>
  createHash("sha256").update(data).digest("hex");

const EMPTY_SHA256 = sha256Hex(EMPTY);

/** A body whose declared length is over `bytesMax` (413), refused before anything else is checked. */
export function refuseDeclaredOversize(bytesMax: number): MiddlewareHandler<AppEnv> {
  return async function refuseDeclaredOversize(c, next) {
    assertDeclaredSize(c.req.header("Content-Length"), bytesMax);
    await next();
  };
}

function assertDeclaredSize(declared: string | undefined, bytesMax: number): void {
  if (declared !== undefined && Number(declared) > bytesMax) throw payloadTooLarge(bytesMax);
}

/**
 * Reads the body once, refusing more than `bytesMax` (413), and keeps the exact bytes and their
 * SHA-256 for the signature check and the idempotency hash. Nothing downstream reads `c.req` again.
 */
export function readBody(bytesMax: number): MiddlewareHandler<AppEnv> {
  return async function readBody(c, next) {
    const declared = c.req.header("Content-Length");
    assertDeclaredSize(declared, bytesMax);
    let bytes: Uint8Array = EMPTY;
    // Fast paths (docs/performance.md): GET and HEAD carry no body here, and a body whose length
    // is declared (the HTTP parser never delivers more than announced) is read in one go, which
    // @hono/node-server does straight from the socket instead of through a web stream.
    if (c.req.method === "GET" || c.req.method === "HEAD") {
      c.set("rawBody", bytes);
      c.set("bodySha256", EMPTY_SHA256);
      return next();
    }
    if (declared !== undefined && DECIMAL.test(declared)) {
      if (declared !== "0") bytes = new Uint8Array(await received(c.req.arrayBuffer()));
      if (bytes.byteLength > bytesMax) throw payloadTooLarge(bytesMax);
      c.set("rawBody", bytes);
      c.set("bodySha256", sha256Hex(bytes));
      return next();
    }
    const stream = c.req.raw.body;
    if (stream !== null) {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const reader = stream.getReader();
      for (;;) {
        const { done, value } = await received(reader.read());
        if (done) break;
        size += value.byteLength;
        if (size > bytesMax) {
          await reader.cancel();
          throw payloadTooLarge(bytesMax);
        }
        chunks.push(value);
      }
      bytes = chunks.length === 1 ? chunks[0]! : concat(chunks, size);
    }
    c.set("rawBody", bytes);
    c.set("bodySha256", sha256Hex(bytes));
    await next();
  };
}

/** A read of the body, whose failure (the connection closed or timed out mid-body) is a 408. */
async function received<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (e) {
    if (e instanceof HttpError) throw e;
    throw requestIncomplete();
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
