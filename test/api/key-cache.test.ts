// Issue 19 ("vrty at the edge"): verified API keys are cached in the isolate and in Workers KV, so an
// authenticated call needs no D1 round trip; a revocation takes effect within a documented bound.
// "Another isolate" is a KeyCache of its own on a clock the test sets, against the same real D1 and KV.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { openDb } from "../../src/db/client.ts";
import { KeyCache } from "../../src/auth/key-cache.ts";
import { KEY_CACHE_LIMITS } from "../../src/auth/key-cache-limits.ts";
import { isolateKeys, kvName, verifyApiKey } from "../../src/auth/verified-keys.ts";
import { ADMIN_TOKEN, newTenant, problem, send } from "./helpers.ts";

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const { isolateTtlMs, kvTtlSeconds, isolateEntries } = KEY_CACHE_LIMITS;
const kvTtlMs = kvTtlSeconds * 1000;

/** Another isolate: its own memory, its own clock (ms after `t0`). */
function otherIsolate(t0: number) {
  const memo = new KeyCache({ maxEntries: isolateEntries });
  let offset = 0;
  const stores = { db: openDb(env.DB), kv: env.KEY_CACHE, memo, now: () => t0 + offset };
  return {
    memo,
    at: (ms: number) => {
      offset = ms;
      return { verify: (secret: string) => verifyApiKey(stores, secret) };
    },
  };
}

const UNKNOWN = "The API key is unknown or has been revoked.";

describe("verified keys at the edge", () => {
  it("answers a known key from memory, then from KV, without D1", async () => {
    const { key, keyId, tenantId } = await newTenant();
    const hash = await sha256Hex(key);
    expect((await send("GET", "/v1/keys", key)).status).toBe(200);

    // KV holds the verification under the key's hash, never the key itself.
    const stored = await env.KEY_CACHE.get(kvName(hash));
    expect(stored).not.toContain(key);
    expect(JSON.parse(stored!)).toMatchObject({ tenant_id: tenantId, key_id: keyId });
    expect((await env.KEY_CACHE.list()).keys.map((k) => k.name).some((n) => n.includes(key))).toBe(false);

    // D1 no longer finds the key by its hash: whatever still accepts it is a cache.
    await env.DB.prepare("UPDATE api_keys SET key_hash = ? WHERE id = ?").bind(`moved-${hash}`, keyId).run();
    expect((await send("GET", "/v1/keys", key)).status).toBe(200); // this isolate's memory
    isolateKeys.delete(hash);
    expect((await send("GET", "/v1/keys", key)).status).toBe(200); // KV
    isolateKeys.delete(hash);
    await env.KEY_CACHE.delete(kvName(hash));
    expect((await problem(await send("GET", "/v1/keys", key), 401)).detail).toBe(UNKNOWN); // D1, which does not know it
  });

  it("caches no unknown key, in memory or in KV", async () => {
    const other = otherIsolate(Date.now());
    const before = (await env.KEY_CACHE.list()).keys.length;
    const sizeBefore = isolateKeys.size;
    for (let i = 0; i < 50; i++) {
      // Each with a prefix of its own: 50 wrong keys sharing one would be throttled (sign-in-throttle.test.ts).
      const made_up = `assay_sk_${crypto.randomUUID()}-made-up-${i}`;
      expect(await other.at(0).verify(made_up)).toBeUndefined();
      expect((await problem(await send("GET", "/v1/keys", made_up), 401)).detail).toBe(UNKNOWN);
    }
    expect(other.memo.size).toBe(0);
    expect(isolateKeys.size).toBe(sizeBefore);
    expect((await env.KEY_CACHE.list()).keys.length).toBe(before);
  });
});

