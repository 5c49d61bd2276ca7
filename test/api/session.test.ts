// Dashboard sessions (issue 17): an API key is exchanged once for an HttpOnly cookie; the cookie alone
// never changes anything (X-CSRF-Token and the server's own origin are required); a session ends at
// sign-out, at its expiry and with its key; the token is stored only as a hash.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { call, newTenant, problem, send } from "./helpers.ts";

const ORIGIN = "http://assay.test";

async function sha256Hex(text: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

type Session = { object: string; tenant: { id: string; name: string }; csrf_token: string; expires_at: string };

async function signIn(
  key: string,
  origin: string | null = ORIGIN,
): Promise<{ cookie: string; token: string; body: Session; setCookie: string }> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (origin) headers.Origin = origin;
  const res = await call("/v1/session", { method: "POST", headers, body: JSON.stringify({ api_key: key }) });
  expect(res.status).toBe(201);
  const setCookie = res.headers.get("set-cookie")!;
  const token = /assay_session=([^;]+)/.exec(setCookie)![1];
  return { cookie: `assay_session=${token}`, token, body: (await res.json()) as Session, setCookie };
}

function withCookie(cookie: string, method = "GET", extra: Record<string, string> = {}, body?: unknown): RequestInit {
  const headers: Record<string, string> = { Cookie: cookie, ...extra };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

describe("POST /v1/session", () => {
  it("sets an HttpOnly, SameSite=Strict cookie for /v1 and answers the tenant and a CSRF token, never the key", async () => {
    const { key, tenantId } = await newTenant("session-acme");
    const res = await call("/v1/session", {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: JSON.stringify({ api_key: key }),
    });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain(key);
    const body = JSON.parse(text) as Session;
    expect(body).toMatchObject({ object: "session", tenant: { id: tenantId, name: "session-acme" } });
    expect(body.csrf_token.length).toBeGreaterThanOrEqual(24);
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^assay_session=[A-Za-z0-9_-]{40,};/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/v1");
    expect(setCookie).toContain("Max-Age=43200");
    expect(setCookie).not.toContain("Secure"); // plain http here; https gets Secure
    expect(setCookie).not.toContain(key);
  });

  it("adds Secure over HTTPS", async () => {
    const { key } = await newTenant();
    const res = await call("/v1/session", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ api_key: key }),
    });
    // call() speaks plain http; an https request is built by hand.
    expect(res.status).toBe(201);
    const { exports } = await import("cloudflare:workers");
    const https = await exports.default.fetch(
      new Request("https://assay.test/v1/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ api_key: key }),
      }),
    );
    expect(https.headers.get("set-cookie")).toContain("Secure");
  });

  it("refuses an unknown or revoked key, and a sign-in posted from another origin", async () => {
    const { key, keyId } = await newTenant();
    await problem(
      await call("/v1/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ api_key: "assay_sk_nope" }),
      }),
      401,
    );
    await problem(
      await call("/v1/session", {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: "https://evil.example" },
        body: JSON.stringify({ api_key: key }),
      }),
      401,
    );
    expect((await send("DELETE", `/v1/keys/${keyId}`, key)).status).toBe(200);
    await problem(
      await call("/v1/session", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ api_key: key }),
      }),
      401,
    );
  });

  it("names a missing field", async () => {
    const p = await problem(
      await call("/v1/session", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }),
      400,
    );
    expect(p.errors?.map((e) => e.path)).toEqual(["api_key"]);
  });

  it("stores only the token's hash", async () => {
    const { key } = await newTenant();
    const { token } = await signIn(key);
    const rows = await env.DB.prepare("SELECT * FROM dashboard_sessions WHERE token_hash = ?")
      .bind(await sha256Hex(token))
      .all();
    expect(rows.results).toHaveLength(1);
    expect(JSON.stringify(rows.results)).not.toContain(token);
    expect(JSON.stringify(rows.results)).not.toContain(key);
  });
});

describe("a session cookie", () => {
  it("authenticates reads of its own tenant's data", async () => {
    const { key, tenantId } = await newTenant();
    const { cookie, body } = await signIn(key);
    const session = await call("/v1/session", withCookie(cookie));
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual(body);
    const runs = await call("/v1/runs", withCookie(cookie));
    expect(runs.status).toBe(200);
    const other = await newTenant("other");
    const created = (await (
      await send("POST", "/v1/chain-determinism/runs", other.key, { model: "sim:agent", n_queries: 1, n_replays: 1 })
    ).json()) as { id: string };
    await problem(await call(`/v1/runs/${created.id}`, withCookie(cookie)), 404);
    expect(tenantId).not.toBe(other.tenantId);
  });

  it("changes nothing without the CSRF token, with a wrong one, or from another origin", async () => {
    const { key } = await newTenant();
    const { cookie, body } = await signIn(key);
    const run = { model: "sim:agent", n_queries: 1, n_replays: 1 };
    await problem(await call("/v1/chain-determinism/runs", withCookie(cookie, "POST", {}, run)), 401);
    await problem(
      await call("/v1/chain-determinism/runs", withCookie(cookie, "POST", { "X-CSRF-Token": "wrong" }, run)),
      401,
    );
    await problem(
      await call(
        "/v1/chain-determinism/runs",
        withCookie(cookie, "POST", { "X-CSRF-Token": body.csrf_token, Origin: "https://evil.example" }, run),
      ),
      401,
    );
    expect((await (await call("/v1/runs", withCookie(cookie))).json()) as { data: unknown[] }).toMatchObject({
      data: [],
    });
    const ok = await call(
      "/v1/chain-determinism/runs",
      withCookie(cookie, "POST", { "X-CSRF-Token": body.csrf_token, Origin: ORIGIN }, run),
    );
    expect(ok.status).toBe(202);
  });

  it("ends at sign-out: the same cookie is refused afterwards", async () => {
    const { key } = await newTenant();
    const { cookie, body } = await signIn(key);
    await problem(await call("/v1/session", withCookie(cookie, "DELETE")), 401); // sign-out is a change: CSRF needed
    const out = await call("/v1/session", withCookie(cookie, "DELETE", { "X-CSRF-Token": body.csrf_token }));
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/assay_session=;.*Max-Age=0/);
    await problem(await call("/v1/runs", withCookie(cookie)), 401);
    await problem(await call("/v1/session", withCookie(cookie)), 401);
  });

  it("ends when its key is revoked, and at its expiry", async () => {
    const { key, keyId } = await newTenant();
    const revoked = await signIn(key);
    const expiring = await signIn(key);
    await env.DB.prepare("UPDATE dashboard_sessions SET expires_at = ? WHERE token_hash = ?")
      .bind(Date.now() - 1, await sha256Hex(expiring.token))
      .run();
    await problem(await call("/v1/runs", withCookie(expiring.cookie)), 401);
    expect((await call("/v1/runs", withCookie(revoked.cookie))).status).toBe(200);
    expect((await send("DELETE", `/v1/keys/${keyId}`, key)).status).toBe(200);
    await problem(await call("/v1/runs", withCookie(revoked.cookie)), 401);
  });

  it("does not open the operator routes", async () => {
    const { key } = await newTenant();
    const { cookie } = await signIn(key);
    await problem(await call("/v1/admin/tenants", withCookie(cookie)), 401);
  });

  it("GET /v1/session with an API key instead of a cookie is a 404: there is no session to show", async () => {
    const { key } = await newTenant();
    await problem(await send("GET", "/v1/session", key), 404);
  });
});
