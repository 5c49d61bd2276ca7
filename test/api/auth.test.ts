import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { DEV_API_KEY, devSeedSql } from "../../scripts/dev-seed.ts";
import { ADMIN_TOKEN, call, newTenant, problem, send } from "./helpers.ts";

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("public routes", () => {
  it.each(["/healthz", "/openapi.json", "/docs"])("serves %s without a key", async (path) => {
    expect((await call(path)).status).toBe(200);
  });

  // Issue "A suite you can trust": GET / was a 404. Issue 17: a browser gets the dashboard (built into
  // public/app/ by `npm ci`); a deployment without it sends the browser to the docs.
  it("answers GET / with the dashboard for a browser and the links for other clients", async () => {
    const browser = await call("/", { headers: { Accept: "text/html,application/xhtml+xml" }, redirect: "manual" });
    if (browser.status === 302) expect(browser.headers.get("location")).toBe("/docs");
    else {
      expect(browser.status).toBe(200);
      expect(browser.headers.get("content-type")).toMatch(/^text\/html/);
      expect(browser.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(await browser.text()).toContain('<div id="app">');
    }
    const api = await call("/");
    expect(api.status).toBe(200);
    expect(await api.json()).toMatchObject({
      name: "assay",
      docs: "/docs",
      openapi: "/openapi.json",
      health: "/healthz",
    });
  });
});

describe("API keys on /v1", () => {
  it("rejects a request with no key: 401 with WWW-Authenticate", async () => {
    const res = await send("POST", "/v1/vrty/score", undefined, { prompt: "a", response: "b" });
    const body = await problem(res, 401);
    expect(body.type).toBe("/problems/unauthenticated");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("rejects an unknown key", async () => {
    await problem(await send("GET", "/v1/keys", "assay_sk_not-a-real-key"), 401);
  });

  it("rejects a non-bearer scheme", async () => {
    const { key } = await newTenant();
    await problem(await call("/v1/keys", { headers: { Authorization: `Basic ${key}` } }), 401);
  });

  it("stores only the key's SHA-256, never the secret", async () => {
    const { key, keyId } = await newTenant();
    expect(key).toMatch(/^assay_sk_[A-Za-z0-9_-]{43}$/);
    const row = await env.DB.prepare("SELECT * FROM api_keys WHERE id = ?")
      .bind(keyId)
      .first<Record<string, unknown>>();
    expect(row!.key_hash).toBe(await sha256Hex(key));
    expect(Object.values(row!).some((v) => v === key)).toBe(false);
  });

  it("shows the secret once: listing keys never returns it", async () => {
    const { key } = await newTenant();
    const res = await send("GET", "/v1/keys", key);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { data: Record<string, unknown>[]; has_more: boolean };
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).not.toHaveProperty("key");
    expect(JSON.stringify(page)).not.toContain(key);
  });

  it("lets a tenant rotate: create a second key, revoke the first, the first stops working", async () => {
    const { key, keyId } = await newTenant();
    const created = await send("POST", "/v1/keys", key, { name: "ci" });
    expect(created.status).toBe(201);
    const second = (await created.json()) as { key: string };
    const revoked = await send("DELETE", `/v1/keys/${keyId}`, second.key);
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { revoked_at: string | null }).revoked_at).not.toBeNull();
    await problem(await send("GET", "/v1/keys", key), 401);
    expect((await send("GET", "/v1/keys", second.key)).status).toBe(200);
  });

  it("cannot revoke another tenant's key (404, not 403)", async () => {
    const a = await newTenant("a");
    const b = await newTenant("b");
    await problem(await send("DELETE", `/v1/keys/${a.keyId}`, b.key), 404);
    expect((await send("GET", "/v1/keys", a.key)).status).toBe(200);
  });

  it("pages keys with a cursor", async () => {
    const { key } = await newTenant();
    for (let i = 0; i < 3; i++) await send("POST", "/v1/keys", key, { name: `k${i}` });
    const first = (await (await send("GET", "/v1/keys?limit=3", key)).json()) as {
      data: { id: string }[];
      has_more: boolean;
      next_cursor: string;
    };
    expect(first.data).toHaveLength(3);
    expect(first.has_more).toBe(true);
    const second = (await (await send("GET", `/v1/keys?limit=3&after=${first.next_cursor}`, key)).json()) as {
      data: { id: string }[];
      has_more: boolean;
      next_cursor: null;
    };
    expect(second.data).toHaveLength(1);
    expect(second.has_more).toBe(false);
    expect(second.next_cursor).toBeNull();
    const ids = [...first.data, ...second.data].map((k) => k.id);
    expect(new Set(ids).size).toBe(4);
    expect([...ids].sort().reverse()).toEqual(ids);
  });

  // Issue "A suite you can trust": keys created in one request or one millisecond came out in random order.
  it("lists keys newest first, also those made in the same millisecond", async () => {
    const { key } = await newTenant();
    for (let i = 0; i < 3; i++) await send("POST", "/v1/keys", key, { name: `k${i}` });
    const list = (await (await send("GET", "/v1/keys?limit=3", key)).json()) as { data: { name: string }[] };
    expect(list.data.map((k) => k.name)).toEqual(["k2", "k1", "k0"]);
  });
});

