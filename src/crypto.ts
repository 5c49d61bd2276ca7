/** Small WebCrypto helpers shared by auth and storage; Workers and Node 22 both provide `crypto.subtle`. */
import { sha256Hex } from "./engines/sha256.ts";

export { sha256Hex };

/** `bytes` of CSPRNG output as base64url without padding. */
export function randomToken(bytes = 32): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  return btoa(String.fromCharCode(...buf))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Compares two secrets in time independent of where they differ, by comparing their digests. */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([sha256Hex(a), sha256Hex(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x.charCodeAt(i) ^ y.charCodeAt(i);
  return diff === 0;
}