describe("revocation delay", () => {
  it("the bound is max(KV entry lifetime, isolate memory), and covers the usual propagation", () => {
    expect(KEY_CACHE_LIMITS.revocationBoundSeconds * 1000).toBe(Math.max(kvTtlMs, isolateTtlMs));
    expect(isolateTtlMs + KEY_CACHE_LIMITS.kvPropagationSeconds * 1000).toBeLessThanOrEqual(
      KEY_CACHE_LIMITS.revocationBoundSeconds * 1000,
    );
  });

  it("refuses a revoked key at once here, and in an isolate that cached it once its memory expires", async () => {
    const { key, keyId } = await newTenant();
    const t0 = Date.now();
    const other = otherIsolate(t0);
    expect(await other.at(0).verify(key)).toMatchObject({ keyId }); // verified in D1, cached there and in KV
    expect((await send("GET", "/v1/keys", key)).status).toBe(200); // and in this isolate

    expect((await send("DELETE", `/v1/keys/${keyId}`, key)).status).toBe(200);
    expect(await env.KEY_CACHE.get(kvName(await sha256Hex(key)))).toBeNull();
    expect((await problem(await send("GET", "/v1/keys", key), 401)).detail).toBe(UNKNOWN);

    expect(await other.at(isolateTtlMs - 1).verify(key)).toMatchObject({ keyId }); // still within its memory's deadline
    expect(await other.at(isolateTtlMs).verify(key)).toBeUndefined(); // KV forgot it, D1 says revoked
  });

  it("refuses it everywhere after the bound, even where KV still serves the deleted entry", async () => {
    const { key, keyId } = await newTenant();
    const hash = await sha256Hex(key);
    const t0 = Date.now();
    const first = otherIsolate(t0);
    expect(await first.at(0).verify(key)).toMatchObject({ keyId });
    const served = (await env.KEY_CACHE.get(kvName(hash)))!; // what a location's cached read keeps serving

    expect((await send("DELETE", `/v1/admin/keys/${keyId}`, ADMIN_TOKEN)).status).toBe(200);
    await env.KEY_CACHE.put(kvName(hash), served); // a location the delete has not reached yet

    const late = otherIsolate(t0);
    expect(await late.at(kvTtlMs - isolateTtlMs).verify(key)).toMatchObject({ keyId }); // read from the stale KV entry
    expect(await late.at(kvTtlMs - 1).verify(key)).toMatchObject({ keyId }); // its memory of it
    expect(await late.at(kvTtlMs).verify(key)).toBeUndefined();
    expect(
      await otherIsolate(t0)
        .at(kvTtlMs - 1)
        .verify(key),
    ).toMatchObject({ keyId });
    expect(await otherIsolate(t0).at(kvTtlMs).verify(key)).toBeUndefined(); // the entry's own deadline, not KV's delete
  });

  it("refuses a revoked key that was never used, at once, and caches nothing for it", async () => {
    const { key } = await newTenant();
    const created = (await (await send("POST", "/v1/keys", key, { name: "unused" })).json()) as {
      id: string;
      key: string;
    };
    expect((await send("DELETE", `/v1/keys/${created.id}`, key)).status).toBe(200);
    expect((await problem(await send("GET", "/v1/keys", created.key), 401)).detail).toBe(UNKNOWN);
    expect(await otherIsolate(Date.now()).at(0).verify(created.key)).toBeUndefined();
    expect(await env.KEY_CACHE.get(kvName(await sha256Hex(created.key)))).toBeNull();
  });

  it("the operator's revocation also forgets the key here and in KV", async () => {
    const { tenantId } = await newTenant();
    const created = (await (
      await send("POST", `/v1/admin/tenants/${tenantId}/keys`, ADMIN_TOKEN, { name: "ops" })
    ).json()) as { id: string; key: string };
    expect((await send("POST", "/v1/vrty/score", created.key, { prompt: "a b c", response: "a b c d" })).status).toBe(
      200,
    );
    expect(await env.KEY_CACHE.get(kvName(await sha256Hex(created.key)))).not.toBeNull();
    expect((await send("DELETE", `/v1/admin/keys/${created.id}`, ADMIN_TOKEN)).status).toBe(200);
    expect(await env.KEY_CACHE.get(kvName(await sha256Hex(created.key)))).toBeNull();
    await problem(await send("POST", "/v1/vrty/score", created.key, { prompt: "a b c", response: "a b c d" }), 401);
  });
});
