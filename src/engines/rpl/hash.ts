/**
 * SHA-256 helpers for the RPL identifiers. WebCrypto (`crypto.subtle`) runs in both Workers and Node,
 * so every hashing function in this engine is async.
 */

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text` (Python `hashlib.sha256(s.encode()).hexdigest()`). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
}