describe("the local dev key (scripts/dev-seed.ts, run by npm start)", () => {
  // Issue "A suite you can trust": the dev tenant and key had ids ('ten_dev', 'key_dev') that sort
  // after every generated id, so lists put them first although they are the oldest.
  it("works, is seeded once, and lists after keys made later", async () => {
    const seed = devSeedSql(Date.now() - 60_000);
    await env.DB.exec(seed.replace(/;(?=.)/g, ";\n"));
    await env.DB.exec(devSeedSql(Date.now()).replace(/;(?=.)/g, ";\n")); // a second start changes nothing
    const keys = (await (await send("GET", "/v1/keys", DEV_API_KEY)).json()) as { data: { name: string }[] };
    expect(keys.data.map((k) => k.name)).toEqual(["local dev key"]);
    await send("POST", "/v1/keys", DEV_API_KEY, { name: "later" });
    const after = (await (await send("GET", "/v1/keys", DEV_API_KEY)).json()) as { data: { name: string }[] };
    expect(after.data.map((k) => k.name)).toEqual(["later", "local dev key"]);
  });
});

describe("operator routes (ADMIN_TOKEN)", () => {
  it("rejects a wrong admin token", async () => {
    await problem(await send("POST", "/v1/admin/tenants", "wrong", { name: "x" }), 401);
  });

  it("rejects a tenant API key on admin routes", async () => {
    const { key } = await newTenant();
    await problem(await send("GET", "/v1/admin/tenants", key), 401);
  });

  it("creates keys for a tenant and revokes them", async () => {
    const { tenantId } = await newTenant();
    const res = await send("POST", `/v1/admin/tenants/${tenantId}/keys`, ADMIN_TOKEN, { name: "second" });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; key: string; tenant_id: string };
    expect(created.tenant_id).toBe(tenantId);
    expect((await send("GET", "/v1/keys", created.key)).status).toBe(200);
    expect((await send("DELETE", `/v1/admin/keys/${created.id}`, ADMIN_TOKEN)).status).toBe(200);
    await problem(await send("GET", "/v1/keys", created.key), 401);
    const list = (await (await send("GET", `/v1/admin/tenants/${tenantId}/keys`, ADMIN_TOKEN)).json()) as {
      data: unknown[];
    };
    expect(list.data).toHaveLength(2);
  });

  it("lists tenants newest first", async () => {
    for (const name of ["t-a", "t-b", "t-c"]) await newTenant(name);
    const list = (await (await send("GET", "/v1/admin/tenants", ADMIN_TOKEN)).json()) as { data: { name: string }[] };
    // The suite's D1 is shared by its tests, so only the newest three are this test's.
    expect(list.data.slice(0, 3).map((t) => t.name)).toEqual(["t-c", "t-b", "t-a"]);
  });

  it("404s keys for an unknown tenant", async () => {
    await problem(await send("POST", "/v1/admin/tenants/ten_nope/keys", ADMIN_TOKEN, { name: "x" }), 404);
  });
});
