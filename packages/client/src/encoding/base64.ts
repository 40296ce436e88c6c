// atob/btoa exist in Node 20, browsers and edge runtimes alike, unlike Buffer.

const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard (padded) base64 of raw bytes. */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Strict decoding of standard padded base64: atob alone silently accepts missing padding and
 * stray characters, which would let a mangled key parse into the wrong bytes.
 */
export function base64ToBytes(text: string): Uint8Array {
  if (!base64Pattern.test(text)) throw new TypeError("Invalid base64 text");
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
