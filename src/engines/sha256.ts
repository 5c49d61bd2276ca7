/**
 * Lower-case hex SHA-256 of the UTF-8 bytes of `text` (Python's `hashlib.sha256(s.encode()).hexdigest()`),
 * through the global WebCrypto, so it runs unchanged in Node 22 and in workerd. Pure: shared by the
 * engines and re-exported for the platform (src/crypto.ts). Lone surrogates encode as U+FFFD.
 */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export async function sha256Hex(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i]];
  return hex;
}
