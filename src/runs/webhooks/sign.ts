/**
 * Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`
 * where the key is the base64 part of the `whsec_…` secret. Receivers can verify with any Standard
 * Webhooks library.
 */
const PREFIX = "whsec_";

function b64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function newWebhookSecret(): string {
  return PREFIX + b64(crypto.getRandomValues(new Uint8Array(32)));
}

export async function signWebhook(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const raw = Uint8Array.from(atob(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret), (c) =>
    c.charCodeAt(0),
  );
  const key = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${body}`));
  return `v1,${b64(new Uint8Array(mac))}`;
}
