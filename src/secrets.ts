/**
 * Encryption of secrets at rest (provider API keys for the life of a run, webhook signing secrets)
 * with AES-256-GCM under the Worker secret SECRETS_KEY (32 bytes, base64). The stored form is
 * base64(iv ‖ ciphertext); a fresh 96-bit IV per value.
 */
const keys = new Map<string, Promise<CryptoKey>>();

function importKey(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) throw new Error("SECRETS_KEY is not configured");
  let key = keys.get(secret);
  if (!key) {
    const raw = Uint8Array.from(atob(secret), (c) => c.charCodeAt(0));
    if (raw.length !== 32) throw new Error("SECRETS_KEY must be 32 bytes, base64-encoded");
    key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    keys.set(secret, key);
  }
  return key;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export async function encryptSecret(secretsKey: string | undefined, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv },
      await importKey(secretsKey),
      new TextEncoder().encode(plaintext),
    ),
  );
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return toBase64(out);
}

export async function decryptSecret(secretsKey: string | undefined, stored: string): Promise<string> {
  const bytes = Uint8Array.from(atob(stored), (c) => c.charCodeAt(0));
  const pt = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: bytes.slice(0, 12) },
    await importKey(secretsKey),
    bytes.slice(12),
  );
  return new TextDecoder().decode(pt);
}
